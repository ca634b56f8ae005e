package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"
)

// openDialog opens an approval dialog on s and returns its reply channel.
func openDialog(s *screen, req ApprovalRequest) chan ApprovalReply {
	reply := make(chan ApprovalReply, 1)
	s.send(TurnMsg{Running: true})
	s.send(ApprovalMsg{Request: req, Reply: reply})
	return reply
}

// noReply fails if the dialog answered.
func noReply(t *testing.T, reply chan ApprovalReply, what string) {
	t.Helper()
	select {
	case r := <-reply:
		t.Fatalf("%s answered the dialog: %+v", what, r)
	default:
	}
}

// TestApprovalIgnoresTypingThatWasNotForIt types, at typing speed, text
// full of answer letters right as the dialog appears: none answers, and
// the dialog stays deaf while typing goes on. After a pause a key counts.
func TestApprovalIgnoresTypingThatWasNotForIt(t *testing.T) {
	for _, text := range []string{"as you said before", "yes", "y", "s", "a", "n", "always", "\r"} {
		t.Run(fmt.Sprintf("%q", text), func(t *testing.T) {
			s := newScreen(t, 80, 24)
			reply := openDialog(s, ApprovalRequest{ID: 3, Tool: "run_command", Command: "git reset --hard", CanAlways: true})
			for i := 0; i < 3; i++ { // typing goes on past the guard
				for _, r := range text {
					s.clock = s.clock.Add(120 * time.Millisecond)
					if r == '\r' {
						s.press(tea.KeyEnter, 0)
					} else {
						s.typ(string(r))
					}
				}
			}
			noReply(t, reply, "typing")
			if !strings.Contains(s.frame(), "keys typed now are ignored") {
				t.Errorf("the dialog does not say it ignores keys:\n%s", s.frame())
			}
			s.clock = s.clock.Add(approvalGuard)
			s.typ("n")
			s.press(tea.KeyEnter, 0)
			if got := <-reply; got != (ApprovalReply{ID: 3, Choice: ChoiceDeny}) {
				t.Errorf("reply after a pause: %+v", got)
			}
		})
	}
}

// TestApprovalEnterAloneNeverAnswers presses Enter on an armed dialog.
func TestApprovalEnterAloneNeverAnswers(t *testing.T) {
	s := newScreen(t, 80, 24)
	reply := openDialog(s, ApprovalRequest{ID: 1, Tool: "run_command", Command: "make deploy"})
	s.clock = s.clock.Add(time.Second)
	for i := 0; i < 5; i++ {
		s.press(tea.KeyEnter, 0)
		s.send(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift})
		s.send(tea.KeyPressMsg{Code: tea.KeyKpEnter})
	}
	noReply(t, reply, "Enter")
	if !strings.Contains(s.frame(), "Enter alone does not answer") {
		t.Errorf("no hint after Enter:\n%s", s.frame())
	}
	s.typ("y")
	if got := <-reply; got.Choice != ChoiceOnce {
		t.Errorf("y: %+v", got)
	}
}

// TestApprovalCtrlCDeniesAtOnce: the way out works even while the dialog
// ignores keys (a denial cannot run anything).
func TestApprovalCtrlCDeniesAtOnce(t *testing.T) {
	s := newScreen(t, 80, 24)
	reply := openDialog(s, ApprovalRequest{ID: 2, Tool: "run_command", Command: "rm -rf build"})
	s.press('c', tea.ModCtrl)
	if got := <-reply; got.Choice != ChoiceDeny {
		t.Errorf("ctrl+c: %+v", got)
	}
	if diff := cmp.Diff([]Action{{Kind: ActionCancel}}, s.actions); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
}

// dialogText is the text inside the dialog's border, line by line.
func dialogText(s *screen) []string {
	var out []string
	for _, l := range strings.Split(stripANSI(s.m.View().Content), "\n") {
		if strings.HasPrefix(l, "│ ") && strings.HasSuffix(l, " │") {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(l, "│ "), " │"))
		}
	}
	return out
}

// seen collects the body lines the dialog shows while the user scrolls to
// the end with key, and reports whether a note said text was hidden.
func seen(t *testing.T, s *screen, key tea.KeyPressMsg, isBody func(string) bool) (lines []string, noted bool) {
	t.Helper()
	have := map[string]bool{}
	for i := 0; i < 500; i++ {
		before := len(have)
		for _, l := range dialogText(s) {
			if strings.Contains(l, "hidden, of") {
				noted = true
			}
			if isBody(l) && !have[l] {
				have[l] = true
				lines = append(lines, l)
			}
		}
		s.send(key)
		if i > 0 && len(have) == before && !strings.Contains(strings.Join(dialogText(s), "\n"), "below") {
			break
		}
	}
	return lines, noted
}

// TestApprovalShowsTheWholeCommand: a 400-character command whose
// dangerous end lies past any window width is wrapped, never clipped, at
// every width, including after a resize.
func TestApprovalShowsTheWholeCommand(t *testing.T) {
	cmd := "echo " + strings.Repeat("harmless-looking ", 22) + "&& git reset --hard HEAD~1"
	cmd = cmd[:400-len(" && git reset --hard HEAD~1")] + " && git reset --hard HEAD~1"
	for _, w := range []int{120, 80, 40, 24} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			s := newScreen(t, 200, 50)
			reply := openDialog(s, ApprovalRequest{ID: 1, Tool: "run_command", Command: cmd})
			s.send(tea.WindowSizeMsg{Width: w, Height: 50})
			var shown strings.Builder
			for _, l := range dialogText(s) {
				if c, ok := strings.CutPrefix(strings.TrimRight(l, " "), "  $ "); ok {
					shown.WriteString(c)
				} else if c, ok := strings.CutPrefix(l, "    "); ok && shown.Len() > 0 {
					shown.WriteString(strings.TrimRight(c, " "))
				}
			}
			// Trailing spaces of a wrapped part are trimmed above; compare
			// without spaces, then check the ending verbatim.
			if got, want := strings.ReplaceAll(shown.String(), " ", ""), strings.ReplaceAll(cmd, " ", ""); got != want {
				t.Errorf("width %d: the command shown is\n%s\nwant\n%s", w, got, want)
			}
			if !strings.Contains(strings.Join(dialogText(s), ""), "HEAD~1") {
				t.Errorf("width %d: the end of the command is not on screen", w)
			}
			noReply(t, reply, "resize")
		})
	}
}

// TestApprovalScrollsALongDiff: every line of a 300-line diff can be
// brought into view, the dialog says how much is hidden, and a resize
// keeps it so.
func TestApprovalScrollsALongDiff(t *testing.T) {
	var b strings.Builder
	b.WriteString("--- a/x.go\n+++ b/x.go\n@@ -1,300 +1,300 @@\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "+line %03d of the new file\n", i)
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}, {30, 12}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			s := newScreen(t, 80, 24)
			reply := openDialog(s, ApprovalRequest{ID: 1, Tool: "write_file", Diff: b.String()})
			s.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			s.clock = s.clock.Add(approvalGuard)
			isBody := func(l string) bool { return strings.HasPrefix(l, "+line ") || strings.HasPrefix(l, "+ of") }
			lines, noted := seen(t, s, tea.KeyPressMsg{Code: tea.KeyPgDown}, isBody)
			if !noted {
				t.Errorf("the dialog never said text was hidden")
			}
			all := strings.Join(lines, "\n")
			for i := 0; i < 300; i++ {
				if !strings.Contains(strings.ReplaceAll(all, "\n+", ""), fmt.Sprintf("line %03d", i)) {
					t.Fatalf("line %d of the diff was never shown (saw %d lines)", i, len(lines))
				}
			}
			s.send(tea.KeyPressMsg{Code: tea.KeyHome})
			if !strings.Contains(strings.Join(dialogText(s), "\n"), "line 000") {
				t.Errorf("Home did not go back to the start")
			}
			noReply(t, reply, "scrolling")
		})
	}
}
