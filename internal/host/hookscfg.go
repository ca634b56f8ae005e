package host

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/hooks"
	"github.com/reinharness/rein/internal/textclip"
)

// ClaudeSettingsFiles are the workspace's Claude Code settings files whose
// "hooks" object rein reads as the project layer, in Claude Code's order.
var ClaudeSettingsFiles = []string{
	filepath.Join(".claude", "settings.json"),
	filepath.Join(".claude", "settings.local.json"),
}

// HookSet is every configured hook, split by layer.
type HookSet struct {
	// User holds the hooks of the user's own configuration
	// (~/.config/rein/config.toml or --config): they always run.
	User hooks.Config
	// Project holds the workspace's (.rein/config.toml [hooks] and
	// .claude/settings*.json): they run only once trusted.
	Project hooks.Config
	// Warnings are what could not be used, naming the file.
	Warnings []string
	// Checks are the project's [verify] checks, trusted with the hooks
	// (set by loadHookSet only).
	Checks []VerifyCheck
}

// All returns the hooks of both layers, the user's first.
func (s HookSet) All() hooks.Config {
	var c hooks.Config
	c.Add(s.User)
	c.Add(s.Project)
	return c
}

// LoadHooks reads the [hooks] tables of every configuration layer and the
// hooks of the workspace's Claude Code settings. A broken [hooks] table in
// the user's own file is an error, as any of its settings would be; a
// workspace's unreadable or malformed settings file is a warning, since
// it belongs to another tool and must not stop rein.
func LoadHooks(cfg *config.Config, ws string) (HookSet, error) {
	var s HookSet
	for _, sec := range cfg.Sections("hooks") {
		var events map[string][]hooks.GroupSpec
		if err := sec.Decode(&events); err != nil {
			if sec.Source.Layer == config.LayerProject {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: [hooks] ignored: %s", sec.Source.Name, textclip.FirstLine(err.Error())))
				continue
			}
			return HookSet{}, err
		}
		layer := hooks.LayerUser
		if sec.Source.Layer == config.LayerProject {
			layer = hooks.LayerProject
		}
		c, w := hooks.Build(layer, sec.Source.Name, events)
		s.Warnings = append(s.Warnings, w...)
		if err := checkUnconfinedHooks(c, ws); err != nil {
			return HookSet{}, err
		}
		if layer == hooks.LayerUser {
			s.User.Add(c)
		} else {
			s.Project.Add(c)
		}
	}
	var refused []string
	for _, name := range ClaudeSettingsFiles {
		data, err := ReadSettings(ws, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var out *leadsOutError
		if errors.As(err, &out) {
			if !slices.Contains(refused, out.path) { // .claude itself: one warning
				refused = append(refused, out.path)
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: hooks not read: %v", out.path, err))
			}
			continue
		}
		if err != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: hooks not read: %v", name, err))
			continue
		}
		c, w, err := hooks.ParseSettings(data, hooks.LayerProject, name)
		s.Warnings = append(s.Warnings, w...)
		if err != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("hooks not read: %v", err))
			continue
		}
		s.Project.Add(c)
	}
	return s, nil
}

// ReadSettings reads the settings file name of the workspace ws, of at
// most hooks.MaxSettingsBytes, through the workspace's os.Root: a
// symlink inside the workspace is followed, one leading out of it (the
// file, or .claude itself) is refused, so a repository cannot make rein
// read hooks from a file of its choosing elsewhere on the machine.
func ReadSettings(ws, name string) ([]byte, error) {
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			if p := linkOut(root, name); p != "" {
				return nil, &leadsOutError{p}
			}
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, hooks.MaxSettingsBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > hooks.MaxSettingsBytes {
		return nil, fmt.Errorf("more than %d bytes, more than a settings file may have", hooks.MaxSettingsBytes)
	}
	return data, nil
}

// leadsOutError reports a settings path of which path (the file, or a
// folder above it) is a symbolic link leading outside the workspace.
type leadsOutError struct{ path string }

func (e *leadsOutError) Error() string {
	return "it is a symbolic link leading outside the workspace; not read (copy the file into the workspace to use its hooks)"
}

// linkOut returns the first element of name, from the top, that is a
// symbolic link root cannot follow (it leads out), or "".
func linkOut(root *os.Root, name string) string {
	p := ""
	for _, part := range strings.Split(filepath.ToSlash(name), "/") {
		p = filepath.Join(p, part)
		fi, err := root.Lstat(p)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if _, err := root.Stat(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
	return ""
}

// checkUnconfinedHooks refuses a user hook's sandbox = false when what
// it runs lies in the workspace ws (see checkOutsideWorkspace): the model
// can edit those files, so they would be its code running unconfined.
func checkUnconfinedHooks(c hooks.Config, ws string) error {
	for _, g := range c.Groups {
		for _, h := range g.Hooks {
			if !h.Unconfined {
				continue
			}
			if err := checkScriptOutside(ws, ws, h.Command); err != nil {
				return fmt.Errorf("%s: %s hook %q has sandbox = false, refused: %v; only a hook whose every file lies outside the workspace may run outside the sandbox: move the script out of the workspace (and name it by its full path) or remove sandbox = false",
					g.Source, g.Event, ClipRunes(h.Command, 120), err)
			}
		}
	}
	return nil
}
