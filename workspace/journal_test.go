package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJournalDiffAndUndo is the acceptance test: a run's changes are
// listed as a diff and undone, restoring bytes and deleting created files.
func TestJournalDiffAndUndo(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	mustWrite(t, filepath.Join(dir, "keep.txt"), []byte("alpha\nbeta\ngamma\n"))
	mustWrite(t, filepath.Join(dir, "gone.txt"), []byte("bye\n"))
	ctx := WithCallID(context.Background(), "call-A")
	steps := []func() error{
		func() error { _, err := ws.WriteFile(ctx, "keep.txt", []byte("alpha\nBETA\ngamma\n")); return err },
		func() error { _, err := ws.WriteFile(ctx, "src/new.go", []byte("package src\n")); return err },
		func() error { _, err := ws.Remove(ctx, "gone.txt"); return err },
		func() error {
			_, err := ws.WriteFile(ctx, "keep.txt", []byte("alpha\nBETA\ngamma\ndelta\n"))
			return err
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	want := `diff --git a/keep.txt b/keep.txt
--- a/keep.txt
+++ b/keep.txt
@@ -1,3 +1,4 @@
 alpha
-beta
+BETA
 gamma
+delta
diff --git a/src/new.go b/src/new.go
new file mode 100644
--- /dev/null
+++ b/src/new.go
@@ -0,0 +1 @@
+package src
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
`
	if diff := cmp.Diff(want, ws.Diff()); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	var kinds []string
	for _, c := range ws.Changes() {
		kinds = append(kinds, c.Kind()+" "+c.Path+" by "+c.CallID)
	}
	wantKinds := []string{
		"modify keep.txt by call-A", "create src/new.go by call-A",
		"delete gone.txt by call-A", "modify keep.txt by call-A",
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("Changes (-want +got):\n%s", diff)
	}
	all := ws.Changes()
	for i := range all {
		since := ws.ChangesSince(all[i].Seq)
		if len(since) != len(all)-i-1 || (len(since) > 0 && since[0].Seq != all[i+1].Seq) {
			t.Errorf("ChangesSince(%d) = %d changes, want the %d after it", all[i].Seq, len(since), len(all)-i-1)
		}
	}
	if got := ws.ChangesSince(0); len(got) != len(all) {
		t.Errorf("ChangesSince(0) = %d changes, want all %d", len(got), len(all))
	}

	// Undo the newest one, then the rest.
	if n, err := ws.Undo(1); err != nil || n != 1 {
		t.Fatalf("Undo(1) = %d, %v", n, err)
	}
	if got := readHost(t, filepath.Join(dir, "keep.txt")); got != "alpha\nBETA\ngamma\n" {
		t.Errorf("after Undo(1) keep.txt = %q", got)
	}
	if n, err := ws.UndoAll(); err != nil || n != 3 {
		t.Fatalf("UndoAll = %d, %v", n, err)
	}
	if got := readHost(t, filepath.Join(dir, "keep.txt")); got != "alpha\nbeta\ngamma\n" {
		t.Errorf("keep.txt = %q after UndoAll", got)
	}
	if got := readHost(t, filepath.Join(dir, "gone.txt")); got != "bye\n" {
		t.Errorf("gone.txt = %q after UndoAll", got)
	}
	for _, p := range []string{"src/new.go", "src"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s survives UndoAll: %v", p, err)
		}
	}
	if d := ws.Diff(); d != "" {
		t.Errorf("Diff after UndoAll = %q", d)
	}
}

// TestDiffAppliesWithGit checks the journal diff is a real patch: git
// apply turns the original tree into the changed one.
func TestDiffAppliesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ws, dir := openTemp(t, Options{})
	orig := map[string]string{
		"a.txt":  strings.Repeat("line\n", 30),
		"nonl":   "no newline",
		"x/y.md": "# title\n\ntext\n",
	}
	for p, c := range orig {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, p), []byte(c))
	}
	ctx := context.Background()
	edits := map[string]string{
		"a.txt":   strings.Replace(strings.Repeat("line\n", 30), "line\n", "first\n", 1) + "last",
		"nonl":    "no newline\nnow has one\n",
		"added.c": "int main(void) { return 0; }\n",
	}
	for p, c := range edits {
		if _, err := ws.WriteFile(ctx, p, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ws.Remove(ctx, "x/y.md"); err != nil {
		t.Fatal(err)
	}
	patch := ws.Diff()

	fresh := t.TempDir()
	for p, c := range orig {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(fresh, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(fresh, p), []byte(c))
	}
	cmd := exec.Command("git", "apply", "--whitespace=nowarn", "-")
	cmd.Dir = fresh
	cmd.Stdin = strings.NewReader(patch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\npatch:\n%s", err, out, patch)
	}
	for p, c := range edits {
		if got := readHost(t, filepath.Join(fresh, p)); got != c {
			t.Errorf("%s after git apply = %q, want %q", p, got, c)
		}
	}
	if _, err := os.Stat(filepath.Join(fresh, "x/y.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("x/y.md not deleted by the patch")
	}
}

func TestUndoConflictLeavesFileAlone(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	ctx := context.Background()
	if _, err := ws.WriteFile(ctx, "f", []byte("by tool\n")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "f"), []byte("by a command\n"))
	n, err := ws.Undo(1)
	if n != 0 || !errors.Is(err, ErrConflict) {
		t.Fatalf("Undo = %d, %v; want ErrConflict", n, err)
	}
	if got := readHost(t, filepath.Join(dir, "f")); got != "by a command\n" {
		t.Errorf("f = %q; the conflicting undo changed it", got)
	}
	if len(ws.Changes()) != 1 {
		t.Errorf("the change was dropped from the journal")
	}
}

func TestJournalCapsStoredBytes(t *testing.T) {
	ws, dir := openTemp(t, Options{JournalFileBytes: 10, JournalTotalBytes: 40})
	ctx := context.Background()
	mustWrite(t, filepath.Join(dir, "big"), []byte(strings.Repeat("b", 11)))
	c, err := ws.WriteFile(ctx, "big", []byte("small"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Before.Stored || c.Before.Data != nil || c.Before.Hash == "" || c.Before.Size != 11 {
		t.Errorf("over-cap before state = %+v; want hash only", c.Before)
	}
	if c.Undoable() {
		t.Error("a change whose before-state was not kept claims to be undoable")
	}
	if !strings.Contains(ws.Diff(), "contents over the journal limit") {
		t.Errorf("Diff does not explain the missing content:\n%s", ws.Diff())
	}
	n, err := ws.Undo(1)
	if n != 0 || !errors.Is(err, ErrNotUndoable) || !strings.Contains(err.Error(), "only its hash was kept") {
		t.Errorf("Undo = %d, %v; want ErrNotUndoable with an explanation", n, err)
	}

	// The total cap drops the oldest contents first.
	ws2, _ := openTemp(t, Options{JournalFileBytes: 10, JournalTotalBytes: 25})
	for i, s := range []string{"0123456789", "abcdefghij", "ABCDEFGHIJ"} {
		if _, err := ws2.WriteFile(ctx, "f", []byte(s)); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	cs := ws2.Changes()
	var stored []bool
	for _, c := range cs {
		stored = append(stored, c.After.Stored)
	}
	if diff := cmp.Diff([]bool{false, false, true}, stored); diff != "" {
		t.Errorf("After.Stored per change (-want +got):\n%s", diff)
	}
	// Undo works for the newest change (its before-state is kept) and
	// stops at the first one whose content was dropped.
	n, err = ws2.UndoAll()
	if n != 1 || !errors.Is(err, ErrNotUndoable) {
		t.Errorf("UndoAll = %d, %v; want 1 and ErrNotUndoable", n, err)
	}
}

func TestUndoCreationOfLargeFile(t *testing.T) {
	ws, dir := openTemp(t, Options{JournalFileBytes: 4})
	if _, err := ws.WriteFile(context.Background(), "d/big", []byte("more than four")); err != nil {
		t.Fatal(err)
	}
	// Creating needs no stored content to undo: the file is deleted.
	if n, err := ws.UndoAll(); n != 1 || err != nil {
		t.Fatalf("UndoAll = %d, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "d")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("d/ survives: %v", err)
	}
}

func TestDiffModeAndBinary(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	ctx := context.Background()
	mustWrite(t, filepath.Join(dir, "s.sh"), []byte("echo\n"))
	if _, err := ws.Transact(ctx, func(tx *Tx) error { return tx.WriteFile("s.sh", []byte("echo\n"), 0o755) }); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.WriteFile(ctx, "b.bin", []byte{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	want := "diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/b.bin b/b.bin\nnew file mode 100644\nBinary files /dev/null and b/b.bin differ\n"
	if diff := cmp.Diff(want, ws.Diff()); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
}

func TestUndoCallsUndoesWholeCalls(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	write := func(call string, files ...string) {
		t.Helper()
		_, err := ws.Transact(WithCallID(context.Background(), call), func(tx *Tx) error {
			for _, f := range files {
				if err := tx.WriteFile(f, []byte(call), 0); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	write("c1", "a")
	write("c2", "b", "c")
	write("c3", "d", "e", "f")
	n, err := ws.UndoCalls(2)
	if err != nil || n != 5 {
		t.Fatalf("UndoCalls(2) = %d, %v; want 5 changes", n, err)
	}
	var left []string
	for _, c := range ws.Changes() {
		left = append(left, c.CallID+":"+c.Path)
	}
	if diff := cmp.Diff([]string{"c1:a"}, left); diff != "" {
		t.Errorf("journal after UndoCalls (-want +got):\n%s", diff)
	}
	for _, f := range []string{"b", "c", "d", "e", "f"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s survives", f)
		}
	}
	if n, err := ws.UndoCalls(5); n != 1 || err != nil {
		t.Errorf("UndoCalls beyond the journal = %d, %v", n, err)
	}
}
