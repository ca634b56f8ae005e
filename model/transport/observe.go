package transport

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/reinharness/rein/model"
)

// Retry describes a failed attempt that Do is about to retry, for a front
// end to say why the answer is late ("rate limited, retrying in 3 s")
// instead of waiting in silence.
type Retry struct {
	// Endpoint is the cleaned endpoint (no credentials, query or fragment).
	Endpoint string
	// Attempt is the failed attempt, 1 for the first; MaxAttempts is how
	// many Do may make in all.
	Attempt, MaxAttempts int
	// Delay is the wait before the next attempt.
	Delay time.Duration
	// Err is the attempt's error: a *model.APIError (StatusCode says
	// which), a *model.ConnectError or a *model.TimeoutError. Its text is
	// the server's and may be long; String does not include it.
	Err error
}

// String says in one line what happened and what comes next:
// "rate limited (429), retrying in 3 s (attempt 2 of 4)".
func (r Retry) String() string {
	return fmt.Sprintf("%s, retrying in %s (attempt %d of %d)", r.Reason(), Seconds(r.Delay), r.Attempt+1, r.MaxAttempts)
}

// Reason names the failure: "rate limited (429)", "the model server is
// overloaded (529)", "the model server failed (503)", "cannot reach the
// model server", "no answer from the model server in time".
func (r Retry) Reason() string {
	if ae, ok := errors.AsType[*model.APIError](r.Err); ok {
		switch code := ae.StatusCode; {
		case code == 429:
			return "rate limited (429)"
		case code == 529:
			return "the model server is overloaded (529)"
		case code >= 500:
			return fmt.Sprintf("the model server failed (%d)", code)
		default:
			return fmt.Sprintf("the model server answered %d", code)
		}
	}
	if _, ok := errors.AsType[*model.TimeoutError](r.Err); ok {
		return "no answer from the model server in time"
	}
	return "cannot reach the model server"
}

// Seconds shows a wait the way a person reads it: "0.5 s" under a
// second, whole seconds (rounded up) above.
func Seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f s", max(d.Seconds(), 0.1))
	}
	return fmt.Sprintf("%d s", int(math.Ceil(d.Seconds())))
}

type retryObserverKey struct{}

// WithRetryObserver returns a context that makes Do call fn before each
// wait for a retry, on the goroutine that called Do. fn must return
// quickly and, when the context is shared by concurrent requests (a run's
// sub-agents), be safe for concurrent use. A nested observer replaces the
// outer one.
func WithRetryObserver(ctx context.Context, fn func(Retry)) context.Context {
	return context.WithValue(ctx, retryObserverKey{}, fn)
}

// observeRetry tells ctx's observer, if any, about r.
func observeRetry(ctx context.Context, r Retry) {
	if fn, ok := ctx.Value(retryObserverKey{}).(func(Retry)); ok && fn != nil {
		fn(r)
	}
}
