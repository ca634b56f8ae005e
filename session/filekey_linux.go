//go:build linux

package session

import (
	"fmt"
	"os"
	"syscall"
)

// fileKey identifies a file's content as it is now without reading it:
// any write changes the modification and change times (the change time
// cannot be set back without the clock), replacing it changes the inode.
func fileKey(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
	}
	return fmt.Sprintf("%d %d %d.%d %d.%d", fi.Size(), fi.ModTime().UnixNano(),
		st.Ctim.Sec, st.Ctim.Nsec, st.Dev, st.Ino)
}
