package workspace

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/workspace/sandbox"
)

// TestPersistentCachesEnv: with persistent caches, the enabled kinds'
// variables point into the workspace's cache directory, a kind that is
// off keeps the old behaviour (the private temp dir, or unset), and a
// variable the user made writable is kept.
func TestPersistentCachesEnv(t *testing.T) {
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("kernel lacks Landlock: %v", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CACHE_HOME", "GOCACHE", "GOMODCACHE", "PIP_CACHE_DIR", "CARGO_HOME", "npm_config_cache"} {
		t.Setenv(v, "")
	}
	mine := filepath.Join(home, "mods")
	t.Setenv("GOMODCACHE", mine)
	c := sandbox.Caches{Dir: filepath.Join(t.TempDir(), "c"), Kinds: []string{sandbox.CacheGo, sandbox.CacheCargo}}
	if err := c.Ensure("/w"); err != nil {
		t.Fatal(err)
	}
	ws, _ := openTemp(t, Options{Sandbox: sandbox.Required, SandboxCaches: c, SandboxWritable: []string{mine}})
	res, err := ws.Exec(context.Background(), ExecOptions{Command: `printf '%s|' "$GOCACHE" "$GOMODCACHE" "$CARGO_HOME" "$PIP_CACHE_DIR" "$XDG_CACHE_HOME"`})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %+v, %v", res, err)
	}
	tmp, _ := ws.TempDir()
	want := strings.Join([]string{c.Dir + "/go-build", mine, c.Dir + "/cargo", "", tmp + "/cache", ""}, "|")
	if res.Output != want {
		t.Errorf("caches:\n got %q\nwant %q", res.Output, want)
	}
}
