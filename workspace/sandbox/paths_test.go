package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultHidden(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/ssh-abc/agent.1")
	got := DefaultHidden("/home/u", "", "/home/u/.local/state/rein")
	for _, want := range []string{
		"/home/u/.config/rein", "/home/u/.local/state/rein", "/home/u/.ssh", "/home/u/.aws",
		"/home/u/.config/gh", "/home/u/.netrc", "/home/u/.cargo/credentials.toml",
		"/run/user/1000", "/tmp/ssh-abc",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("DefaultHidden lacks %s: %q", want, got)
		}
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	got = DefaultHidden("/home/u", "", "")
	if !slices.Contains(got, "/run/user") || !slices.Contains(got, "/xdg/rein") {
		t.Errorf("fallbacks missing: %q", got)
	}
}

func TestDefaultProtected(t *testing.T) {
	got := DefaultProtected("/w")
	for _, want := range []string{"/w/.git/config", "/w/.git/hooks", "/w/.git/commondir", "/w/.rein", "/w/.mcp.json", "/w/.claude", "/w/.agents", "/w/.envrc", "/w/.vscode"} {
		if !slices.Contains(got, want) {
			t.Errorf("DefaultProtected lacks %s", want)
		}
	}
}

func TestHiddenMounts(t *testing.T) {
	base, err := os.MkdirTemp("/var/tmp", "rein-paths-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(base)
	home := filepath.Join(base, "home")
	ws := filepath.Join(home, "ws")
	for _, d := range []string{ws, filepath.Join(home, ".ssh", "inner"), filepath.Join(ws, ".aws")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(home, ".netrc"), nil, 0o600)
	got := hiddenMounts([]string{
		home,                                 // holds the workspace: skipped
		ws,                                   // the workspace: skipped
		filepath.Join(home, ".ssh"),          // hidden
		filepath.Join(home, ".ssh", "inner"), // inside a hidden dir: skipped
		filepath.Join(home, ".netrc"),        // a file
		filepath.Join(home, ".missing"),      // skipped
		filepath.Join(ws, ".aws"),            // inside the workspace: still hidden
		"/tmp/ssh-nothing-here",              // under the sandbox's empty /tmp
		"relative",                           // skipped
	}, []string{ws, "/tmp/rein-tmp-x"})
	want := []mount{
		{"null", filepath.Join(home, ".netrc")},
		{"tmpfs", filepath.Join(home, ".ssh")},
		{"tmpfs", filepath.Join(ws, ".aws")},
	}
	slices.SortFunc(got, func(a, b mount) int { return cmpString(a.path, b.path) })
	slices.SortFunc(want, func(a, b mount) int { return cmpString(a.path, b.path) })
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(mount{})); diff != "" {
		t.Errorf("hiddenMounts (-want +got):\n%s", diff)
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestProtectedMounts(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), nil, 0o644)
	os.WriteFile(filepath.Join(ws, ".mcp.json"), nil, 0o644)
	mounts, watch := protectedMounts(DefaultProtected(ws), []string{ws, "/tmp/x"})
	want := []mount{
		{"pin", filepath.Join(ws, ".git")},
		{"ro", filepath.Join(ws, ".git", "config")},
		{"ro", filepath.Join(ws, ".git", "hooks")},
		{"ro", filepath.Join(ws, ".mcp.json")},
	}
	if diff := cmp.Diff(want, mounts, cmp.AllowUnexported(mount{})); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}
	if fi, err := os.Stat(filepath.Join(ws, ".git", "hooks")); err != nil || !fi.IsDir() {
		t.Errorf("the missing hooks directory was not created: %v", err)
	}
	for _, w := range []string{".git/config.worktree", ".git/commondir", ".rein", ".claude", ".envrc"} {
		if !slices.Contains(watch, filepath.Join(ws, w)) {
			t.Errorf("watch lacks %s: %q", w, watch)
		}
	}
	// Without .git nothing under it is watched or created: git init works.
	ws2 := t.TempDir()
	mounts, watch = protectedMounts(DefaultProtected(ws2), []string{ws2})
	if len(mounts) != 0 || slices.Contains(watch, filepath.Join(ws2, ".git", "config")) {
		t.Errorf("fresh workspace: mounts %v watch %q", mounts, watch)
	}
	os.WriteFile(filepath.Join(ws2, ".mcp.json"), []byte("x"), 0o644)
	if got := Sweep(watch); !cmp.Equal(got, []string{filepath.Join(ws2, ".mcp.json")}) {
		t.Errorf("Sweep = %q", got)
	}
}
