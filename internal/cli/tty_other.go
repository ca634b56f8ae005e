//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package cli

import "os"

// isatty falls back to "a character device that is not the null device"
// where rein has no terminal ioctl to ask.
func isatty(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}
