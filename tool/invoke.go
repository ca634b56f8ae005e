package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// DefaultTimeout bounds a tool call when neither InvokeOptions nor the tool
// sets a timeout.
const DefaultTimeout = 2 * time.Minute

// InvokeOptions configures Invoke. The zero value uses the defaults.
type InvokeOptions struct {
	// Timeout bounds the call; zero means DefaultTimeout. A tool that
	// implements Timeouter with a positive value overrides it.
	Timeout time.Duration
	// MaxResultBytes caps the result's Content (see Truncate); zero means
	// DefaultMaxResultBytes, negative means no cap.
	MaxResultBytes int
	// OnPanic, if set, receives a panicking tool's value and stack so they
	// can be logged; the model only ever sees the value. It is called on
	// the tool's goroutine and must not block for long.
	OnPanic func(name string, v any, stack []byte)
	// CallID, when not empty, and IdempotencyKey, when not empty, are
	// carried by the call's context as WithCall carries them — without
	// the allocation WithCall makes, for a caller that invokes many calls.
	CallID, IdempotencyKey string
	// Workers, when set, runs the call on one of its goroutines instead
	// of a fresh one (see Workers).
	Workers *Workers
}

// Invoke calls t with args under the harness's guards and always returns a
// result the model can see; it never returns nil and never panics:
//
//   - the call runs with a timeout; when it expires Invoke returns at once,
//     even if the tool ignores ctx (the call's goroutine is abandoned and
//     ends when the tool returns);
//   - a panic becomes an is_error result naming the panic value, never the
//     stack (see InvokeOptions.OnPanic);
//   - an error from Call becomes an is_error result with its text, and a
//     nil result with a nil error an empty success;
//   - the Content is capped at MaxResultBytes with an explicit marker.
//
// The returned Result is a copy the caller owns. Invoke is safe for
// concurrent use; whether t is, is t's contract.
func Invoke(ctx context.Context, t Tool, args json.RawMessage, opts InvokeOptions) *Result {
	spec, ok := safeSpec(t)
	if !ok {
		return ErrorResult("tool call failed: the tool is missing or its description panicked")
	}
	maxBytes := opts.MaxResultBytes
	if maxBytes == 0 {
		maxBytes = DefaultMaxResultBytes
	}
	res := invoke(ctx, t, spec, args, effectiveTimeout(t, opts.Timeout), &opts)
	capResult(res, maxBytes)
	return res
}

// outcome is what the call goroutine reports.
type outcome struct {
	res      *Result
	err      error
	panicked bool
	value    any
	exited   bool // runtime.Goexit: the tool never returned
	fresh    bool // res was allocated for this call and is shared with no one
}

// caller is one call ready to run. An interface rather than a closure:
// the value that carries the call's arguments is then the only allocation.
type caller interface {
	// call runs it; fresh reports that res was allocated by this call
	// and no one else holds it, so Invoke need not copy it.
	call(ctx context.Context) (res *Result, fresh bool, err error)
	// slot is where the call's context and outcome live.
	slot() *callSlot
}

// callSlot is embedded in every caller: the call's context and outcome
// then live in the allocation the call already makes.
type callSlot struct {
	o outcome
	// state settles who owns the outcome: the goroutine that ran the
	// call announces it (slotFinished), or Invoke gave up waiting
	// (slotAbandoned) and no one will read it.
	state atomic.Uint32
	ctx   callCtx
}

const (
	slotRunning = iota
	slotFinished
	slotAbandoned
)

func (s *callSlot) slot() *callSlot { return s }

// plainCall is a Tool's own Call.
type plainCall struct {
	callSlot
	t    Tool
	args json.RawMessage
}

func (c *plainCall) call(ctx context.Context) (*Result, bool, error) {
	res, err := c.t.Call(ctx, c.args)
	return res, false, err
}

func invoke(ctx context.Context, t Tool, spec Spec, args json.RawMessage, timeout time.Duration, opts *InvokeOptions) *Result {
	name, onPanic := spec.Name, opts.OnPanic
	if err := ctx.Err(); err != nil {
		return ErrorResult("tool %q was not run: %v", name, err)
	}
	var call caller
	if p, ok := t.(preparer); ok {
		run, early, pv := safePrepare(p, args, name, onPanic)
		switch {
		case pv != nil:
			return ErrorResult("tool %q panicked while reading its arguments: %s", name, clip(fmt.Sprint(pv), 1024))
		case early != nil:
			r := *early
			return &r
		}
		call = run
	} else {
		call = &plainCall{t: t, args: args}
	}
	slot := call.slot()
	cc := &slot.ctx
	cc.parent, cc.id, cc.hasID, cc.key = ctx, opts.CallID, opts.CallID != "", opts.IdempotencyKey
	cc.deadline = time.Now().Add(timeout)
	// Like context.WithDeadline: an earlier deadline of the caller's is
	// the call's, and the caller's context reports it when it passes.
	own := true
	if d, ok := ctx.Deadline(); ok && d.Before(cc.deadline) {
		cc.deadline, own = d, false
	}
	if _, ok := t.(Inline); ok {
		// The tool's own engine bounds the call; a goroutine here would
		// take it off the coroutine that engine schedules.
		if opts.CallID != "" {
			ctx = WithCall(ctx, opts.CallID, opts.IdempotencyKey)
		}
		runCall(ctx, call, name, onPanic, make(chan struct{}, 1))
		return settle(ctx, spec, timeout, slot.o, slot.o.failed() && cc.expired(ctx))
	}
	defer cc.cancel(context.Canceled, true) // as WithTimeout's cancel: the call is over

	var done chan struct{}
	var wk *worker
	if opts.Workers != nil {
		wk = opts.Workers.get()
		done = wk.done
		wk.jobs <- job{ctx: cc, call: call, name: name, onPanic: onPanic}
	} else {
		done = make(chan struct{}, 1)
		go runCall(cc, call, name, onPanic, done)
	}
	if !wait(ctx, cc, slot, done, wk, timeout, own) {
		return interrupted(ctx, spec, timeout)
	}
	if wk != nil && !slot.o.exited {
		opts.Workers.put(wk) // Goexit ended its goroutine
	}
	return settle(ctx, spec, timeout, slot.o, slot.o.failed() && cc.expired(ctx))
}

// wait waits for the call's outcome, its deadline (own: on a timer, the
// worker's if wk is set) or the caller's cancellation, and ends cc for
// the latter two. It reports whether the outcome arrived; false means the
// call was given up.
func wait(ctx context.Context, cc *callCtx, slot *callSlot, done <-chan struct{}, wk *worker, timeout time.Duration, own bool) bool {
	var tick <-chan time.Time
	received := false
	if own {
		if wk != nil {
			tick = wk.timer(timeout).C
			defer func() { wk.stopTimer(received) }()
		} else {
			t := time.NewTimer(timeout)
			defer t.Stop()
			tick = t.C
		}
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		cc.cancel(ctx.Err(), false)
	case <-tick: // nil, never ready, when the caller's deadline comes first
		received = true
		cc.cancel(context.DeadlineExceeded, true)
	}
	if slot.state.CompareAndSwap(slotRunning, slotAbandoned) {
		return false
	}
	<-done // finished at the same moment: keep its result
	return true
}

// failed reports an outcome that is a failure the tool reported.
func (o *outcome) failed() bool { return o.err != nil || (o.res != nil && o.res.IsError) }

// expired reports whether the call's time is up or the caller cancelled:
// a failure then is reported as that cause, not as the tool's echo of
// ctx.Err().
func (c *callCtx) expired(parent context.Context) bool {
	return c.Err() != nil || parent.Err() != nil || !time.Now().Before(c.deadline)
}

// settle turns an outcome into the caller's result; cut says the call's
// deadline or the caller's cancellation came first.
func settle(ctx context.Context, spec Spec, timeout time.Duration, o outcome, cut bool) *Result {
	name := spec.Name
	switch {
	case o.panicked:
		return ErrorResult("tool %q panicked: %s", name, clip(fmt.Sprint(o.value), 1024))
	case o.exited:
		return ErrorResult("tool %q stopped without returning a result", name)
	case cut:
		return interrupted(ctx, spec, timeout)
	}
	if o.err != nil {
		msg := o.err.Error()
		if msg == "" {
			msg = fmt.Sprintf("tool %q failed without a message", name)
		}
		return &Result{Content: msg, IsError: true}
	}
	if o.res == nil {
		return &Result{}
	}
	if o.fresh {
		return o.res // made for this call alone: already the caller's
	}
	r := *o.res
	return &r
}

// runCall runs one call, turning panics and Goexit into an outcome, which
// it announces on done unless Invoke gave the call up; it reports whether
// it announced it.
func runCall(ctx context.Context, call caller, name string, onPanic func(string, any, []byte), done chan<- struct{}) (announced bool) {
	slot := call.slot()
	returned := false
	defer func() {
		if returned {
			return
		}
		v := recover()
		if v == nil {
			slot.o = outcome{exited: true}
		} else {
			if onPanic != nil {
				reportPanic(onPanic, name, v, debug.Stack())
			}
			slot.o = outcome{panicked: true, value: v}
		}
		announced = slot.announce(done)
	}()
	res, fresh, err := call.call(ctx)
	returned = true
	slot.o = outcome{res: res, err: err, fresh: fresh}
	return slot.announce(done)
}

// announce hands the outcome to Invoke, unless Invoke gave up on it.
func (s *callSlot) announce(done chan<- struct{}) bool {
	if !s.state.CompareAndSwap(slotRunning, slotFinished) {
		return false
	}
	done <- struct{}{}
	return true
}

// Inline is implemented by tools that Invoke must call on the caller's
// goroutine, without its timeout: stubs of a durable-execution engine
// (engine/temporal) whose calls are activities the engine times out and
// cancels itself, and which may only block on the coroutine that engine
// scheduled. Panics are still recovered and results still capped.
type Inline interface {
	Tool
	// InlineCall marks the tool; it is never called.
	InlineCall()
}

// preparer is implemented by tools (Func) that can check and decode their
// arguments before the call proper, on the caller's goroutine. A non-nil
// early result ends the call without running it.
type preparer interface {
	prepare(args json.RawMessage) (run caller, early *Result)
}

// safePrepare runs prepare, returning a panic's value instead of
// propagating it (and reporting it to onPanic with its stack).
func safePrepare(p preparer, args json.RawMessage, name string, onPanic func(string, any, []byte)) (run caller, early *Result, panicked any) {
	defer func() {
		if v := recover(); v != nil {
			if onPanic != nil {
				reportPanic(onPanic, name, v, debug.Stack())
			}
			run, early, panicked = nil, nil, v
		}
	}()
	run, early = p.prepare(args)
	return run, early, nil
}

// reportPanic calls the OnPanic hook, shielding Invoke from a hook that
// itself panics.
func reportPanic(hook func(string, any, []byte), name string, v any, stack []byte) {
	defer func() { _ = recover() }()
	hook(name, v, stack)
}

// interrupted is the result for a call cut off by its timeout or by the
// caller's cancellation.
func interrupted(ctx context.Context, spec Spec, timeout time.Duration) *Result {
	if err := ctx.Err(); err != nil {
		return ErrorResult("tool %q was cancelled: %v", spec.Name, err)
	}
	r := ErrorResult("tool %q timed out after %v", spec.Name, timeout)
	if spec.Effects.Mutating() {
		r.Content += "; it may still complete in the background, so check its effects before calling it again"
	}
	return r
}

// effectiveTimeout picks the tool's own timeout, then the option, then the
// default.
func effectiveTimeout(t Tool, opt time.Duration) time.Duration {
	if tt, ok := t.(Timeouter); ok {
		if d := safeTimeout(tt); d > 0 {
			return d
		}
	}
	if opt > 0 {
		return opt
	}
	return DefaultTimeout
}

func safeTimeout(tt Timeouter) (d time.Duration) {
	defer func() {
		if recover() != nil {
			d = 0
		}
	}()
	return tt.Timeout()
}

// safeSpec returns t's Spec, or false if t is nil or Spec panics.
func safeSpec(t Tool) (s Spec, ok bool) {
	if t == nil {
		return Spec{}, false
	}
	defer func() {
		if recover() != nil {
			s, ok = Spec{}, false
		}
	}()
	return t.Spec(), true
}

type idempotencyKey struct{}

// WithIdempotencyKey returns a context carrying the idempotency key the
// agent assigned to a call. Mutating tools and MCP calls read it with
// IdempotencyKey so a retried or replayed call can be recognised and not
// applied twice.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// IdempotencyKey returns the key set by WithIdempotencyKey, or "".
func IdempotencyKey(ctx context.Context) string {
	k, _ := ctx.Value(idempotencyKey{}).(string)
	return k
}
