package host

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/lsp"
)

// LspSettings is the merged [lsp] configuration.
type LspSettings struct {
	Servers []lsp.Config
	// Project are the workspace's own [lsp.NAME] servers (from
	// .rein/config.toml): they start only once trusted (rein lsp trust),
	// and then replace a server of the same name.
	Project []lsp.Config
	// AfterEdit: the file tools' results gain the errors of the files
	// they changed (after_edit = "errors", the default).
	AfterEdit bool
	Warnings  []string
}

// lspValue is one key of [lsp]: after_edit's string or a server table.
// It decodes by hand because [lsp] mixes a setting with [lsp.NAME]
// tables, which no struct describes.
type lspValue struct {
	str   *string
	table map[string]any
}

func (v *lspValue) UnmarshalTOML(a any) error {
	switch x := a.(type) {
	case string:
		v.str = &x
	case map[string]any:
		v.table = x
	default:
		return fmt.Errorf("must be a string or a table")
	}
	return nil
}

// LoadLSP merges the [lsp] layers, later layers replacing a server of the
// same name. A project's [lsp.NAME] tables are kept apart (project): a
// server is a program the repository chooses, run on every edit, so it
// starts only once the user trusted it (see lspTrust).
//
// The defaults are looked up in the PATH of getenv (rein's environment as
// the App sees it), so that a run's tools do not depend on what the
// process happened to inherit.
func LoadLSP(cfg *config.Config, getenv func(string) string) (LspSettings, error) {
	out := LspSettings{AfterEdit: true}
	var servers []lsp.Config
	for _, sec := range cfg.Sections("lsp") {
		var raw map[string]*lspValue
		if err := sec.Decode(&raw); err != nil {
			return LspSettings{}, err
		}
		for _, name := range sortedNames(raw) {
			v := raw[name]
			if v.str != nil {
				if name != "after_edit" {
					return LspSettings{}, sec.Errorf([]string{name}, "lsp.%s: unknown setting (after_edit, or a [lsp.NAME] table)", name)
				}
				switch *v.str {
				case "errors":
					out.AfterEdit = true
				case "off":
					out.AfterEdit = false
				default:
					return LspSettings{}, sec.Errorf([]string{name}, "lsp.after_edit %q must be \"errors\" or \"off\"", *v.str)
				}
				continue
			}
			c, err := lspServer(sec, name, v.table)
			if err != nil {
				return LspSettings{}, err
			}
			if sec.Source.Layer == config.LayerProject {
				c.Project = true
				out.Project = slices.DeleteFunc(out.Project, func(s lsp.Config) bool { return s.Name == name })
				out.Project = append(out.Project, c)
				continue
			}
			servers = slices.DeleteFunc(servers, func(s lsp.Config) bool { return s.Name == name })
			servers = append(servers, c)
		}
	}
	out.Servers = lsp.Available(servers, func(name string) (string, error) { return lookPathIn(getenv("PATH"), name) })
	return out, nil
}

// lspServer reads one [lsp.NAME] table.
func lspServer(sec config.RawSection, name string, t map[string]any) (lsp.Config, error) {
	c := lsp.Config{Name: name, Env: map[string]string{}, LanguageIDs: map[string]string{}}
	bad := func(key, format string, args ...any) error {
		return sec.Errorf([]string{name, key}, "lsp.%s.%s: "+format, append([]any{name, key}, args...)...)
	}
	for _, key := range sortedNames(t) {
		val := t[key]
		switch key {
		case "command":
			s, ok := val.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return c, bad(key, "must be a non-empty string")
			}
			c.Command = s
		case "args", "extensions":
			list, ok := stringList(val)
			if !ok {
				return c, bad(key, "must be an array of strings")
			}
			if key == "args" {
				c.Args = list
				continue
			}
			for _, e := range list {
				if !strings.HasPrefix(e, ".") || len(e) < 2 {
					return c, bad(key, "%q must be a file name ending with its dot, like \".go\"", e)
				}
				c.Extensions = append(c.Extensions, strings.ToLower(e))
			}
		case "env", "language_ids":
			m, ok := val.(map[string]any)
			if !ok {
				return c, bad(key, "must be a table of strings")
			}
			for k, v := range m {
				s, ok := v.(string)
				if !ok {
					return c, bad(key, "%s must be a string", k)
				}
				if key == "env" {
					c.Env[k] = s
				} else {
					c.LanguageIDs[strings.ToLower(k)] = s
				}
			}
		default:
			return c, bad(key, "unknown key (command, args, extensions, env, language_ids)")
		}
	}
	if c.Command == "" {
		return c, sec.Errorf([]string{name}, "lsp.%s: command is required", name)
	}
	if len(c.Extensions) == 0 {
		return c, sec.Errorf([]string{name}, "lsp.%s: extensions is required, like [\".go\"]", name)
	}
	return c, nil
}

// lookPathIn finds an executable name in the directories of path.
func lookPathIn(path, name string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would resolve in the workspace
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

func stringList(v any) ([]string, bool) {
	items, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
