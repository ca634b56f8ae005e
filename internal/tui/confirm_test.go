package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestShiftTabAsksForTheNextMode: Shift+Tab emits ActionMode and leaves
// the input alone; plain Tab still completes.
func TestShiftTabAsksForTheNextMode(t *testing.T) {
	s := newScreen(t, 80, 24)
	s.typ("draft")
	s.press(tea.KeyTab, tea.ModShift)
	if len(s.actions) != 1 || s.actions[0].Kind != ActionMode {
		t.Fatalf("actions %+v, want one ActionMode", s.actions)
	}
	if got := s.m.input.Value(); got != "draft" {
		t.Errorf("input %q after Shift+Tab", got)
	}
}

// TestConfirmDialogSafety: keys typed as the question appears are
// ignored, Enter never answers, y after a pause says yes, n and Esc no;
// a withdrawn question closes.
func TestConfirmDialogSafety(t *testing.T) {
	ask := func(s *screen, id int) chan bool {
		reply := make(chan bool, 1)
		s.send(ConfirmMsg{ID: id, Title: "Switch to full mode?", Body: "commands run without asking", Yes: "switch to full", No: "stay in editor", Reply: reply})
		return reply
	}
	s := newScreen(t, 80, 24)
	reply := ask(s, 1)
	for _, r := range "yyy" {
		s.clock = s.clock.Add(100 * time.Millisecond)
		s.typ(string(r))
	}
	if len(reply) != 0 {
		t.Fatal("typing answered the question")
	}
	if f := s.frame(); !strings.Contains(f, "Switch to full mode?") || !strings.Contains(f, "[y] switch to full") || !strings.Contains(f, "ignored") {
		t.Errorf("frame:\n%s", f)
	}
	s.clock = s.clock.Add(approvalGuard)
	s.press(tea.KeyEnter, 0)
	if len(reply) != 0 {
		t.Fatal("Enter answered the question")
	}
	if !strings.Contains(s.frame(), "Enter alone does not answer") {
		t.Errorf("no hint after Enter:\n%s", s.frame())
	}
	s.typ("y")
	if !<-reply || s.m.confirm != nil {
		t.Fatal("y after a pause did not say yes")
	}
	for _, no := range []func(){func() { s.typ("n") }, func() { s.press(tea.KeyEscape, 0) }, func() { s.press('c', tea.ModCtrl) }} {
		reply = ask(s, 2)
		s.clock = s.clock.Add(approvalGuard)
		no()
		if <-reply {
			t.Error("a no key said yes")
		}
	}
	ask(s, 3)
	s.send(ConfirmWithdrawnMsg{ID: 3})
	if s.m.confirm != nil || strings.Contains(s.frame(), "Switch to full") {
		t.Error("the withdrawn question stays open")
	}
	// One question at a time: a second is refused, the first kept.
	first := ask(s, 4)
	second := ask(s, 5)
	if <-second || s.m.confirm == nil || s.m.confirm.req.ID != 4 || len(first) != 0 {
		t.Error("a second question replaced the first")
	}
}
