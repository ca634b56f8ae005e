package workspace

import (
	"errors"
	"path"
	"strings"
	"testing"
)

// FuzzRel checks the normalisation of model-given paths: whatever the
// input, the result is a clean relative path inside the workspace, or the
// input is refused with ErrEscape.
func FuzzRel(f *testing.F) {
	ws, err := Open(f.TempDir(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ws.Close() })
	for _, s := range []string{"", ".", "a/b", "../x", "/etc/passwd", ws.Dir() + "/x", ws.Dir() + "/../y",
		"a/../../b", "./a//b/", "/proc/self/root" + ws.Dir(), "a\x00b", "....//x", `..\x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		rel, err := ws.Rel(name)
		if err != nil {
			if !errors.Is(err, ErrEscape) {
				t.Fatalf("Rel(%q) failed with a non-escape error: %v", name, err)
			}
			return
		}
		if rel == "" || strings.HasPrefix(rel, "/") || rel == ".." || strings.HasPrefix(rel, "../") ||
			path.Clean(rel) != rel || strings.IndexByte(rel, 0) >= 0 {
			t.Fatalf("Rel(%q) = %q: not a clean path inside the workspace", name, rel)
		}
		if abs, err := ws.Abs(name); err != nil || !(abs == ws.Dir() || strings.HasPrefix(abs, ws.Dir()+"/")) {
			t.Fatalf("Abs(%q) = %q, %v: outside %s", name, abs, err, ws.Dir())
		}
	})
}
