//go:build linux

package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/workspace/sandbox"
)

// cacheRun runs one `rein run` through the binary whose model runs command
// and returns what the command printed (the tool result the model got
// back).
func cacheRun(t *testing.T, e *env, state, ws, command string) string {
	t.Helper()
	srv := modeltest.NewServer(t,
		sse(toolBody("call_cache", "run_command", fmt.Sprintf(`{"command":%q}`, command))),
		sse(textBody("done")),
	)
	p := e.start(t, "run", "--preset", "full", "--approve", "auto", "--state-dir", state, "-C", ws, "-e", srv.URL, "use the cache")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("rein run exited %d\nstderr: %s", code, p.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("the model got %d requests, want 2\nstderr: %s", len(reqs), p.stderr)
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	for _, m := range body.Messages {
		if m.Role == "tool" {
			b, _ := json.Marshal(m.Content)
			var s string
			if json.Unmarshal(b, &s) == nil {
				return s
			}
			return string(b)
		}
	}
	t.Fatalf("no tool result in the second request: %s", reqs[1].Body)
	return ""
}

// TestSandboxCachesPersistAcrossRuns: a sandboxed command's GOCACHE (and
// the other tool caches) live in the workspace's cache directory under
// the state directory: what one `rein run` writes there the next finds, a
// second workspace has caches of its own and cannot see the first's, the
// host's GOCACHE is never touched, and the rest of the state directory
// stays hidden.
func TestSandboxCachesPersistAcrossRuns(t *testing.T) {
	if _, err := sandbox.Namespaces(); err != nil {
		t.Skip(err)
	}
	e := newEnv(t)
	state := filepath.Join(e.home, "state")
	host := filepath.Join(e.home, "host-gocache")
	if err := os.MkdirAll(host, 0o755); err != nil {
		t.Fatal(err)
	}
	e.vars["GOCACHE"] = host
	ws2 := filepath.Join(filepath.Dir(e.workspace), "ws2")
	if err := os.MkdirAll(ws2, 0o755); err != nil {
		t.Fatal(err)
	}
	want := sandbox.CacheDir(state, canonical(t, e.workspace))

	out := cacheRun(t, e, state, e.workspace,
		`echo "gocache=$GOCACHE mod=$GOMODCACHE npm=$npm_config_cache pip=$PIP_CACHE_DIR cargo=$CARGO_HOME xdg=$XDG_CACHE_HOME"; echo warm > "$GOCACHE/marker" && echo wrote; ls -A `+state)
	for _, v := range []string{"gocache=" + want + "/go-build", "mod=" + want + "/gomod", "npm=" + want + "/npm",
		"pip=" + want + "/pip", "cargo=" + want + "/cargo", "xdg=" + want + "/xdg", "wrote"} {
		if !strings.Contains(out, v) {
			t.Errorf("first run: want %q in the command's output:\n%s", v, out)
		}
	}
	// Only the cache is visible of the state directory: the session
	// store, approvals and other workspaces' caches stay masked.
	if lines := strings.Fields(out[strings.Index(out, "wrote")+len("wrote"):]); len(lines) != 1 || lines[0] != "cache" {
		t.Errorf("the sandbox sees %v in the state directory, want only [cache]:\n%s", lines, out)
	}

	out = cacheRun(t, e, state, e.workspace, `cat "$GOCACHE/marker"; ls -A "$(dirname "$(dirname "$GOCACHE")")"`)
	if !strings.Contains(out, "warm") {
		t.Errorf("second run does not find the first run's GOCACHE entry:\n%s", out)
	}

	out = cacheRun(t, e, state, ws2, `echo "gocache=$GOCACHE"; cat "`+want+`/go-build/marker" 2>/dev/null || echo unseen`)
	want2 := sandbox.CacheDir(state, canonical(t, ws2))
	if want2 == want || !strings.Contains(out, "gocache="+want2+"/go-build") || !strings.Contains(out, "unseen") {
		t.Errorf("second workspace: want its own cache %s and the first's unseen:\n%s", want2, out)
	}
	if ents, err := os.ReadDir(host); err != nil || len(ents) != 0 {
		t.Errorf("the host's GOCACHE was touched: %v %v", ents, err)
	}
	if b, err := os.ReadFile(filepath.Join(want, "go-build", "marker")); err != nil || string(b) != "warm\n" {
		t.Errorf("the cache on disk: %q %v", b, err)
	}
}

// TestSandboxCachesDisabled: with [sandbox] caches = [] commands get
// throwaway caches in the private temporary directory and nothing is
// created under the state directory; a project layer cannot turn them
// back on.
func TestSandboxCachesDisabled(t *testing.T) {
	if _, err := sandbox.Namespaces(); err != nil {
		t.Skip(err)
	}
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[sandbox]\ncaches = []\n")
	if err := os.MkdirAll(filepath.Join(e.workspace, ".rein"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.workspace, ".rein", "config.toml"), []byte("[sandbox]\ncaches = [\"go\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(e.home, "state")
	out := cacheRun(t, e, state, e.workspace, `echo "gocache=$GOCACHE tmp=$TMPDIR"`)
	var gocache, tmp string
	if i := strings.Index(out, "gocache="); i >= 0 {
		fmt.Sscanf(out[i:], "gocache=%s tmp=%s", &gocache, &tmp)
	}
	if strings.Contains(out, state) || tmp == "" || !strings.HasPrefix(gocache, tmp+"/") {
		t.Errorf("caches = []: GOCACHE should be in the private temporary directory:\n%s", out)
	}
	if _, err := os.Stat(sandbox.CacheRoot(state)); !os.IsNotExist(err) {
		t.Errorf("caches = [] created %s (%v)", sandbox.CacheRoot(state), err)
	}
}

// TestSandboxCacheCommand: `rein sandbox cache du` reports the workspace's
// caches and `clear` removes them, read-only module directories included.
func TestSandboxCacheCommand(t *testing.T) {
	e := newEnv(t)
	state := filepath.Join(e.home, "state")
	p := e.start(t, "sandbox", "cache", "du", "--state-dir", state)
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 0 || !strings.Contains(p.stdout.String(), "no caches yet") {
		t.Errorf("du before any cache: exit %d\n%s%s", code, p.stdout, p.stderr)
	}
	c := sandbox.Caches{Dir: sandbox.CacheDir(state, canonical(t, e.workspace)), Kinds: sandbox.CacheKinds}
	if err := c.Ensure(canonical(t, e.workspace)); err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(c.Dir, "gomod", "example.com", "m@v1.0.0")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), make([]byte, 3000), 0o444); err != nil {
		t.Fatal(err)
	}
	os.Chmod(mod, 0o555) // as the go command leaves it
	p = e.start(t, "sandbox", "cache", "du", "--all", "--state-dir", state)
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 0 || !strings.HasPrefix(p.stdout.String(), canonical(t, e.workspace)+"  2.9 KiB\n") || !strings.Contains(p.stdout.String(), "gomod") || !strings.Contains(p.stdout.String(), "2.9 KiB") {
		t.Errorf("du: exit %d\n%s%s", code, p.stdout, p.stderr)
	}
	p = e.start(t, "sandbox", "cache", "clear", "--state-dir", state, "rust")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 2 {
		t.Errorf("clear rust: exit %d, want 2 (usage)\n%s", code, p.stderr)
	}
	p = e.start(t, "sandbox", "cache", "clear", "--state-dir", state)
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Errorf("clear: exit %d\n%s", code, p.stderr)
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("clear left %s (%v)", c.Dir, err)
	}
}
