package fs

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/workspace"
)

var patchSeeds = []string{
	"",
	"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	"diff --git a/x b/x\nnew file mode 100755\n--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n",
	"diff --git a/o b/n\nsimilarity index 100%\nrename from o\nrename to n\n",
	"diff --git a/o b/o\ndeleted file mode 100644\n--- a/o\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
	"diff --git \"a/q\\303\\251\" \"b/q\\303\\251\"\nold mode 100644\nnew mode 100755\n",
	"--- a/f\n+++ b/f\n@@\n x\n\n-y\n+z\n-- \n2.1\n",
	"--- a/f\n+++ b/f\n@@ -1,3 +1,1 @@\n--- a\n+++ b\n x\n",
	"diff --git a/b.png b/b.png\nGIT binary patch\nliteral 0\nHcmV?d00001\n\n",
	"@@ -1 +1 @@\n",
	"--- a/f\n+++ b/f\n@@ -99999999999999999999,1 +1 @@\n-x\n",
}

// FuzzParsePatch feeds arbitrary text to the parser: it must never panic,
// and what it accepts must be self-consistent.
func FuzzParsePatch(f *testing.F) {
	for _, s := range patchSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, patch string) {
		fps, err := ParsePatch(patch)
		if err != nil {
			if len(fps) != 0 {
				t.Fatalf("error %v with %d patches", err, len(fps))
			}
			return
		}
		if len(fps) == 0 {
			t.Fatal("no error and no patches")
		}
		for _, fp := range fps {
			if fp.OldPath == "" && fp.NewPath == "" {
				t.Fatalf("patch with no path: %+v", fp)
			}
			if fp.IsNew && fp.IsDelete {
				t.Fatalf("patch both creates and deletes: %+v", fp)
			}
			for _, h := range fp.Hunks {
				old, nw := 0, 0
				for _, l := range h.Lines {
					switch l.Op {
					case ' ':
						old++
						nw++
					case '-':
						old++
					case '+':
						nw++
					default:
						t.Fatalf("bad op %q", l.Op)
					}
					if strings.Contains(l.Text, "\n") {
						t.Fatalf("line text holds a newline: %q", l.Text)
					}
				}
				if old != h.OldLines || nw != h.NewLines || len(h.Lines) == 0 {
					t.Fatalf("hunk counts %d/%d, body %d/%d", h.OldLines, h.NewLines, old, nw)
				}
			}
		}
	})
}

// FuzzApply checks two things: the diff the workspace journal writes for
// any pair of texts applies back to exactly the target, and applying an
// arbitrary parsed patch to arbitrary content never panics.
func FuzzApply(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", patchSeeds[1])
	f.Add("", "new\n", patchSeeds[2])
	f.Add("x\ny", "x\ny\n", patchSeeds[6])
	f.Add("a\r\nb\r\n", "a\r\nc\r\n", patchSeeds[7])
	f.Add(strings.Repeat("same\n", 20), strings.Repeat("same\n", 10)+"diff\n"+strings.Repeat("same\n", 10), "")
	f.Fuzz(func(t *testing.T, a, b, patch string) {
		if d := workspace.UnifiedDiff("a/f", "b/f", []byte(a), []byte(b)); d != "" {
			fps, err := ParsePatch(d)
			if err != nil {
				t.Fatalf("own diff does not parse: %v\n%s", err, d)
			}
			if len(fps) != 1 {
				t.Fatalf("own diff parsed into %d files", len(fps))
			}
			got, _, err := applyHunks("f", a, fps[0].Hunks)
			// ParsePatch reads CRLF patches as LF, so texts holding CR
			// are checked for not panicking only.
			if !strings.ContainsRune(a+b, '\r') {
				if err != nil {
					t.Fatalf("own diff does not apply: %v\na=%q\nb=%q\n%s", err, a, b, d)
				}
				if got != b {
					t.Fatalf("round trip failed:\na=%q\nb=%q\ngot=%q\n%s", a, b, got, d)
				}
			}
		} else if a != b {
			t.Fatalf("no diff for different texts %q and %q", a, b)
		}
		fps, err := ParsePatch(patch)
		if err != nil {
			return
		}
		for _, fp := range fps {
			_, _, _ = applyHunks("f", a, fp.Hunks)
		}
	})
}
