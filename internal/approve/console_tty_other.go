//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package approve

import "os"

// isTTY reports whether f looks like a terminal (a character device)
// where rein has no terminal ioctl to ask, so the settle time applies.
func isTTY(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// ttyFlush cannot discard pending input here.
func ttyFlush(*os.File) {}

// ttyWidth is unknown here.
func ttyWidth(*os.File) int { return 0 }
