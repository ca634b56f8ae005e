package tui

import (
	"strings"
	"testing"
)

// TestScreenReplayAndModelSwitch shows a resumed session's transcript
// (the /resume and chat --continue replay) and then the status line
// after /model switched the model: the frame is the golden one, the
// answer is rendered markdown (no raw ** or #), and a control sequence
// in the stored text does not reach the terminal.
func TestScreenReplayAndModelSwitch(t *testing.T) {
	s := newScreen(t, 80, 24)
	s.send(ReplayMsg{
		Header: "resumed session s-42 \"fix the parser\" (updated 3h ago); its last 2 exchanges:",
		Exchanges: []Exchange{
			{User: "what does parse do?", Answer: "# Parse\n\nIt reads **tokens**.\n"},
			{User: "fix it\x1b[2J", Tools: []string{`edit_file {"path":"parse.go"}`}, Answer: "Done:\n\n- fixed the *loop*\n"},
		},
	})
	s.send(StatusMsg{Model: "llama-70b", Preset: "editor", Context: "3%", Tokens: "120/45", Session: "s-42"})
	s.golden("replay_model")
	f := s.frame()
	for _, raw := range []string{"**tokens**", "# Parse", "\x1b[2J"} {
		if strings.Contains(f, raw) {
			t.Errorf("frame shows %q raw:\n%s", raw, f)
		}
	}
	if !strings.Contains(f, `fix it\x1b[2J`) {
		t.Errorf("the escape in the stored message is not shown escaped:\n%s", f)
	}
	if !strings.Contains(s.live(), "llama-70b") {
		t.Errorf("status line lacks the new model:\n%s", s.live())
	}
}
