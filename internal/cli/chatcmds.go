package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/workspace"
)

// diff is /diff: the session's file changes as one unified diff on
// stdout (it is data the user may keep), or a note on stderr when there
// are none.
func (s *chatSession) diff() {
	d := s.ws.Diff()
	if d == "" {
		fmt.Fprintln(s.app.Stderr, "(no file changes in this session)")
		return
	}
	if !strings.HasSuffix(d, "\n") {
		d += "\n"
	}
	io.WriteString(s.app.Stdout, termsafe.Text(s.ex.scrub(d)))
}

// undo is /undo: it undoes every change of the newest tool call that
// changed files, reports what it restored, and arranges for the model to
// be told with the next message, so it does not build on edits that are
// gone.
func (s *chatSession) undo() {
	errw := s.app.Stderr
	last := lastCallChanges(s.ws.Changes())
	if len(last) == 0 {
		fmt.Fprintln(errw, "(nothing to undo: no tool call changed files in this session)")
		return
	}
	n, err := s.ws.UndoCalls(1)
	if n > 0 {
		// Undo works newest first: the undone changes are the newest n.
		lines := describeUndone(last[len(last)-n:])
		call := s.describeCall(last[0].CallID)
		fmt.Fprintf(errw, "undid %s of %s:\n", plural(n, "change"), termsafe.Line(s.ex.scrub(call)))
		for _, l := range lines {
			fmt.Fprintf(errw, "  %s\n", termsafe.Line(s.ex.scrub(l)))
		}
		s.note = fmt.Sprintf("[Note from rein: the user undid the file changes of %s (%s). Those files are back to their earlier state; read them again before changing them.]",
			call, strings.Join(lines, "; "))
	}
	if err != nil {
		fmt.Fprintf(errw, "rein: /undo stopped: %s\n", termsafe.Line(s.ex.scrub(oneLine(err.Error()))))
	}
}

// callRef names a tool call for messages.
type callRef struct{ id, name string }

// remember notes which tool call a mutating call's idempotency key
// belongs to: the journal records changes by that key.
func (s *chatSession) remember(ev agent.Event) {
	if ev.Type != agent.EventToolCall || ev.IdempotencyKey == "" || ev.ToolCall == nil {
		return
	}
	if s.calls == nil {
		s.calls = map[string]callRef{}
	}
	s.calls[ev.IdempotencyKey] = callRef{id: ev.ToolCall.ID, name: ev.ToolCall.Name}
}

// describeCall names the call that made changes recorded under key.
func (s *chatSession) describeCall(key string) string {
	if c, ok := s.calls[key]; ok {
		return fmt.Sprintf("the %s call %s", c.name, c.id)
	}
	return "the last tool call"
}

// lastCallChanges returns the journal's trailing changes made by the
// newest call, oldest first.
func lastCallChanges(changes []workspace.Change) []workspace.Change {
	if len(changes) == 0 {
		return nil
	}
	id := changes[len(changes)-1].CallID
	i := len(changes) - 1
	for i > 0 && changes[i-1].CallID == id {
		i--
	}
	return changes[i:]
}

// describeUndone says per file what undoing changes (oldest first) did.
func describeUndone(changes []workspace.Change) []string {
	type span struct{ before, after workspace.State }
	byPath := map[string]*span{}
	var order []string
	for _, c := range changes {
		if sp, ok := byPath[c.Path]; ok {
			sp.after = c.After
			continue
		}
		byPath[c.Path] = &span{c.Before, c.After}
		order = append(order, c.Path)
	}
	out := make([]string, 0, len(order))
	for _, p := range order {
		sp := byPath[p]
		switch {
		case !sp.before.Exists:
			out = append(out, "removed "+p+" (the call created it)")
		case !sp.after.Exists:
			out = append(out, "restored "+p+" (the call deleted it)")
		default:
			out = append(out, "restored "+p)
		}
	}
	return out
}

// plural formats n and a noun with an English plural.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
