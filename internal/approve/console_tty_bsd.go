//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package approve

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTTY reports whether f is a terminal (it has terminal attributes).
func isTTY(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TIOCGETA)
	return err == nil
}

// ttyFlush discards what was typed on the terminal f but not yet read
// (TIOCFLUSH with FREAD, which tcflush(TCIFLUSH) is).
func ttyFlush(f *os.File) {
	const fread = 1
	_ = unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCFLUSH, fread)
}

// ttyWidth is the terminal's width in columns, or 0.
func ttyWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
