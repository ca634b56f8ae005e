package approve

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinharness/rein/policy"
)

// scriptedLines is a ReadLine whose lines arrive at given offsets from
// the question on a fake clock.
type scriptedLines struct {
	mu    sync.Mutex
	now   time.Time
	lines []timedLine
}

type timedLine struct {
	after time.Duration // since the clock's start
	text  string
}

func (s *scriptedLines) clock() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

func (s *scriptedLines) readLine(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lines) == 0 {
		return "", errInputClosed
	}
	l := s.lines[0]
	s.lines = s.lines[1:]
	if t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(l.after); t.After(s.now) {
		s.now = t
	}
	return l.text, nil
}

// TestConsoleIgnoresAnswersBeforeItSettled: lines that arrive within the
// settle time (typed ahead, or typed on while the question appeared) do
// not answer, whatever they say; a line after it does.
func TestConsoleIgnoresAnswersBeforeItSettled(t *testing.T) {
	e := newEngine(t, policy.PresetEditor, nil, nil, nil)
	call := runCall("go build ./...")
	for _, early := range []string{"s", "y", "yes", "session", "a", "S "} {
		t.Run(early, func(t *testing.T) {
			src := &scriptedLines{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), lines: []timedLine{
				{0, early}, {200 * time.Millisecond, early}, {499 * time.Millisecond, early},
				{600 * time.Millisecond, "n"}, {700 * time.Millisecond, ""},
			}}
			var out bytes.Buffer
			c := closeAtEnd(t, Console(nil, &out, ConsoleOptions{ReadLine: src.readLine, Now: src.clock, Settle: DefaultSettle}))
			d, err := c.Approve(context.Background(), call, askDecision(t, e, call))
			if err != nil || d.Action != policy.Deny || d.Reason != "run_command was denied by the user" {
				t.Fatalf("Approve = %+v, %v; want the denial typed after the settle time\n%s", d, err, out.String())
			}
			if n := strings.Count(out.String(), "it came before you could read the question"); n != 3 {
				t.Errorf("%d lines reported ignored, want 3:\n%s", n, out.String())
			}
			// The session memory took nothing from the early "s".
			d, _ = c.Approve(context.Background(), call, askDecision(t, e, call))
			if d.Action == policy.Allow {
				t.Errorf("a later call was allowed by %s", d.Rule)
			}
		})
	}
}

// TestConsoleEnterAloneNeverApproves: empty lines (and blanks) are not
// an answer, and five of them deny.
func TestConsoleEnterAloneNeverApproves(t *testing.T) {
	e := newEngine(t, policy.PresetEditor, nil, nil, nil)
	call := runCall("go build ./...")
	var out bytes.Buffer
	c := closeAtEnd(t, Console(strings.NewReader("\n \n\r\n\t\n\n"), &out, ConsoleOptions{}))
	d, err := c.Approve(context.Background(), call, askDecision(t, e, call))
	if err != nil || d.Action != policy.Deny || d.Reason != "run_command was denied: no valid answer from the user" {
		t.Fatalf("Approve = %+v, %v", d, err)
	}
	if !strings.Contains(out.String(), "Enter alone does not answer") {
		t.Errorf("no word on Enter:\n%s", out.String())
	}
}

// TestConsoleShowsTheWholeCommand: a long command is wrapped at the
// width, never clipped, every control character escaped, so the part
// past the window (the reset at the end) is on screen.
func TestConsoleShowsTheWholeCommand(t *testing.T) {
	e := newEngine(t, policy.PresetEditor, nil, nil, nil)
	tail := " && git reset --hard HEAD~1"
	cmd := "echo " + strings.Repeat("x", 400-len("echo ")-len(tail)-len("\x1b]52;c;aGk=\x07")) + "\x1b]52;c;aGk=\x07" + tail
	for _, width := range []int{120, 80, 40, 20} {
		call := runCall(cmd)
		var out bytes.Buffer
		c := closeAtEnd(t, Console(strings.NewReader("n\n\n"), &out, ConsoleOptions{Width: width}))
		if d, _ := c.Approve(context.Background(), call, askDecision(t, e, call)); d.Action != policy.Deny {
			t.Fatalf("width %d: %+v", width, d)
		}
		text := out.String()
		for _, b := range []byte(text) {
			if (b < 0x20 && b != '\n') || b == 0x7f {
				t.Fatalf("width %d: raw control byte %#x in the prompt", width, b)
			}
		}
		var shown strings.Builder
		in := false
		for _, l := range strings.Split(text, "\n") {
			if rest, ok := strings.CutPrefix(l, "  command: "); ok {
				in = true
				shown.WriteString(rest)
			} else if rest, ok := strings.CutPrefix(l, "           "); ok && in {
				shown.WriteString(rest)
			} else {
				in = false
			}
			if in && len([]rune(l)) > max(width, len("  command: ")+10) {
				t.Errorf("width %d: line wider than the window: %q", width, l)
			}
		}
		if want := strings.ReplaceAll(cmd, "\x1b", `\x1b`); shown.String() != strings.ReplaceAll(want, "\x07", `\x07`) {
			t.Errorf("width %d: command shown as\n%q\nwant\n%q", width, shown.String(), want)
		}
	}
}
