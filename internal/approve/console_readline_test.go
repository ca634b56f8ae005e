package approve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/reinharness/rein/policy"
)

// TestConsoleReadLineSharesInput checks ConsoleOptions.ReadLine: the
// approver takes exactly the lines it needs from the caller's line source
// and never reads its own input, so the lines after an answer stay with
// the caller (a chat REPL reading the same terminal).
func TestConsoleReadLineSharesInput(t *testing.T) {
	queue := []string{"n", "use make", "next chat line"}
	readLine := func(ctx context.Context) (string, error) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if len(queue) == 0 {
			return "", io.EOF
		}
		line := queue[0]
		queue = queue[1:]
		return line, nil
	}
	var out bytes.Buffer
	in := &countingReader{}
	c := closeAtEnd(t, Console(in, &out, ConsoleOptions{ReadLine: readLine}))
	e := newEngine(t, policy.PresetEditor, nil, nil, nil)
	call := runCall("go build ./...")
	d, err := c.Approve(context.Background(), call, askDecision(t, e, call))
	if err != nil || d.Action != policy.Deny || d.Reason != "run_command was denied by the user: use make" {
		t.Fatalf("Approve = %+v, %v; want the user's denial with its reason", d, err)
	}
	if len(queue) != 1 || queue[0] != "next chat line" {
		t.Errorf("the approver consumed %v; the caller's next line must be left", queue)
	}
	if in.reads != 0 {
		t.Errorf("the approver read its own input %d times despite ReadLine", in.reads)
	}
	// The end of the input denies, as with the approver's own reader.
	queue = nil
	d, err = c.Approve(context.Background(), call, askDecision(t, e, call))
	if err != nil || d.Action != policy.Deny || !strings.Contains(d.Reason, io.EOF.Error()) {
		t.Errorf("at end of input: %+v, %v", d, err)
	}
	// A cancelled prompt reports the context's error.
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Approve(cctx, call, askDecision(t, e, call)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

type countingReader struct{ reads int }

func (r *countingReader) Read([]byte) (int, error) {
	r.reads++
	return 0, io.EOF
}
