package approve

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTTY reports whether f is a terminal (it has terminal attributes).
func isTTY(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// ttyFlush discards what was typed on the terminal f but not yet read
// (tcflush(TCIFLUSH)), including a line still being edited.
func ttyFlush(f *os.File) {
	_ = unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}

// ttyWidth is the terminal's width in columns, or 0.
func ttyWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
