package temporalcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/config"
)

func load(t *testing.T, user, project string) *config.Config {
	t.Helper()
	dir, ws := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	if project != "" {
		if err := os.MkdirAll(filepath.Join(ws, ".rein"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, ".rein", "config.toml"), []byte(project), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, File: file, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestLoadTemporal(t *testing.T) {
	cfg := load(t, "[temporal]\naddress = \"h:1\"\nnamespace = \"n\"\napproval_timeout = \"30s\"\nmax_history = 500\n",
		"[temporal]\naddress = \"evil:7233\"\nnamespace = \"theirs\"\n")
	s, err := loadTemporal(cfg, &temporalFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.address != "h:1" || s.namespace != "n" || s.queue != "rein" || s.approvalTimeout != 30*time.Second || s.maxHistory != 500 {
		t.Errorf("settings %+v (a project layer must not redirect the client)", s)
	}
	s, err = loadTemporal(cfg, &temporalFlags{address: "flag:2", queue: "q"})
	if err != nil || s.address != "flag:2" || s.queue != "q" || s.namespace != "n" {
		t.Errorf("flags did not win: %+v %v", s, err)
	}
}

func TestLoadTemporalRefusesGarbage(t *testing.T) {
	for _, tt := range []struct{ toml, want string }{
		{"[temporal]\naddres = \"h:1\"\n", "addres"},
		{"[temporal]\naddress = \"h:1\"\napproval_timeout = \"soon\"\n", "approval_timeout"},
		{"[temporal]\naddress = \"h:1\"\nheartbeat_timeout = \"10ms\"\n", "at least 1s"},
		{"[temporal]\naddress = \"h:1\"\nmax_history = 5\n", "between 20 and 50000"},
		{"[temporal]\naddress = 7\n", "address"},
		{"[temporal]\nnamespace = \"n\"\n", "--temporal HOST:PORT"},
	} {
		_, err := loadTemporal(load(t, tt.toml, ""), &temporalFlags{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want it to mention %q", tt.toml, err, tt.want)
		}
	}
}

func TestValidateName(t *testing.T) {
	for _, bad := range []string{"a b", "x\ny", strings.Repeat("n", 201), "\x7f"} {
		if validateName("name", bad) == nil {
			t.Errorf("validateName(%q) accepted it", bad)
		}
	}
	if err := validateName("name", "app-1.ws"); err != nil {
		t.Error(err)
	}
}
