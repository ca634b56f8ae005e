package cli

import (
	"strings"
	"testing"
)

func TestAttachPaths(t *testing.T) {
	got := attachPaths("see @a.go, @dir/b.txt. mail ann@example.com @ @a.go (@c)")
	want := []string{"a.go", "dir/b.txt"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("attachPaths = %q, want %q", got, want)
	}
}

// FuzzAttachPaths: every path found is non-empty, has no space, is
// distinct and stands after an @ in the message; fenced text keeps its
// content inside a fence no backtick run in it can close.
func FuzzAttachPaths(f *testing.F) {
	for _, s := range []string{"@a", "x @b.go, @b.go", "@", "@@", "a@b", "@```", "@\x00\n@é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		seen := map[string]bool{}
		for _, p := range attachPaths(msg) {
			if p == "" || strings.ContainsAny(p, " \t\n") || seen[p] || !strings.Contains(msg, "@"+p) {
				t.Fatalf("attachPaths(%q) gave %q", msg, p)
			}
			seen[p] = true
		}
		out := fenced(msg)
		first := out[:strings.IndexByte(out, '\n')]
		if !strings.HasSuffix(out, "\n"+first) || strings.Contains(msg, first) {
			t.Fatalf("fenced(%q) = %q: fence %q is not safe", msg, out, first)
		}
	})
}
