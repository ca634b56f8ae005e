package replay

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileID identifies a file on its device, to find hard links.
type fileID struct{ dev, ino uint64 }

// hardLinked returns the id of a file that has more than one link.
func hardLinked(info fs.FileInfo) (fileID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink < 2 {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}

// applyMeta gives the copy at path the owner, mode and times of the
// original described by info, without following a symbolic link. The
// owner is best effort: only root may give a file away, and a user can
// copy a tree it does not own.
func applyMeta(path string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	_ = os.Lchown(path, int(st.Uid), int(st.Gid))
	if info.Mode()&fs.ModeSymlink == 0 {
		// After the chown, which clears setuid and setgid bits.
		if err := os.Chmod(path, info.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
			return err
		}
	}
	ts := []unix.Timespec{unix.NsecToTimespec(syscall.TimespecToNsec(st.Atim)), unix.NsecToTimespec(syscall.TimespecToNsec(st.Mtim))}
	return unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW)
}
