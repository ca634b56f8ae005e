//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// tempOpenFlags open a temporary file for the sweep without following a
// symlink or blocking on a FIFO swapped in under its name.
const tempOpenFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// holdTemp takes an exclusive lock on a temporary file being written: the
// kernel drops it when the writer closes the file or dies, so a sweep can
// tell a live write from a killed one's leftover.
func holdTemp(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

// tempHeld reports whether another open file description holds the
// temporary file's lock: a writer is still at work.
func tempHeld(f *os.File) bool {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil {
		return true // EWOULDBLOCK, or no locking here: assume held
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
