//go:build linux

package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIsTerminal: /dev/null is a character device but not a terminal (it
// used to count as one, so `rein chat < /dev/null` printed the prompt and
// banner); a pseudo-terminal is one.
func TestIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Errorf("isTerminal(%s) = true", os.DevNull)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if isTerminal(r) || isTerminal(strings.NewReader("")) {
		t.Error("a pipe or a reader counts as a terminal")
	}
	leader, pty, err := openPTY()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer leader.Close()
	defer pty.Close()
	if !isTerminal(pty) {
		t.Error("isTerminal(pseudo-terminal) = false")
	}
}

// openPTY opens a new pseudo-terminal, both sides.
func openPTY() (leader, follower *os.File, err error) {
	leader, err = os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(leader.Fd())
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0)
	}
	if err == nil {
		follower, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	}
	if err != nil {
		leader.Close()
		return nil, nil, err
	}
	return leader, follower, nil
}
