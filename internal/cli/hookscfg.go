package cli

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
)

// claudeSettingsFiles are the workspace's Claude Code settings files whose
// "hooks" object rein reads as the project layer, in Claude Code's order.
var claudeSettingsFiles = []string{
	filepath.Join(".claude", "settings.json"),
	filepath.Join(".claude", "settings.local.json"),
}

// hookSet is every configured hook, split by layer.
type hookSet struct {
	// user holds the hooks of the user's own configuration
	// (~/.config/rein/config.toml or --config): they always run.
	user hooks.Config
	// project holds the workspace's (.rein/config.toml [hooks] and
	// .claude/settings*.json): they run only once trusted.
	project hooks.Config
	// warnings are what could not be used, naming the file.
	warnings []string
	// checks are the project's [verify] checks, trusted with the hooks
	// (set by loadHookSet only).
	checks []verifyCheck
}

// all returns the hooks of both layers, the user's first.
func (s hookSet) all() hooks.Config {
	var c hooks.Config
	c.Add(s.user)
	c.Add(s.project)
	return c
}

// loadHooks reads the [hooks] tables of every configuration layer and the
// hooks of the workspace's Claude Code settings. A broken [hooks] table in
// the user's own file is an error, as any of its settings would be; a
// workspace's unreadable or malformed settings file is a warning, since
// it belongs to another tool and must not stop rein.
func loadHooks(cfg *config.Config, ws string) (hookSet, error) {
	var s hookSet
	for _, sec := range cfg.Sections("hooks") {
		var events map[string][]hooks.GroupSpec
		if err := sec.Decode(&events); err != nil {
			if sec.Source.Layer == config.LayerProject {
				s.warnings = append(s.warnings, fmt.Sprintf("%s: [hooks] ignored: %s", sec.Source.Name, oneLine(err.Error())))
				continue
			}
			return hookSet{}, err
		}
		layer := hooks.LayerUser
		if sec.Source.Layer == config.LayerProject {
			layer = hooks.LayerProject
		}
		c, w := hooks.Build(layer, sec.Source.Name, events)
		s.warnings = append(s.warnings, w...)
		if err := checkUnconfinedHooks(c, ws); err != nil {
			return hookSet{}, err
		}
		if layer == hooks.LayerUser {
			s.user.Add(c)
		} else {
			s.project.Add(c)
		}
	}
	var refused []string
	for _, name := range claudeSettingsFiles {
		data, err := readSettings(ws, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var out *leadsOutError
		if errors.As(err, &out) {
			if !slices.Contains(refused, out.path) { // .claude itself: one warning
				refused = append(refused, out.path)
				s.warnings = append(s.warnings, fmt.Sprintf("%s: hooks not read: %v", out.path, err))
			}
			continue
		}
		if err != nil {
			s.warnings = append(s.warnings, fmt.Sprintf("%s: hooks not read: %v", name, err))
			continue
		}
		c, w, err := hooks.ParseSettings(data, hooks.LayerProject, name)
		s.warnings = append(s.warnings, w...)
		if err != nil {
			s.warnings = append(s.warnings, fmt.Sprintf("hooks not read: %v", err))
			continue
		}
		s.project.Add(c)
	}
	return s, nil
}

// readSettings reads the settings file name of the workspace ws, of at
// most hooks.MaxSettingsBytes, through the workspace's os.Root: a
// symlink inside the workspace is followed, one leading out of it (the
// file, or .claude itself) is refused, so a repository cannot make rein
// read hooks from a file of its choosing elsewhere on the machine.
func readSettings(ws, name string) ([]byte, error) {
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
					g.Source, g.Event, clipRunes(h.Command, 120), err)
			}
		}
	}
	return nil
}
