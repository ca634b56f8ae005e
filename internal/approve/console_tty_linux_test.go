package approve

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reinharness/rein/policy"
)

// openPTY returns a pseudo-terminal's controller and terminal ends.
func openPTY(t *testing.T) (ctl, tty *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	fd := int(ctl.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close(); ctl.Close() })
	return ctl, tty
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestConsoleTerminalDiscardsTypeAhead types on a real pseudo-terminal
// before the question (a whole "s" line and a half-typed "y"), then
// Enter well after the question appeared: nothing typed before counts,
// so that Enter is an empty answer, not "y". The "n" typed next does.
func TestConsoleTerminalDiscardsTypeAhead(t *testing.T) {
	ctl, tty := openPTY(t)
	e := newEngine(t, policy.PresetEditor, nil, nil, nil)
	call := runCall("go build ./...")
	out := &syncBuffer{}
	c := closeAtEnd(t, Console(tty, out, ConsoleOptions{}))
	if _, err := ctl.WriteString("s\ny"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the line discipline has it
	type result struct {
		d   policy.Decision
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		d, err := c.Approve(context.Background(), call, askDecision(t, e, call))
		done <- result{d, err}
	}()
	for !strings.Contains(out.String(), "Allow?") {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("no question:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(DefaultSettle + 100*time.Millisecond)
	ctl.WriteString("\n") // would answer "y" had the half-typed y not been discarded
	for !strings.Contains(out.String(), "Enter alone does not answer") {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("Enter was not refused:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctl.WriteString("n\n\n")
	select {
	case r := <-done:
		if r.err != nil || r.d.Action != policy.Deny || r.d.Reason != "run_command was denied by the user" {
			t.Fatalf("Approve = %+v, %v\n%s", r.d, r.err, out.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no decision:\n%s", out.String())
	}
}
