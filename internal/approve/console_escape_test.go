package approve

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/policy"
)

// TestConsolePromptEscapesControls is the attack on the approval prompt:
// a command that returns the cursor, erases the line and writes a
// harmless one would read "ls -la" on a terminal. The prompt shows every
// control character escaped, and no raw control byte at all.
func TestConsolePromptEscapesControls(t *testing.T) {
	f := newConsoleFixture(t, "n\n\n")
	cmd := "python3 evil.py\r\x1b[2Kls -la \u202eevil\u200b\nsecond line"
	if d := f.approve(t, runCall(cmd)); d.Action != policy.Deny {
		t.Fatalf("decision: %+v", d)
	}
	out := f.out.String()
	if !strings.Contains(out, `command: python3 evil.py\r\x1b[2Kls -la \u202eevil\u200b\nsecond line`) {
		t.Errorf("the prompt does not show the command escaped:\n%q", out)
	}
	if !strings.Contains(out, "shown escaped") {
		t.Errorf("the prompt does not say characters are escaped:\n%q", out)
	}
	for _, r := range out {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' || r == '\u200b' {
			t.Errorf("the prompt holds the raw character %U:\n%q", r, out)
		}
	}
	// The reason quotes the command too; it is escaped alike.
	if strings.Contains(out, "\r") || strings.Contains(out, "\x1b") {
		t.Errorf("raw CR or ESC in the prompt: %q", out)
	}
}
