//go:build unix

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSweepTempRemovesOnlyLeftovers: the start-up sweep removes the
// temporary files of writes whose writer is gone, and nothing else: not a
// file a writer still holds, not a fresh one, not a symlink, directory or
// FIFO with the name, not a look-alike name, nothing under .git.
func TestSweepTempRemovesOnlyLeftovers(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Minute)
	outside := filepath.Join(t.TempDir(), "precious")
	os.WriteFile(outside, []byte("keep"), 0o600)
	write := func(rel string, aged bool) string {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if aged {
			os.Chtimes(p, old, old)
		}
		return p
	}
	write(".rein-tmp-0123456789ab", true)          // a killed write's leftover
	write("src/deep/.rein-tmp-a1b2c3d4e5f6", true) // in a subdirectory
	write(".rein-tmp-ffffffffffff", false)         // fresh: a writer without a lock may be at it
	held := write(".rein-tmp-00000000000a", true)
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	holdTemp(f) // a live writer
	for _, name := range []string{".rein-tmp-abc", ".rein-tmp-ABCDEF012345", "x.rein-tmp-0123456789ab", ".rein-tmp-0123456789abc", ".rein-tmp-0123456789a"} {
		write(name, true)
	}
	write(".git/.rein-tmp-0123456789ab", true)
	if err := os.Symlink(outside, filepath.Join(dir, ".rein-tmp-5555555555aa")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, ".rein-tmp-5555555555bb"), 0o755)
	os.Chtimes(filepath.Join(dir, ".rein-tmp-5555555555bb"), old, old)

	ws, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	got := ws.SweepTemp(context.Background())
	sort.Strings(got)
	want := []string{".rein-tmp-0123456789ab", "src/deep/.rein-tmp-a1b2c3d4e5f6"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	for _, rel := range want {
		if _, err := os.Lstat(filepath.Join(dir, rel)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", rel, err)
		}
	}
	for _, rel := range []string{".rein-tmp-ffffffffffff", ".rein-tmp-00000000000a", ".rein-tmp-abc", ".rein-tmp-ABCDEF012345",
		"x.rein-tmp-0123456789ab", ".rein-tmp-0123456789abc", ".rein-tmp-0123456789a", ".git/.rein-tmp-0123456789ab",
		".rein-tmp-5555555555aa", ".rein-tmp-5555555555bb"} {
		if _, err := os.Lstat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("%s was removed: %v", rel, err)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Errorf("the symlink's target changed: %q", b)
	}
	// The writer lets go (closing, as dying does): the next sweep takes it.
	f.Close()
	if got := ws.SweepTemp(context.Background()); !cmp.Equal(got, []string{".rein-tmp-00000000000a"}) {
		t.Errorf("after the writer closed, removed %q", got)
	}
}

// TestHeldTempFileReadsHeld: the lock a writer takes on its temporary
// file is seen through another open of the file (as a sweep in another
// process opens it), and is gone once the writer closes it.
func TestHeldTempFileReadsHeld(t *testing.T) {
	dir := t.TempDir()
	ws, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	f, err := ws.root.OpenFile(".rein-tmp-0000000000cc", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	holdTemp(f)
	other, err := os.Open(filepath.Join(dir, ".rein-tmp-0000000000cc"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if !tempHeld(other) {
		t.Error("a held temporary file reads as free")
	}
	f.Close()
	if tempHeld(other) {
		t.Error("a closed writer's file still reads as held")
	}
}
