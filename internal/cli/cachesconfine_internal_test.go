package cli

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/reinharness/rein/hooks"
	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// TestCachesNeverReachUnconfinedProcesses: a confined hook gets the
// workspace's persistent caches in its environment and its policy, an
// unconfined one (a user hook with sandbox = false) gets rein's own
// environment with none of them, so nothing a sandboxed command put in a
// cache runs outside the sandbox through it.
func TestCachesNeverReachUnconfinedProcesses(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	c := sandbox.Caches{Dir: sandbox.CacheDir(state, dir), Kinds: sandbox.CacheKinds}
	if err := c.Ensure(dir); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, workspace.Options{SandboxCaches: c, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	environ := []string{"HOME=/home/u", "PATH=/usr/bin", "GOCACHE=/home/u/.cache/go-build"}
	confine := hookConfiner(ws, environ)
	conf, err := confine(hooks.Command{})
	if err != nil {
		t.Fatal(err)
	}
	if got := lastValue(conf.Env, "GOCACHE"); got != c.Dir+"/go-build" {
		t.Errorf("confined hook: GOCACHE = %q, want the workspace's cache", got)
	}
	if !slices.Contains(conf.Policy.Caches, c.Dir+"/gomod") {
		t.Errorf("confined hook: the policy binds %q, want the caches", conf.Policy.Caches)
	}
	conf, err = confine(hooks.Command{Unconfined: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range conf.Env {
		if strings.Contains(kv, c.Dir) {
			t.Errorf("unconfined hook got %q", kv)
		}
	}
	if len(conf.Policy.Caches) != 0 || lastValue(conf.Env, "GOCACHE") != "/home/u/.cache/go-build" {
		t.Errorf("unconfined hook: policy caches %q, env %q", conf.Policy.Caches, conf.Env)
	}
}

func lastValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
