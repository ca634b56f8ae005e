package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace"
)

// escapeFixture is a workspace next to an outside directory whose
// sentinel file must keep its bytes and mtime whatever the tools are asked.
type escapeFixture struct {
	ws       *workspace.Workspace
	dir      string
	outside  string
	sentinel string
	mtime    time.Time
}

const sentinelText = "outside secret\n"

func newEscapeFixture(t *testing.T) *escapeFixture {
	t.Helper()
	parent := t.TempDir()
	f := &escapeFixture{dir: filepath.Join(parent, "ws"), outside: filepath.Join(parent, "outside")}
	for _, d := range []string{filepath.Join(f.dir, "sub"), f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.sentinel = filepath.Join(f.outside, "secret.txt")
	if err := os.WriteFile(f.sentinel, []byte(sentinelText), 0o644); err != nil {
		t.Fatal(err)
	}
	f.mtime = time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(f.sentinel, f.mtime, f.mtime); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "sub", "in.txt"), []byte("inside secret? no\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"etc":      "/etc",
		"outdir":   "../outside",
		"outfile":  "../outside/secret.txt",
		"abs":      f.sentinel,
		"procroot": "/proc/self/root",
	} {
		if err := os.Symlink(target, filepath.Join(f.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(f.dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	f.ws = ws
	return f
}

func (f *escapeFixture) check(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(f.sentinel)
	if err != nil || string(b) != sentinelText {
		t.Errorf("sentinel now %q, %v", b, err)
	}
	fi, err := os.Stat(f.sentinel)
	if err != nil || !fi.ModTime().Equal(f.mtime) {
		t.Errorf("sentinel mtime changed: %v, %v", fi.ModTime(), err)
	}
	entries, _ := os.ReadDir(f.outside)
	if len(entries) != 1 {
		t.Errorf("outside directory has %d entries, want 1", len(entries))
	}
}

// escapes lists file paths and directories outside the workspace, spelled
// every way the acceptance criteria name.
func (f *escapeFixture) escapes() (files, dirs []string) {
	files = []string{
		"../outside/secret.txt",                  // ../
		"sub/../../outside/secret.txt",           // ../ after a detour
		f.sentinel,                               // absolute path outside
		"/etc/passwd",                            // absolute path outside
		"etc/passwd",                             // symlink to /etc
		"outdir/secret.txt",                      // symlinked directory
		"outfile",                                // symlink to an outside file
		"abs",                                    // absolute symlink
		"/proc/self/root" + f.sentinel,           // /proc/self/root/…
		"procroot/etc/passwd",                    // symlink to /proc/self/root
		"/proc/self/root/etc/passwd",             // /proc/self/root/…
		"/proc/self/cwd/../outside/secret.txt",   // another /proc door
		filepath.Join(f.dir, "../outside/x.txt"), // absolute, through ..
	}
	dirs = []string{"..", "../outside", f.outside, "/etc", "etc", "outdir", "procroot", "/proc/self/root" + f.outside, "/"}
	return files, dirs
}

// TestEveryFileToolRefusesEscapes is the acceptance test: each file tool,
// given each escape, fails with a clear error, and nothing outside the
// workspace is read or changed.
func TestEveryFileToolRefusesEscapes(t *testing.T) {
	f := newEscapeFixture(t)
	files, dirs := f.escapes()
	type attempt struct {
		tool string
		args map[string]any
	}
	var attempts []attempt
	for _, p := range files {
		attempts = append(attempts,
			attempt{"read_file", map[string]any{"path": p}},
			attempt{"write_file", map[string]any{"path": p, "content": "pwned\n"}},
			attempt{"edit_file", map[string]any{"path": p, "old_string": "outside secret", "new_string": "pwned"}},
			attempt{"apply_patch", map[string]any{"patch": "--- a/" + p + "\n+++ b/" + p + "\n@@ -1 +1 @@\n-outside secret\n+pwned\n"}},
			attempt{"apply_patch", map[string]any{"patch": "--- /dev/null\n+++ b/" + p + "/new\n@@ -0,0 +1 @@\n+pwned\n"}},
			attempt{"apply_patch", map[string]any{"patch": "--- a/" + p + "\n+++ /dev/null\n@@ -1 +0,0 @@\n-outside secret\n"}},
			attempt{"apply_patch", map[string]any{"patch": "diff --git a/sub/in.txt b/" + p + "\nsimilarity index 100%\nrename from sub/in.txt\nrename to " + p + "\n"}},
			attempt{"grep", map[string]any{"pattern": "secret", "path": p}},
		)
	}
	for _, p := range files {
		if strings.Contains(p, "/") { // a sibling of an outside file (p.new inside the workspace is fine)
			attempts = append(attempts,
				attempt{"write_file", map[string]any{"path": p + ".new", "content": "pwned\n"}},
				attempt{"apply_patch", map[string]any{"patch": "--- /dev/null\n+++ b/" + p + ".new\n@@ -0,0 +1 @@\n+pwned\n"}},
			)
		}
	}
	for _, d := range dirs {
		attempts = append(attempts,
			attempt{"list_dir", map[string]any{"path": d}},
			attempt{"glob", map[string]any{"pattern": "*", "path": d}},
			attempt{"glob", map[string]any{"pattern": strings.TrimSuffix(d, "/") + "/*"}},
			attempt{"grep", map[string]any{"pattern": "secret", "path": d}},
		)
	}
	for _, a := range attempts {
		res := call(t, findTool(t, f.ws, Options{}, a.tool), a.args)
		if !res.IsError {
			t.Errorf("%s(%v) succeeded:\n%s", a.tool, a.args, res.Content)
			continue
		}
		if !strings.Contains(res.Content, "path escapes the workspace") {
			t.Errorf("%s(%v) error lacks the clear wording: %s", a.tool, a.args, res.Content)
		}
		if strings.Contains(res.Content, "outside secret") || strings.Contains(res.Content, "root:") {
			t.Errorf("%s(%v) leaked outside content: %s", a.tool, a.args, res.Content)
		}
	}
	f.check(t)
	if n := len(f.ws.Changes()); n != 0 {
		t.Errorf("%d journaled changes after refused escapes", n)
	}
}

// TestWalksDoNotFollowSymlinksOut checks the tree tools over the whole
// workspace: they list the hostile links but never read through them.
func TestWalksDoNotFollowSymlinksOut(t *testing.T) {
	f := newEscapeFixture(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"grep", map[string]any{"pattern": "secret|root:"}},
		{"glob", map[string]any{"pattern": "**/*"}},
		{"list_dir", map[string]any{"depth": 10}},
	} {
		out := run(t, f.ws, tc.tool, tc.args)
		if strings.Contains(out, "outside secret") || strings.Contains(out, "root:x") || strings.Contains(out, "passwd") {
			t.Errorf("%s read through a symlink:\n%s", tc.tool, out)
		}
	}
	out := run(t, f.ws, "grep", map[string]any{"pattern": "secret"})
	if !strings.Contains(out, "sub/in.txt:1:inside secret? no") {
		t.Errorf("grep missed the inside file:\n%s", out)
	}
	f.check(t)
}
