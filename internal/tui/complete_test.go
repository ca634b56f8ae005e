package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// tab presses Tab and returns the completion's result message, run as
// the program would run the command, off the UI's goroutine.
func (s *screen) tab() <-chan tea.Msg {
	s.t.Helper()
	cmd := s.m.key(tea.KeyPressMsg{Code: tea.KeyTab})
	if cmd == nil {
		s.t.Fatal("Tab asked for no completion")
	}
	out := make(chan tea.Msg, 1)
	go func() { out <- cmd() }()
	return out
}

// TestScreenCompleteAsync: Tab on what neither a slash command nor an
// @path completes asks Config.Complete off the UI's goroutine: one
// candidate completes the word and closes it, several are listed, a
// result for an input changed meanwhile is dropped, control characters
// in a candidate are escaped, and a source that does not answer costs
// the input nothing and ends in a note at CompleteTimeout.
func TestScreenCompleteAsync(t *testing.T) {
	const head = `/prompt everything completable-prompt {"department":"`
	s := newScreen(t, 100, 24)
	answers := map[string]Completion{
		head + "En":              {Start: len(head), Candidates: []string{"Engineering"}, End: `"`},
		head + `Sales","name":"`: {Start: len(head + `Sales","name":"`), Candidates: []string{"David", "Eve", "Frank"}, End: `"`},
		head + "Evil":            {Start: len(head), Candidates: []string{"Evil\x1b[2J\x07"}, End: `"`},
		head + "Sl":              {Start: len(head), Candidates: []string{"Slow"}, End: `"`},
	}
	release := make(chan struct{})
	s.m.cfg.Complete = func(ctx context.Context, line string) (Completion, error) {
		if strings.HasSuffix(line, "Sl") {
			<-release
		}
		if strings.HasSuffix(line, "hang") {
			<-ctx.Done()
			return Completion{}, ctx.Err()
		}
		return answers[line], nil
	}

	s.typ(head + "En")
	s.send(<-s.tab())
	if got := s.m.input.Value(); got != head+`Engineering"` {
		t.Errorf("one candidate: input %q", got)
	}

	s.m.input.Reset()
	s.typ(head + `Sales","name":"`)
	s.send(<-s.tab())
	if got := s.m.input.Value(); got != head+`Sales","name":"` {
		t.Errorf("several candidates changed the input to %q", got)
	}
	if last := s.scroll[len(s.scroll)-1]; !strings.Contains(last, "David  Eve  Frank") {
		t.Errorf("the candidates were not listed: %q", last)
	}

	s.m.input.Reset()
	s.typ(head + "Evil")
	s.send(<-s.tab())
	if got := s.m.input.Value(); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("a control character reached the input: %q", got)
	}

	s.m.input.Reset()
	s.typ(head + "Sl")
	res := s.tab()
	s.typ("ow") // typed while the source is still answering
	close(release)
	s.send(<-res)
	if got := s.m.input.Value(); got != head+"Slow" {
		t.Errorf("a stale completion was applied: input %q", got)
	}

	s.m.input.Reset()
	s.typ(head + "hang")
	start := time.Now()
	res = s.tab()
	s.typ("s") // the input takes keys while the source hangs
	if got := s.m.input.Value(); got != head+"hangs" {
		t.Errorf("typing during a completion: input %q", got)
	}
	s.m.input.SetValue(head + "hang")
	s.send(<-res)
	if d := time.Since(start); d < CompleteTimeout || d > CompleteTimeout+2*time.Second {
		t.Errorf("a hung source was given up after %v, want %v", d, CompleteTimeout)
	}
	if last := s.scroll[len(s.scroll)-1]; !strings.Contains(last, "(no completion: no answer within 3s)") {
		t.Errorf("the timeout was not shown: %q", last)
	}
}
