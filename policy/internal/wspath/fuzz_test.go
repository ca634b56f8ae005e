package wspath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPathResolution checks the path helpers on any input: resolution in
// a real workspace with symlinks stays bounded and absolute, /proc aliases
// and the candidates of an argument never panic, and every candidate is
// part of the argument.
func FuzzPathResolution(f *testing.F) {
	ws := f.TempDir()
	for name, target := range map[string]string{"up": "..", "loop": "loop", "g": ".git", "abs": "/"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range []string{"up/up/x", "loop/x", "g/config", "abs/etc", "-fsecrets/x", "of=a", "HEAD:a/b", "/proc/self/root/x", "/proc/1/task/2/cwd/y", "a/../../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Resolve(ws, ws+"/"+s)
		if !strings.HasPrefix(r, "/") {
			t.Fatalf("Resolve(%q) = %q, not absolute", s, r)
		}
		ProcAlias(s)
		ProcCwd(s)
		for _, c := range Candidates(s) {
			if !strings.Contains(s, c) {
				t.Fatalf("candidate %q is not part of %q", c, s)
			}
		}
	})
}
