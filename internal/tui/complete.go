package tui

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/reinharness/rein/internal/termsafe"
)

// CompleteTimeout bounds one Config.Complete: a Tab that a slow server
// has not answered by then shows that it gave up, and the input never
// waits for it.
const CompleteTimeout = 3 * time.Second

// Completion is what Config.Complete offers for the input.
type Completion struct {
	// Start is the byte offset in the input where the completed word
	// begins; the word runs to the end of the input.
	Start int
	// Candidates replace the word (escaped as they are shown; the front
	// end keeps them to one line of text).
	Candidates []string
	// End follows a single candidate (a closing quote, a space).
	End string
}

// completedMsg carries a completion back to the UI's goroutine with the
// input it was asked for.
type completedMsg struct {
	line string
	c    Completion
	err  error
}

// completeAsync asks Config.Complete for line off the UI's goroutine.
func (m *Model) completeAsync(line string) tea.Cmd {
	complete := m.cfg.Complete
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), CompleteTimeout)
		defer cancel()
		c, err := complete(ctx, line)
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		return completedMsg{line: line, c: c, err: err}
	}
}

// completed applies a completion, unless the input changed since the Tab
// that asked for it (what was typed meanwhile wins) or a question opened.
func (m *Model) completed(msg completedMsg) {
	if m.input.Value() != msg.line || m.approval != nil || m.confirm != nil {
		return
	}
	if msg.err != nil {
		why := msg.err.Error()
		if errors.Is(msg.err, context.DeadlineExceeded) {
			why = "no answer within " + CompleteTimeout.String()
		}
		m.print(m.st.dim.Render("(no completion: " + termsafe.Line(why) + ")"))
		return
	}
	c := msg.c
	if c.Start < 0 || c.Start > len(msg.line) || len(c.Candidates) == 0 {
		return
	}
	cands := make([]string, 0, len(c.Candidates))
	for _, v := range c.Candidates {
		if v = termsafe.Line(v); v != "" && !strings.ContainsAny(v, "\n\r") {
			cands = append(cands, v)
		}
	}
	m.offer(msg.line, c.Start, cands, termsafe.Line(c.End))
}
