package replay_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reinharness/rein/session/replay"
)

// TestScratchKeepsMetadata: the copy has the original's full modes (a
// read-only directory, setgid, sticky), access and modification times of
// files, directories, the root and links, and hard links; it sits under
// the workspace's own name; cleanup removes it despite the read-only
// directory. The original's access times were the ones set before the
// copy read it (reading moves them on).
func TestScratchKeepsMetadata(t *testing.T) {
	src := filepath.Join(t.TempDir(), "proj")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "ro"), 0o755))
	must(os.MkdirAll(filepath.Join(src, "shared"), 0o755))
	must(os.WriteFile(filepath.Join(src, "ro", "f"), []byte("f"), 0o644))
	must(os.WriteFile(filepath.Join(src, "a"), []byte("a"), 0o644))
	must(os.Link(filepath.Join(src, "a"), filepath.Join(src, "b")))
	must(os.Symlink("a", filepath.Join(src, "l")))
	must(os.Chmod(filepath.Join(src, "a"), 0o4750))
	must(os.Chmod(filepath.Join(src, "shared"), 0o777|fs.ModeSetgid|fs.ModeSticky))
	at, mt := time.Date(2023, 1, 2, 3, 4, 5, 6, time.UTC), time.Date(2022, 6, 7, 8, 9, 10, 11, time.UTC)
	for _, n := range []string{"a", "ro/f", "ro", "shared", "."} {
		must(os.Chtimes(filepath.Join(src, n), at, mt))
	}
	ts := []syscall.Timespec{syscall.NsecToTimespec(at.UnixNano()), syscall.NsecToTimespec(mt.UnixNano())}
	lutimes(t, filepath.Join(src, "l"), ts)
	must(os.Chmod(filepath.Join(src, "ro"), 0o555))
	t.Cleanup(func() { os.Chmod(filepath.Join(src, "ro"), 0o755) })

	dir, cleanup, err := replay.Scratch(context.Background(), src)
	must(err)
	if filepath.Base(dir) != "proj" {
		t.Errorf("the copy is named %s, want proj", filepath.Base(dir))
	}
	for _, n := range []string{".", "a", "b", "l", "ro", "ro/f", "shared"} {
		want, got := lstat(t, filepath.Join(src, n)), lstat(t, filepath.Join(dir, n))
		if want.Mode != got.Mode || want.Mtim != got.Mtim || got.Atim != ts[0] || want.Nlink != got.Nlink || want.Uid != got.Uid {
			t.Errorf("%s: copy mode %o mtime %v atime %v links %d uid %d, original %o %v %v %d %d", n,
				got.Mode, got.Mtim, got.Atim, got.Nlink, got.Uid, want.Mode, want.Mtim, ts[0], want.Nlink, want.Uid)
		}
	}
	if a, b := lstat(t, filepath.Join(dir, "a")), lstat(t, filepath.Join(dir, "b")); a.Ino != b.Ino {
		t.Error("the hard link a/b became two files")
	}
	cleanup()
	if _, err := os.Stat(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s: %v", filepath.Dir(dir), err)
	}
}

func lstat(t *testing.T, path string) *syscall.Stat_t {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

func lutimes(t *testing.T, path string, ts []syscall.Timespec) {
	t.Helper()
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, path, []unix.Timespec{unix.Timespec(ts[0]), unix.Timespec(ts[1])}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
}
