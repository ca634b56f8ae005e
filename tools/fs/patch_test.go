package fs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePatch(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []FilePatch
	}{
		{
			name: "git modify with context and no-newline marker",
			patch: `diff --git a/x.txt b/x.txt
index 83db48f..bf269f4 100644
--- a/x.txt
+++ b/x.txt
@@ -1,2 +1,2 @@ func section()
 keep
-old
\ No newline at end of file
+new
`,
			want: []FilePatch{{
				OldPath: "x.txt", NewPath: "x.txt",
				Hunks: []Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Positioned: true,
					Header: "@@ -1,2 +1,2 @@ func section()",
					Lines:  []HunkLine{{' ', "keep", false}, {'-', "old", true}, {'+', "new", false}}}},
			}},
		},
		{
			name: "new, deleted, renamed and mode-only in one patch",
			patch: `From 1234 Mon Sep 17 00:00:00 2001
Subject: [PATCH] several

---
diff --git a/new.sh b/new.sh
new file mode 100755
index 0000000..e69de29
--- /dev/null
+++ b/new.sh
@@ -0,0 +1 @@
+echo hi
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old name.go b/new name.go
similarity index 100%
rename from old name.go
rename to new name.go
diff --git a/run b/run
old mode 100644
new mode 100755
diff --git a/empty b/empty
new file mode 100644
index 0000000..e69de29
-- 
2.39.5
`,
			want: []FilePatch{
				{NewPath: "new.sh", NewMode: 0o755, IsNew: true, Hunks: []Hunk{{OldStart: 0, NewStart: 1, NewLines: 1, Positioned: true,
					Header: "@@ -0,0 +1 @@", Lines: []HunkLine{{'+', "echo hi", false}}}}},
				{OldPath: "gone.txt", OldMode: 0o644, IsDelete: true, Hunks: []Hunk{{OldStart: 1, OldLines: 1, Positioned: true,
					Header: "@@ -1 +0,0 @@", Lines: []HunkLine{{'-', "bye", false}}}}},
				{OldPath: "old name.go", NewPath: "new name.go", IsRename: true},
				{OldPath: "run", NewPath: "run", OldMode: 0o644, NewMode: 0o755},
				{NewPath: "empty", NewMode: 0o644, IsNew: true},
			},
		},
		{
			name: "plain diff -u with timestamps and no prefixes",
			patch: "--- src/a.c\t2024-01-01 00:00:00.000000000 +0000\n+++ src/a.c\t2024-01-02 00:00:00.000000000 +0000\n" +
				"@@ -3 +3 @@\n-a\n+b\n",
			want: []FilePatch{{OldPath: "src/a.c", NewPath: "src/a.c", Hunks: []Hunk{{OldStart: 3, OldLines: 1, NewStart: 3, NewLines: 1,
				Positioned: true, Header: "@@ -3 +3 @@", Lines: []HunkLine{{'-', "a", false}, {'+', "b", false}}}}}},
		},
		{
			name:  "quoted names",
			patch: "diff --git \"a/sp ace\\303\\251\" \"b/sp ace\\303\\251\"\n--- \"a/sp ace\\303\\251\"\n+++ \"b/sp ace\\303\\251\"\n@@ -1 +1 @@\n-x\n+y\n",
			want: []FilePatch{{OldPath: "sp aceé", NewPath: "sp aceé", Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1,
				Positioned: true, Header: "@@ -1 +1 @@", Lines: []HunkLine{{'-', "x", false}, {'+', "y", false}}}}}},
		},
		{
			name:  "removed line that looks like a file header is counted as body",
			patch: "--- a/m.md\n+++ b/m.md\n@@ -1,3 +1,1 @@\n--- a\n+++ b\n x\n",
			want: []FilePatch{{OldPath: "m.md", NewPath: "m.md", Hunks: []Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2,
				Positioned: true, Header: "@@ -1,3 +1,1 @@", Lines: []HunkLine{{'-', "-- a", false}, {'+', "++ b", false}, {' ', "x", false}}}}}},
		},
		{
			name:  "miscounted header and stripped blank context line",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n\n-b\n+c\n d\n\n",
			want: []FilePatch{{OldPath: "f", NewPath: "f", Hunks: []Hunk{{OldStart: 1, OldLines: 4, NewStart: 1, NewLines: 4,
				Positioned: true, Header: "@@ -1,2 +1,2 @@",
				Lines: []HunkLine{{' ', "a", false}, {' ', "", false}, {'-', "b", false}, {'+', "c", false}, {' ', "d", false}}}}}},
		},
		{
			name:  "bare @@ without numbers",
			patch: "--- a/f\n+++ b/f\n@@\n-x\n+y\n",
			want: []FilePatch{{OldPath: "f", NewPath: "f", Hunks: []Hunk{{OldLines: 1, NewLines: 1, Header: "@@",
				Lines: []HunkLine{{'-', "x", false}, {'+', "y", false}}}}}},
		},
	}
	for _, tt := range tests {
		got, err := ParsePatch(tt.patch)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestParsePatchErrors(t *testing.T) {
	tests := []struct {
		name, patch, want string
	}{
		{"empty", "", "no file changes"},
		{"prose", "please change line 3 to say hello", "no file changes"},
		{"hunk before header", "@@ -1 +1 @@\n-a\n+b\n", "no file header"},
		{"malformed header", "--- a/f\n+++ b/f\n@@ -x +1 @@\n-a\n", "malformed hunk header"},
		{"garbage in counted body", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n?what\n", "is not a context"},
		{"empty hunk", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n", "has no lines"},
		{"no hunks", "diff --git a/f b/f\nindex 1..2 100644\n", "no hunks"},
		{"both dev null", "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n", "names no file"},
	}
	for _, tt := range tests {
		_, err := ParsePatch(tt.patch)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ParsePatch = %v; want an error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := ParsePatch("nothing"); !errors.Is(err, ErrNoPatch) {
		t.Errorf("prose: want ErrNoPatch, got %v", err)
	}
}

func TestApplyHunks(t *testing.T) {
	tests := []struct {
		name, content, patch, want, wantErr, wantNote string
	}{
		{
			name:    "exact",
			content: "a\nb\nc\n", patch: "@@ -2 +2 @@\n-b\n+B\n", want: "a\nB\nc\n",
		},
		{
			name:    "shifted hunk found by content",
			content: "x\ny\nz\na\nb\nc\n", patch: "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", want: "x\ny\nz\na\nB\nc\n",
			wantNote: "offset +3",
		},
		{
			name:    "second hunk shifted like the first",
			content: "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n", patch: "@@ -3 +3,2 @@\n 2\n+2.5\n@@ -8 +9 @@\n-7\n+seven\n",
			want: "0\n1\n2\n2.5\n3\n4\n5\n6\nseven\n8\n9\n",
		},
		{
			name:    "add newline at end",
			content: "a\nb", patch: "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", want: "a\nb\n",
		},
		{
			name:    "remove newline at end",
			content: "a\nb\n", patch: "@@ -2 +2 @@\n-b\n+b\n\\ No newline at end of file\n", want: "a\nb",
		},
		{
			name:    "append to file without final newline, marker omitted by the model",
			content: "a", patch: "@@ -1 +1,2 @@\n a\n+b\n", want: "a\nb\n",
		},
		{
			name:    "delete last lines",
			content: "a\nb\nc", patch: "@@ -1,3 +1 @@\n a\n-b\n-c\n\\ No newline at end of file\n", want: "a\n",
		},
		{
			name:    "insert into empty file",
			content: "", patch: "@@ -0,0 +1,2 @@\n+x\n+y\n", want: "x\ny\n",
		},
		{
			name:    "crlf file with lf patch",
			content: "a\r\nb\r\nc\r\n", patch: "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", want: "a\r\nB\r\nc\r\n",
			wantNote: "trailing whitespace",
		},
		{
			name:    "trailing whitespace in file",
			content: "a  \nb\n", patch: "@@ -1,2 +1,2 @@\n a\n-b\n+c\n", want: "a  \nc\n",
			wantNote: "trailing whitespace",
		},
		{
			name:    "bare @@ located by content",
			content: "1\n2\n3\n", patch: "@@\n-2\n+two\n", want: "1\ntwo\n3\n",
		},
		{
			name:    "mismatch names the line",
			content: "a\nb\nc\n", patch: "@@ -1,3 +1,3 @@\n a\n-x\n+y\n c\n", wantErr: `line 2 is "b" where the hunk expects "x"`,
		},
		{
			name:    "unknown first line",
			content: "a\n", patch: "@@ -1 +1 @@\n-zzz\n+y\n", wantErr: `first old line "zzz" was not found`,
		},
		{
			name:    "file too short",
			content: "a\n", patch: "@@ -1,3 +1 @@\n-a\n-b\n-c\n+y\n", wantErr: "only 1",
		},
		{
			name:    "hunks must not overlap or go backwards",
			content: "a\nb\n", patch: "@@ -2 +2 @@\n-b\n+B\n@@ -1 +1 @@\n-a\n+A\n", wantErr: "does not apply",
		},
	}
	for _, tt := range tests {
		fps, err := ParsePatch("--- a/f\n+++ b/f\n" + tt.patch)
		if err != nil {
			t.Fatalf("%s: parse: %v", tt.name, err)
		}
		got, notes, err := applyHunks("f", tt.content, fps[0].Hunks)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v; want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if tt.wantNote != "" && !strings.Contains(strings.Join(notes, "\n"), tt.wantNote) {
			t.Errorf("%s: notes %q lack %q", tt.name, notes, tt.wantNote)
		}
	}
}

// TestApplyPatchAllOrNothing is the acceptance test: a patch whose second
// file fails leaves every file untouched.
func TestApplyPatchAllOrNothing(t *testing.T) {
	ws, dir := newWS(t, map[string]string{"one.txt": "1\n2\n3\n", "two.txt": "a\nb\nc\n", "three.txt": "x\n"})
	patch := `--- a/one.txt
+++ b/one.txt
@@ -1,3 +1,3 @@
 1
-2
+TWO
 3
--- a/two.txt
+++ b/two.txt
@@ -1,3 +1,3 @@
 a
-NOT-THERE
+B
 c
--- /dev/null
+++ b/created.txt
@@ -0,0 +1 @@
+new
--- a/three.txt
+++ /dev/null
@@ -1 +0,0 @@
-x
`
	out := runErr(t, ws, "apply_patch", map[string]any{"patch": patch})
	for _, want := range []string{"no file was changed", "two.txt", `"NOT-THERE"`} {
		if !strings.Contains(out, want) {
			t.Errorf("error lacks %q:\n%s", want, out)
		}
	}
	for name, want := range map[string]string{"one.txt": "1\n2\n3\n", "two.txt": "a\nb\nc\n", "three.txt": "x\n"} {
		if got := readHost(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s = %q after a failed patch", name, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "created.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("created.txt exists after a failed patch")
	}
	if n := len(ws.Changes()); n != 0 {
		t.Errorf("%d changes journaled", n)
	}
}

func TestApplyPatchAllKinds(t *testing.T) {
	ws, dir := newWS(t, map[string]string{
		"mod.txt": "a\nb\nc\n", "del.txt": "bye\n", "old/name.txt": "moved\ncontent\n", "run.sh": "echo\n", "src.txt": "copy me\n",
	})
	patch := `diff --git a/mod.txt b/mod.txt
--- a/mod.txt
+++ b/mod.txt
@@ -2 +2 @@
-b
+B
diff --git a/del.txt b/del.txt
deleted file mode 100644
--- a/del.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old/name.txt b/new/dir/name.txt
similarity index 60%
rename from old/name.txt
rename to new/dir/name.txt
--- a/old/name.txt
+++ b/new/dir/name.txt
@@ -1,2 +1,2 @@
 moved
-content
+changed content
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/src.txt b/dst.txt
similarity index 100%
copy from src.txt
copy to dst.txt
diff --git a/added.go b/added.go
new file mode 100644
--- /dev/null
+++ b/added.go
@@ -0,0 +1,2 @@
+package x
+// no newline
\ No newline at end of file
`
	out := run(t, ws, "apply_patch", map[string]any{"patch": patch})
	for _, want := range []string{"M mod.txt (+1 -1)", "D del.txt", "R old/name.txt -> new/dir/name.txt (+1 -1)", "M run.sh", "C src.txt -> dst.txt", "A added.go (+2 -0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	want := map[string]string{
		"mod.txt": "a\nB\nc\n", "new/dir/name.txt": "moved\nchanged content\n", "dst.txt": "copy me\n",
		"src.txt": "copy me\n", "added.go": "package x\n// no newline",
	}
	for name, content := range want {
		if got := readHost(t, filepath.Join(dir, name)); got != content {
			t.Errorf("%s = %q, want %q", name, got, content)
		}
	}
	for _, gone := range []string{"del.txt", "old/name.txt"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists", gone)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode = %v, %v", fi.Mode(), err)
	}
	// Every change is undoable as one unit of the journal.
	if _, err := ws.UndoAll(); err != nil {
		t.Fatal(err)
	}
	if got := readHost(t, filepath.Join(dir, "old/name.txt")); got != "moved\ncontent\n" {
		t.Errorf("after undo old/name.txt = %q", got)
	}
}

func TestApplyPatchRefusals(t *testing.T) {
	ws, _ := newWS(t, map[string]string{"exists.txt": "x\n", "bin": "a\x00b"})
	tests := []struct{ name, patch, want string }{
		{"create over existing", "--- /dev/null\n+++ b/exists.txt\n@@ -0,0 +1 @@\n+y\n", "already exists"},
		{"modify missing", "--- a/missing\n+++ b/missing\n@@ -1 +1 @@\n-a\n+b\n", "does not exist"},
		{"binary target", "--- a/bin\n+++ b/bin\n@@ -1 +1 @@\n-a\n+b\n", "binary"},
		{"binary patch", "diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n", "binary patches are not supported"},
		{"delete with different content", "--- a/exists.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n", "does not apply"},
		{"not a patch", "just text", "no file changes"},
	}
	for _, tt := range tests {
		out := runErr(t, ws, "apply_patch", map[string]any{"patch": tt.patch})
		if !strings.Contains(out, tt.want) {
			t.Errorf("%s: %s; want %q", tt.name, out, tt.want)
		}
	}
}

// TestApplyGitGeneratedPatches applies patches written by real git for
// edits, renames with changes, deletions and new files.
func TestApplyGitGeneratedPatches(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	gitRun := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "core.autocrlf=false"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	long := ""
	for i := 0; i < 40; i++ {
		long += "line " + string(rune('a'+i%26)) + "\n"
	}
	orig := map[string]string{"a.txt": long, "rename-me.txt": long + "tail\n", "delete.txt": "x\ny\n", "nonl": "a\nb"}
	for n, c := range orig {
		if err := os.WriteFile(filepath.Join(repo, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun("init", "-q")
	gitRun("add", ".")
	gitRun("commit", "-qm", "base")
	changed := map[string]string{
		"a.txt":        strings.Replace(strings.Replace(long, "line c\n", "LINE C\n", 1), "line x\n", "", 1),
		"moved/to.txt": long + "new tail\n",
		"brand-new.md": "# hi\n",
		"nonl":         "a\nb\nc",
	}
	if err := os.MkdirAll(filepath.Join(repo, "moved"), 0o755); err != nil {
		t.Fatal(err)
	}
	for n, c := range changed {
		if err := os.WriteFile(filepath.Join(repo, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"rename-me.txt", "delete.txt"} {
		if err := os.Remove(filepath.Join(repo, n)); err != nil {
			t.Fatal(err)
		}
	}
	gitRun("add", "-A")
	patch := gitRun("diff", "--cached", "-M")
	if !strings.Contains(patch, "rename from rename-me.txt") {
		t.Fatalf("git did not detect the rename:\n%s", patch)
	}
	ws, dir := newWS(t, orig)
	run(t, ws, "apply_patch", map[string]any{"patch": patch})
	for n, c := range changed {
		if got := readHost(t, filepath.Join(dir, n)); got != c {
			t.Errorf("%s = %q, want %q", n, got, c)
		}
	}
	for _, n := range []string{"rename-me.txt", "delete.txt"} {
		if _, err := os.Stat(filepath.Join(dir, n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists", n)
		}
	}
	// The journal's own diff reverses cleanly with git apply -R.
	cmd := exec.Command("git", "apply", "-R", "--check", "-")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(ws.Diff())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("git apply -R --check of the journal diff: %v\n%s\n%s", err, out, ws.Diff())
	}
}
