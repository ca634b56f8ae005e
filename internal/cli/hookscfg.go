package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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
		if layer == hooks.LayerUser {
			s.user.Add(c)
		} else {
			s.project.Add(c)
		}
	}
	for _, name := range claudeSettingsFiles {
		path := filepath.Join(ws, name)
		data, err := readSettings(path)
		if errors.Is(err, fs.ErrNotExist) {
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

// readSettings reads a settings file of at most hooks.MaxSettingsBytes.
// A symlink is followed: the file is only read, and what it says is
// untrusted either way.
func readSettings(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
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
