package cli

import (
	"strings"
	"testing"
)

// TestDiffStat: per-file counts, binary files and the totals, from a
// diff whose content lines look like headers.
func TestDiffStat(t *testing.T) {
	d := "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n--- not a header\n+++ nor this\n ctx\n" +
		"diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n"
	got := diffStat(d)
	want := " x.go    | 2 +-\n img.png | Bin\n 2 files changed, 1 insertion(+), 1 deletion(-)\n"
	// "--- not a header" inside a hunk is a removed line: git counts it.
	if got != want {
		t.Errorf("diffStat =\n%s\nwant\n%s", got, want)
	}
}

// TestColorDiff: only diff lines get SGR codes, and the text is kept.
func TestColorDiff(t *testing.T) {
	got := colorDiff("diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n c\n")
	for _, want := range []string{"\x1b[1mdiff --git a/x b/x\x1b[0m", "\x1b[36m@@ -1 +1 @@\x1b[0m", "\x1b[31m-a\x1b[0m", "\x1b[32m+b\x1b[0m", "\n c\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("colorDiff lacks %q: %q", want, got)
		}
	}
}

// FuzzDiffStat: any text summarises without panicking, with one line per
// file and the totals.
func FuzzDiffStat(f *testing.F) {
	for _, s := range []string{"", "diff --git a/x b/x\n+a\n", "diff --git a/\n", "+\n-\ndiff --git a/a b/b\nFiles x", "diff --git a/x b/y b/z\n--- \n+++ \n@@\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		files := 0
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "diff --git a/") {
				files++
			}
		}
		out := diffStat(s)
		if n := strings.Count(out, "\n"); n != files+1 {
			t.Errorf("%d lines for %d files: %q", n, files, out)
		}
	})
}
