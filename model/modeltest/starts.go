package modeltest

import (
	"iter"
	"testing"

	"github.com/reinharness/rein/model"
)

// CheckToolCallStarts passes a provider stream through, checking the
// contract of model.EventToolCallStart as it goes: a start carries an id, a
// name and no arguments, at most once per id and before the call it
// announces; the EventToolCall that follows has the same id and name. With
// required set, every call must have been announced (what streaming
// providers do). Failures are reported on t when the stream ends.
func CheckToolCallStarts(t testing.TB, seq iter.Seq2[model.Event, error], required bool) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		t.Helper()
		started := map[string]string{} // id → name, announced and not yet complete
		done := map[string]bool{}
		for ev, err := range seq {
			if err == nil {
				switch c := ev.ToolCall; ev.Kind {
				case model.EventToolCallStart:
					switch {
					case c == nil || c.ID == "" || c.Name == "" || c.Args != nil:
						t.Errorf("tool call start %+v: want an id, a name and no arguments", c)
					case done[c.ID] || started[c.ID] != "":
						t.Errorf("tool call %s announced twice or after it completed", c.ID)
					default:
						started[c.ID] = c.Name
					}
				case model.EventToolCall:
					name, ok := started[c.ID]
					switch {
					case ok && name != c.Name:
						t.Errorf("tool call %s announced as %q, completed as %q", c.ID, name, c.Name)
					case !ok && required:
						t.Errorf("tool call %s (%s) completed without a start event", c.ID, c.Name)
					}
					delete(started, c.ID)
					done[c.ID] = true
				}
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}
