package mcp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChildEnv: a stdio server inherits the base variables and those named
// in env_vars, never rein's credentials; env wins over inherited values.
func TestChildEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "OPENAI_API_KEY=sk-secret", "GITHUB_TOKEN=ghp_x", "NODE_OPTIONS=--x", "TERM=xterm", "MALFORMED"}
	sc := ServerConfig{Name: "s", Command: "x", EnvVars: []string{"NODE_OPTIONS"}, Env: Secrets{"TERM": "dumb", "EXTRA": "1"}}
	got := childEnv(sc, environ, nil)
	want := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "NODE_OPTIONS=--x", "EXTRA=1", "TERM=dumb"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
}
