package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/workspace/sandbox"
)

// loadLayers writes a user and a project config file and loads them.
func loadLayers(t *testing.T, user, project string) (*config.Config, string, string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	write := func(p, content string) {
		if content == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".config", "rein", "config.toml"), user)
	write(filepath.Join(ws, ".rein", "config.toml"), project)
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	if err != nil {
		t.Fatalf("config.Load: %v", err)
	}
	return cfg, ws, home
}

func TestLoadSandbox(t *testing.T) {
	tests := []struct {
		name          string
		user, project string
		want          func(ws, home string) SandboxSettings
		wantWarnings  []string
	}{
		{
			name: "defaults",
			want: func(string, string) SandboxSettings { return SandboxSettings{Mode: sandbox.Auto} },
		},
		{
			name: "user sets everything",
			user: "[sandbox]\nmode = \"off\"\nreadable = [\"/usr\", \"~/src\"]\nwritable = [\"~/.cache/go-build\", \"build\"]\n",
			want: func(ws, home string) SandboxSettings {
				return SandboxSettings{Mode: sandbox.Off, Readable: []string{"/usr", filepath.Join(home, "src")},
					Writable: []string{filepath.Join(home, ".cache/go-build"), filepath.Join(ws, "build")}}
			},
		},
		{
			name:    "project tightens the mode",
			user:    "[sandbox]\nmode = \"auto\"\n",
			project: "[sandbox]\nmode = \"required\"\n",
			want:    func(string, string) SandboxSettings { return SandboxSettings{Mode: sandbox.Required} },
		},
		{
			name:         "project cannot loosen the mode or widen writes",
			user:         "[sandbox]\nmode = \"required\"\n",
			project:      "[sandbox]\nmode = \"off\"\nwritable = [\"/\"]\n",
			want:         func(string, string) SandboxSettings { return SandboxSettings{Mode: sandbox.Required} },
			wantWarnings: []string{`sandbox.mode "off" ignored`, "sandbox.writable ignored"},
		},
		{
			name:    "project narrows reads from the whole filesystem",
			project: "[sandbox]\nreadable = [\"/usr\"]\n",
			want: func(string, string) SandboxSettings {
				return SandboxSettings{Mode: sandbox.Auto, Readable: []string{"/usr"}}
			},
		},
		{
			name:    "project narrows within the user's reads",
			user:    "[sandbox]\nreadable = [\"/usr\", \"/etc\"]\n",
			project: "[sandbox]\nreadable = [\"/usr/lib\"]\n",
			want: func(string, string) SandboxSettings {
				return SandboxSettings{Mode: sandbox.Auto, Readable: []string{"/usr/lib"}}
			},
		},
		{
			name:    "project cannot read beyond the user's list",
			user:    "[sandbox]\nreadable = [\"/usr\"]\n",
			project: "[sandbox]\nreadable = [\"/usr\", \"/home\"]\n",
			want: func(string, string) SandboxSettings {
				return SandboxSettings{Mode: sandbox.Auto, Readable: []string{"/usr"}}
			},
			wantWarnings: []string{"sandbox.readable ignored: /home is outside"},
		},
		{
			name:    "an empty project list reads nothing more",
			project: "[sandbox]\nreadable = []\n",
			want: func(string, string) SandboxSettings {
				return SandboxSettings{Mode: sandbox.Auto, Readable: []string{}}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ws, home := loadLayers(t, tt.user, tt.project)
			got, err := LoadSandbox(cfg, ws, home)
			if err != nil {
				t.Fatal(err)
			}
			warnings := got.Warnings
			got.Warnings = nil
			got.Caches, got.CacheSize = nil, 0 // TestSandboxCachesConfig
			if diff := cmp.Diff(tt.want(ws, home), got, cmp.AllowUnexported(SandboxSettings{})); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if len(warnings) != len(tt.wantWarnings) {
				t.Fatalf("warnings = %q, want %d", warnings, len(tt.wantWarnings))
			}
			for i, w := range tt.wantWarnings {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %d = %q, want %q", i, warnings[i], w)
				}
			}
		})
	}
}

func TestLoadSandboxErrors(t *testing.T) {
	for _, tt := range []struct{ user, want string }{
		{"[sandbox]\nmode = \"strict\"\n", `config.toml:2: sandbox.mode "strict" is not auto, required or off`},
		{"[sandbox]\nwritable = [\"\"]\n", "sandbox.writable has an empty entry"},
		{"[sandbox]\nreadable = \"/usr\"\n", "config.toml"},
		{"[sandbox]\nmodes = \"auto\"\n", `unknown key "sandbox.modes"`},
	} {
		cfg, ws, home := loadLayers(t, tt.user, "")
		_, err := LoadSandbox(cfg, ws, home)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v, want one line with %q", tt.user, err, tt.want)
		}
	}
}

func TestPolicyLayers(t *testing.T) {
	cfg, _, _ := loadLayers(t,
		"[policy]\npreset = \"full\"\n[[policy.commands]]\nprefix = [\"go\", \"test\"]\naction = \"allow\"\n",
		"[policy]\npreset = \"read-only\"\n")
	layers, err := PolicyLayers(cfg, "editor")
	if err != nil {
		t.Fatal(err)
	}
	type layer struct {
		Kind   policy.LayerKind
		Preset string
		Rules  int
	}
	var got []layer
	for _, l := range layers {
		got = append(got, layer{l.Kind, l.Config.Preset, len(l.Config.Commands)})
	}
	want := []layer{{policy.LayerUser, "full", 1}, {policy.LayerProject, "read-only", 0}, {policy.LayerUser, "editor", 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	e, err := policy.NewEngine(policy.EngineConfig{Workspace: t.TempDir(), Layers: layers})
	if err != nil {
		t.Fatal(err)
	}
	if e.Preset() != policy.PresetReadOnly {
		t.Errorf("preset = %s, want the project's tighter read-only over --preset editor", e.Preset())
	}

	for _, bad := range []struct{ user, want string }{
		{"[[policy.commands]]\nprefix = [\"go\"]\naction = \"allow\"\nmatch = [\"make\"]\n", "config.toml:1: invalid policy configuration"},
		{"[policy]\nacton = \"allow\"\n", `unknown key "policy.acton"`},
	} {
		cfg, _, _ := loadLayers(t, bad.user, "")
		if _, err := PolicyLayers(cfg, ""); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v, want %q", bad.user, err, bad.want)
		}
	}
}

func TestStateDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		flag string
		env  map[string]string
		want string
	}{
		{"/var/rein", map[string]string{"XDG_STATE_HOME": "/x"}, "/var/rein"},
		{"", map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/rein"},
		{"", map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/h"}, "/h/.local/state/rein"},
		{"", map[string]string{"HOME": "/h"}, "/h/.local/state/rein"},
	}
	for _, tt := range tests {
		if got := StateDir(tt.flag, env(tt.env)); got != tt.want {
			t.Errorf("stateDir(%q, %v) = %q, want %q", tt.flag, tt.env, got, tt.want)
		}
	}
	if s, err := OpenApproved(""); err != nil || s == nil {
		t.Errorf("openApproved without a state dir = %v, %v; want an in-memory store", s, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ApprovedRulesFile), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenApproved(dir); !errors.Is(err, policy.ErrApprovedStore) {
		t.Errorf("corrupt store: err = %v, want ErrApprovedStore", err)
	}
}
