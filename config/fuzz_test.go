package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"endpont", "endpoint", 1},
		{"modle", "model", 1}, // transposition
		{"model", "model", 0},
		{"colour", "model", 5},
		{"abc", "", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	// Hostile lengths are capped, not quadratic in the input.
	if d := editDistance(strings.Repeat("a", 1<<20), "model"); d > 64 {
		t.Errorf("capped distance = %d", d)
	}
}

// hostile inputs must all be rejected with an error, never a panic.
var hostile = []string{
	"\x00\x01\x02",
	"[[[[[[[[",
	"[model]\nmodel = \"\xff\xfe\"\n",
	"a = " + strings.Repeat("[", 10000),
	"a = " + strings.Repeat("{b = ", 5000),
	strings.Repeat("x.", 5000) + "y = 1",
	"[model]\nmax_tokens = 1e400\n",
	"[model]\ncontext_window = -9223372036854775808\n",
	"[model]\ntemperature = nan\n",
	"[agent]\ntimeout = \"9999999999999h\"\n",
	"[model]\nrequest_timeout = \"9999999999999h\"\n",
	"[model]\nmax_response_bytes = 9223372036854775807\n",
	"[model]\nmodel = \"a\"\n[model]\nmodel = \"b\"\n",
	"\ufeff[model]\nendpoint = 3\n",
	"[model]\nendpoint = \"http://[::1\"\n",
	"[agent\n",
	"[model]\nmodel = '''",
}

func TestHostileInput(t *testing.T) {
	for _, in := range hostile {
		if _, err := parseFile(LayerUser, "x.toml", []byte(in)); err == nil {
			t.Errorf("parseFile(%.40q) succeeded, want an error", in)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("parseFile(%.40q) error is not one line: %q", in, err)
		}
	}
}

// FuzzLoad feeds arbitrary bytes as both the --config file and the project
// file: Load must never panic, errors are one line naming the file, and a
// success yields a configuration within the validated ranges.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("[model]\nprovider = \"openai\"\nendpoint = \"http://127.0.0.1:8080\"\n[agent]\nmax_steps = 5\ntimeout = \"1m\"\n"))
	f.Add([]byte("[mcp_servers.x]\ncommand = \"npx\"\n[policy]\npreset = \"editor\"\n"))
	f.Add([]byte("model.temperature = 0.5\nagent.token_budget = 100\n"))
	f.Add([]byte("[model]\nheader_timeout = \"10m\"\nidle_timeout = \"0s\"\nrequest_timeout = \"0s\"\nretry_budget = \"-1s\"\nmax_response_bytes = 1\nreasoning_effort = \"HIGH\"\n"))
	for _, h := range hostile {
		f.Add([]byte(h))
	}
	dir := f.TempDir()
	file := filepath.Join(dir, "user.toml")
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".rein"), 0o755); err != nil {
		f.Fatal(err)
	}
	project := ProjectConfigPath(ws)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(project, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(LoadOptions{File: file, Workspace: ws, Getenv: func(string) string { return "" }})
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "config: ") {
				t.Fatalf("error is not one config line: %q", msg)
			}
			return
		}
		if c.Agent.MaxSteps < 1 || c.Agent.MaxParallelTools < 1 || c.Agent.Timeout < 0 || c.Agent.ToolTimeout <= 0 {
			t.Fatalf("limits out of range: %+v", c.Agent)
		}
		if t := c.Model.Temperature; t != nil && (*t < 0 || *t > 2) {
			panic("temperature out of range")
		}
		for _, name := range deferredSections {
			for _, s := range c.Sections(name) {
				var v map[string]any
				_ = s.Decode(&v) // must not panic
				_ = s.Position("a", "b")
			}
		}
	})
}

func TestNestingLimits(t *testing.T) {
	accept := []string{
		// Dots and brackets inside strings and comments do not count.
		"[agent]\nsystem_prompt = \"" + strings.Repeat("a.[{", 100) + "\" # " + strings.Repeat("[.", 100) + "\n",
		"[agent]\nsystem_prompt = '''\n" + strings.Repeat("x.y[", 100) + "\n'''\n",
		"[agent]\nsystem_prompt = \"\"\"\nquote \\\"\"\" " + strings.Repeat("[", 100) + "\n\"\"\"\n",
		"[policy]\nweights = [" + strings.Repeat("0.5, ", 500) + "]\n",
		"[policy]\na.b.c.d.e = 1\nnested = [[[[1]]]]\n",
	}
	for _, in := range accept {
		if err := checkNesting("x.toml", []byte(in)); err != nil {
			t.Errorf("checkNesting(%.50q) = %v, want nil", in, err)
		}
	}
	reject := map[string]string{
		"a = " + strings.Repeat("[", 40):                       "config: x.toml:1: tables or arrays nested deeper than 32 levels; is this really a rein config file?",
		"\n\n" + strings.Repeat("x . ", 40) + "y = 1":          "config: x.toml:3: dotted keys nested deeper than 32 levels; is this really a rein config file?",
		"[" + strings.Repeat("1.", 40) + "]":                   "config: x.toml:1: dotted keys nested deeper than 32 levels; is this really a rein config file?",
		"a = {" + strings.Repeat("b = {", 40) + "}":            "config: x.toml:1: tables or arrays nested deeper than 32 levels; is this really a rein config file?",
		"a = \"x\"\n" + strings.Repeat("\"k\".", 40) + "z = 1": "config: x.toml:2: dotted keys nested deeper than 32 levels; is this really a rein config file?",
	}
	for in, want := range reject {
		if err := checkNesting("x.toml", []byte(in)); err == nil || err.Error() != want {
			t.Errorf("checkNesting(%.50q) = %v, want %s", in, err, want)
		}
	}
	// Every accepted input still parses.
	for _, in := range accept {
		if _, err := parseFile(LayerUser, "x.toml", []byte(in)); err != nil {
			t.Errorf("parseFile(%.50q) = %v", in, err)
		}
	}
}

// FuzzProfiles loads the input as the user and the project file with the
// profile "p" selected: the errors stay one config line (an unknown
// profile included), a profile's tables decode without panicking, and
// rendering the result (rein config show) never fails.
func FuzzProfiles(f *testing.F) {
	f.Add([]byte("[profiles.p.model]\nmodel = \"m\"\n[profiles.p.agent]\nmax_steps = 3\n[profiles.p.policy]\npreset = \"read-only\"\n"))
	f.Add([]byte("[profiles.p]\nagent.max_steps = 5\nmcp_servers.x.command = \"y\"\n[profiles.q.verify]\ncommands = [[\"go\", \"test\"]]\n"))
	f.Add([]byte("[profiles.p.profiles.q]\n"))
	f.Add([]byte("profiles.p = 1\n"))
	f.Add([]byte("[profiles.\"p\".tools]\ndisabled = [\"web_fetch\"]\n[[profiles.p.verify.commands]]\n"))
	dir := f.TempDir()
	file := filepath.Join(dir, "user.toml")
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".rein"), 0o755); err != nil {
		f.Fatal(err)
	}
	project := ProjectConfigPath(ws)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, path := range []string{file, project} {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c, err := Load(LoadOptions{File: file, Workspace: ws, Profile: "p", Getenv: func(string) string { return "" }})
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "config: ") && !errors.Is(err, ErrInvalidFlag) {
				t.Fatalf("error is not one config line: %q", msg)
			}
			return
		}
		_ = c.Values()
		for _, name := range c.SectionNames() {
			for _, s := range c.Sections(name) {
				var v map[string]any
				_ = s.Decode(&v)
				if leaves, err := s.Leaves(); err == nil {
					for _, l := range leaves {
						_ = JoinPath(l.Path) + FormatTOML(l.Value)
					}
				}
			}
		}
	})
}
