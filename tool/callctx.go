package tool

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// callCtx is the context one call runs under: the caller's context with
// the call's deadline and, when InvokeOptions names it, the call's
// identity (as WithCall carries it). It stands in for context.WithTimeout
// and WithCall, which cost six allocations per call (the timer context,
// its timer and callback, the cancel func, the Done channel, the values),
// and costs none: it lives in the call's own allocation, its Done channel
// is made only when someone asks for it, and its deadline is watched by
// Invoke's wait, on a pooled timer, rather than by a timer of its own.
//
// It keeps context.WithTimeout's contract: Done is closed and Err set
// once, when the deadline passes (DeadlineExceeded), when the parent is
// cancelled (the parent's error, and context.Cause gives the parent's
// cause) or when Invoke returns (Canceled); children derived from it are
// cancelled with it, without a goroutine, through the AfterFunc method
// the context package looks for. One difference is in timing only: the
// parent's cancellation reaches it when Invoke's wait sees the parent's
// Done channel, not inside the parent's cancel — as for any context type
// the context package does not know. Until then Err is nil and Done open,
// so the two never disagree.
type callCtx struct {
	parent   context.Context
	deadline time.Time
	// id and key are the call's identity; hasID says id was given.
	id, key string
	hasID   bool

	fired atomic.Bool // set once, after err and own
	err   error       // written before fired, read after it
	// own marks an end of the context's own making (deadline, the end of
	// the call), whose cause is its error, not the parent's cause.
	own  bool
	done atomic.Value // chan struct{}, made on demand

	mu     sync.Mutex // guards the making of done, afters and firing
	afters []*afterFunc
}

// afterFunc is a function registered with callCtx.AfterFunc.
type afterFunc struct{ f func() }

// closedChan is the Done channel of a context that was cancelled before
// anyone asked for it.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Deadline implements context.Context.
func (c *callCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// Done implements context.Context. The channel is made on the first call.
func (c *callCtx) Done() <-chan struct{} {
	if d, ok := c.done.Load().(chan struct{}); ok {
		return d
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.done.Load().(chan struct{}); ok {
		return d
	}
	d := closedChan
	if !c.fired.Load() {
		d = make(chan struct{})
	}
	c.done.Store(d)
	return d
}

// Err implements context.Context.
func (c *callCtx) Err() error {
	if c.fired.Load() {
		return c.err
	}
	return nil
}

// Value implements context.Context: the call's identity, and the parent's
// values otherwise — except that context.Cause, which looks for the
// nearest cancellation cause through Value, must not find the parent's
// once this context ended of its own accord: its cause is its error then,
// as a context.WithTimeout context's would be.
func (c *callCtx) Value(k any) any {
	switch k.(type) {
	case callIDKey:
		if c.hasID {
			return c.id
		}
	case idempotencyKey:
		if c.key != "" {
			return c.key
		}
	}
	if k == causeKey && c.fired.Load() && c.own {
		return nil
	}
	return c.parent.Value(k)
}

// String names the context as the context package's own do.
func (c *callCtx) String() string {
	parent := "context"
	if s, ok := c.parent.(fmt.Stringer); ok {
		parent = s.String()
	}
	return parent + ".WithDeadline(" + c.deadline.String() + " [" + time.Until(c.deadline).String() + "])"
}

// AfterFunc arranges for f to be called once c ends, and returns a
// function that cancels the arrangement (reporting whether it did). The
// context package uses it to cancel a child of c, and context.AfterFunc
// to start its function, without a goroutine that waits for c: f is
// called by the goroutine that ends c, after c's Done is closed, or on a
// goroutine of its own when c has ended already (the caller may hold the
// child's lock then).
func (c *callCtx) AfterFunc(f func()) func() bool {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.fired.Load() {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	c.afters = append(c.afters, a)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.afters, a)
		if i < 0 {
			return false
		}
		c.afters = slices.Delete(c.afters, i, i+1)
		return true
	}
}

// cancel ends c with err, once; own says the end is c's own (its deadline
// or the end of the call) rather than its parent's. Functions registered
// with AfterFunc run on this goroutine, after Done is closed.
func (c *callCtx) cancel(err error, own bool) {
	c.mu.Lock()
	if c.fired.Load() {
		c.mu.Unlock()
		return
	}
	c.err, c.own = err, own
	c.fired.Store(true)
	if d, ok := c.done.Load().(chan struct{}); ok {
		close(d)
	} else {
		c.done.Store(closedChan)
	}
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	for _, a := range afters {
		a.f()
	}
}

// causeKey is the key context.Cause asks a context's Value for to find
// the nearest cancellation cause (the context package's unexported
// &cancelCtxKey), learnt once by asking Cause about a probe. If a future
// context package stops asking, it is nil and callCtx.Value never
// matches it; TestCallCtxCause would then fail.
var causeKey = func() any {
	p := &keyProbe{Context: context.Background()}
	_ = context.Cause(p)
	return p.key
}()

// keyProbe is a cancelled context that records the first key it is asked.
type keyProbe struct {
	context.Context
	key any
}

func (p *keyProbe) Err() error { return context.Canceled }

func (p *keyProbe) Value(k any) any {
	if p.key == nil {
		p.key = k
	}
	return nil
}
