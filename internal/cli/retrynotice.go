package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/transport"
)

// retriesTo returns ctx whose model requests say on w, one line each,
// why the answer is late: "rein: rate limited (429), retrying in 3 s
// (attempt 2 of 4)". The line holds no text of the server's. w must be
// safe for concurrent writes (sub-agents' requests retry on their own
// goroutines); os.Stderr is.
func retriesTo(ctx context.Context, w io.Writer) context.Context {
	return transport.WithRetryObserver(ctx, func(r transport.Retry) {
		if worthSaying(r) {
			fmt.Fprintf(w, "rein: %s\n", r)
		}
	})
}

// worthSaying reports a retry the user should hear of: the server
// answered with an error (429, 5xx) or took too long. A refused
// connection is retried for a few seconds at most, and its one error,
// which says what to start, is clearer alone.
func worthSaying(r transport.Retry) bool {
	_, refused := errors.AsType[*model.ConnectError](r.Err)
	return !refused
}

// retriesToUI returns ctx whose model requests show their retries on the
// chat UI's working line, counting down to the next attempt.
func retriesToUI(ctx context.Context, f *tuiFront) context.Context {
	return transport.WithRetryObserver(ctx, func(r transport.Retry) {
		if !worthSaying(r) {
			return
		}
		f.send(tui.RetryMsg{Reason: r.Reason(), Until: time.Now().Add(r.Delay)})
	})
}
