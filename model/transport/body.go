package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reinharness/rein/model"
)

// idleBody wraps a response body with the streaming guarantees of Do: a
// read blocked longer than the idle timeout fails with ErrIdleTimeout,
// cancelling the caller's context unblocks a read at once, and Close
// releases the connection, the timer and the attempt's context.
//
// Read and Close may be called concurrently (Close from another goroutine
// aborts a blocked Read); Read itself must not be called concurrently.
type idleBody struct {
	call     *call           // the Do this body belongs to
	parent   context.Context // the caller's context
	actx     context.Context // the attempt's context
	cancel   context.CancelCauseFunc
	body     io.ReadCloser
	idle     time.Duration
	timer    *time.Timer
	fired    atomic.Bool
	stopCtx  func() bool // stops the context.AfterFunc that closes body
	once     sync.Once
	closeErr error
	// release frees the request deadline when a 2xx body, the end of its
	// request, is closed; nil for an error body read during retries.
	release func()

	provider, endpoint string
}

func newIdleBody(r *call, actx context.Context, cancel context.CancelCauseFunc, body io.ReadCloser, idle time.Duration, provider string) *idleBody {
	b := &idleBody{call: r, parent: r.parent, actx: actx, cancel: cancel, body: body, idle: idle, provider: provider, endpoint: r.ep}
	b.timer = time.AfterFunc(idle, func() {
		b.fired.Store(true)
		cancel(ErrIdleTimeout)
	})
	b.timer.Stop() // armed only while a Read is blocked
	// Closing the body is what reliably unblocks a Read for any
	// RoundTripper, so do it the moment the attempt's context ends
	// (caller cancellation or idle timeout).
	b.stopCtx = context.AfterFunc(actx, func() { b.body.Close() })
	return b
}

// Read reads from the response body, timing how long it waits.
func (b *idleBody) Read(p []byte) (int, error) {
	if b.fired.Load() {
		return 0, b.idleErr()
	}
	if err := b.stopped(); err != nil {
		return 0, err
	}
	b.timer.Reset(b.idle)
	n, err := b.body.Read(p)
	b.timer.Stop()
	if err == nil || err == io.EOF {
		return n, err
	}
	switch {
	case b.fired.Load():
		err = b.idleErr()
	case b.stopped() != nil:
		err = b.stopped()
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%s response from %s was cut off: %w", b.provider, b.endpoint, err)
	default:
		err = fmt.Errorf("%s response from %s: read failed: %w", b.provider, b.endpoint, err)
	}
	return n, err
}

// stopped returns the error of a read after the caller cancelled or the
// request deadline passed, nil while neither happened.
func (b *idleBody) stopped() error {
	switch {
	case b.parent.Err() != nil:
		return fmt.Errorf("%s response from %s: %w", b.provider, b.endpoint, b.parent.Err())
	case errors.Is(context.Cause(b.actx), ErrRequestTimeout):
		return b.call.deadlineError()
	}
	return nil
}

func (b *idleBody) idleErr() error {
	return &model.TimeoutError{
		Endpoint: b.endpoint, Setting: "model.idle_timeout", Limit: b.idle, Err: ErrIdleTimeout,
		Message: fmt.Sprintf("the model server at %s sent no data for %s in the middle of its answer (model.idle_timeout)", b.endpoint, b.idle),
	}
}

// Close releases the body, the connection and the attempt's context. It is
// idempotent and returns the first Close's result.
func (b *idleBody) Close() error {
	b.once.Do(func() {
		b.timer.Stop()
		b.stopCtx()
		// Close before cancelling: a fully read body then returns its
		// connection to the pool instead of having it torn down.
		b.closeErr = b.body.Close()
		b.cancel(nil)
		if b.release != nil {
			b.release() // the request is over: free its deadline
		}
	})
	return b.closeErr
}
