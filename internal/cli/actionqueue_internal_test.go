package cli

import (
	"testing"
	"testing/synctest"

	"github.com/reinharness/rein/internal/tui"
)

// TestActionQueueEndsWithTheUI checks that the queue's goroutine, one per
// chat UI, ends when the UI is closed (wake was never closed, so it lived
// on), after delivering what was pending and in order; pushes after close
// are dropped. synctest fails the test if the goroutine is left blocked.
func TestActionQueueEndsWithTheUI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []string
		var q actionQueue
		q.init(func(a tui.Action) { got = append(got, a.Text) })
		q.push(tui.Action{Kind: tui.ActionSend, Text: "one"})
		q.push(tui.Action{Kind: tui.ActionSend, Text: "two"})
		synctest.Wait()
		q.close()
		q.close() // twice is harmless
		q.push(tui.Action{Kind: tui.ActionSend, Text: "after"})
		synctest.Wait()
		if len(got) != 2 || got[0] != "one" || got[1] != "two" {
			t.Errorf("delivered %q; want [one two]", got)
		}
	})
}
