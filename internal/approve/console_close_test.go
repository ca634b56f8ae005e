package approve

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/reinharness/rein/policy"
)

// TestConsoleCloseReleasesTheReader checks that the approver's own reader
// goroutine does not outlive it: after an answer, the input's next lines
// have nobody to take them, and before Close the goroutine sat blocked
// handing one over for the rest of the process. synctest fails the test
// (deadlock) if any goroutine of the bubble is still blocked at its end.
func TestConsoleCloseReleasesTheReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := strings.NewReader("y\n" + strings.Repeat("keys typed for something else\n", 20))
		c := closeAtEnd(t, Console(in, io.Discard, ConsoleOptions{Settle: -1}))
		e := newEngine(t, policy.PresetEditor, nil, nil, nil)
		call := runCall("go build ./...")
		d, err := c.Approve(context.Background(), call, askDecision(t, e, call))
		if err != nil || d.Action != policy.Allow {
			t.Fatalf("Approve = %+v, %v; want allowed once", d, err)
		}
		synctest.Wait() // the reader now holds the next line
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil { // twice is fine
			t.Fatal(err)
		}
	})
}

// TestConsoleApproveAfterClose checks that a closed approver denies at
// once, as at the end of its input, without reading more of it.
func TestConsoleApproveAfterClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := strings.NewReader(strings.Repeat("y\n", 20))
		c := closeAtEnd(t, Console(in, io.Discard, ConsoleOptions{Settle: -1}))
		c.Close()
		e := newEngine(t, policy.PresetEditor, nil, nil, nil)
		call := runCall("go build ./...")
		d, err := c.Approve(context.Background(), call, askDecision(t, e, call))
		if err != nil || d.Action != policy.Deny || !strings.Contains(d.Reason, "input closed") {
			t.Errorf("Approve after Close = %+v, %v; want denied, input closed", d, err)
		}
	})
}
