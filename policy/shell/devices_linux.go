package shell

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// memoryDevice reports whether a character device is physical or kernel
// memory or I/O ports: /dev/mem (1:1), /dev/kmem (1:2), /dev/port (1:4).
func memoryDevice(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	dev := uint64(st.Rdev)
	if unix.Major(dev) != 1 {
		return false
	}
	switch unix.Minor(dev) {
	case 1, 2, 4:
		return true
	}
	return false
}
