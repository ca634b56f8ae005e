package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The call's context (callCtx) must behave as context.WithTimeout's
// would. FuzzCallCtx drives both through the same story — in a synctest
// bubble, so time and every goroutine are under the test's control — and
// compares everything a tool or a child context can see after each step.

// ctxView is what can be observed of a context.
type ctxView struct {
	Err, Cause string
	Done       bool
	Deadline   time.Time
	HasDL      bool
}

func viewOf(ctx context.Context) ctxView {
	v := ctxView{Err: errText(ctx.Err()), Cause: errText(context.Cause(ctx))}
	select {
	case <-ctx.Done():
		v.Done = true
	default:
	}
	v.Deadline, v.HasDL = ctx.Deadline()
	return v
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// pair is one context on each side: the reference (WithTimeout) and ours.
type pair struct{ ref, ours context.Context }

// story is one run of FuzzCallCtx.
type story struct {
	t            *testing.T
	ctxs         []pair
	stops        [][2]func() bool
	cancels      []context.CancelFunc
	refRan       []*atomic.Bool
	ourRan       []*atomic.Bool
	parentCancel context.CancelCauseFunc
	refCancel    context.CancelFunc
	release      chan struct{}
	invoked      chan struct{}
	released     bool
	timeout      time.Duration
}

var errParentCause = errors.New("the caller's own cause")

func (s *story) check(step string) {
	s.t.Helper()
	for i, p := range s.ctxs {
		if diff := cmp.Diff(viewOf(p.ref), viewOf(p.ours)); diff != "" {
			s.t.Fatalf("after %s, context %d differs (-WithTimeout +callCtx):\n%s", step, i, diff)
		}
	}
	for i := range s.refRan {
		if r, o := s.refRan[i].Load(), s.ourRan[i].Load(); r != o {
			s.t.Fatalf("after %s, AfterFunc %d ran: WithTimeout %v, callCtx %v", step, i, r, o)
		}
	}
}

// step performs one operation on both sides.
func (s *story) step(op, arg byte) string {
	p := s.ctxs[int(arg)%len(s.ctxs)]
	switch op % 8 {
	case 0:
		rc, rcancel := context.WithCancel(p.ref)
		oc, ocancel := context.WithCancel(p.ours)
		s.ctxs = append(s.ctxs, pair{rc, oc})
		s.cancels = append(s.cancels, rcancel, ocancel)
		if arg%3 == 0 {
			rcancel()
			ocancel()
		}
		return "WithCancel"
	case 1:
		d := s.timeout / time.Duration(2+arg%3)
		rc, rcancel := context.WithTimeout(p.ref, d)
		oc, ocancel := context.WithTimeout(p.ours, d)
		s.ctxs = append(s.ctxs, pair{rc, oc})
		s.cancels = append(s.cancels, rcancel, ocancel)
		return "WithTimeout"
	case 2:
		s.ctxs = append(s.ctxs, pair{context.WithValue(p.ref, ctxKey{}, 1), context.WithValue(p.ours, ctxKey{}, 1)})
		return "WithValue"
	case 3:
		r, o := new(atomic.Bool), new(atomic.Bool)
		s.refRan, s.ourRan = append(s.refRan, r), append(s.ourRan, o)
		rs := context.AfterFunc(p.ref, func() { r.Store(true) })
		os := context.AfterFunc(p.ours, func() { o.Store(true) })
		s.stops = append(s.stops, [2]func() bool{rs, os})
		return "AfterFunc"
	case 4:
		if len(s.stops) > 0 {
			st := s.stops[int(arg)%len(s.stops)]
			if r, o := st[0](), st[1](); r != o {
				s.t.Fatalf("AfterFunc's stop: WithTimeout %v, callCtx %v", r, o)
			}
		}
		return "stop"
	case 5:
		s.parentCancel(errParentCause)
		return "parent cancelled"
	case 6:
		time.Sleep(s.timeout / time.Duration(1+arg%4))
		return "time passed"
	default:
		if !s.released {
			s.released = true
			close(s.release)
			<-s.invoked
			s.refCancel()
		}
		return "call returned"
	}
}

type ctxKey struct{}

func FuzzCallCtx(f *testing.F) {
	for _, seed := range []string{
		"", "\x00\x00", "\x05\x00", "\x06\x00", "\x07\x00",
		"\x00\x00\x03\x01\x05\x00\x04\x00", "\x06\x00\x05\x00\x00\x01",
		"\x07\x00\x05\x00\x00\x00\x03\x00", "\x01\x00\x00\x01\x06\x01\x06\x00\x05\x00",
		"\x03\x00\x04\x00\x07\x00", "\x02\x00\x00\x01\x03\x02\x06\x00\x04\x00",
	} {
		f.Add(false, []byte(seed))
		f.Add(true, []byte(seed))
	}
	f.Fuzz(func(t *testing.T, workers bool, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		synctest.Test(t, func(t *testing.T) { runStory(t, workers, ops) })
	})
}

func runStory(t *testing.T, useWorkers bool, ops []byte) {
	const timeout = time.Minute
	parent, parentCancel := context.WithCancelCause(context.Background())
	defer parentCancel(nil)
	ref, refCancel := context.WithTimeout(parent, timeout)
	defer refCancel()
	s := &story{t: t, parentCancel: parentCancel, refCancel: refCancel, timeout: timeout,
		release: make(chan struct{}), invoked: make(chan struct{})}
	got := make(chan context.Context, 1)
	tl := callTool("story", func(ctx context.Context, _ json.RawMessage) (*Result, error) {
		got <- ctx
		<-s.release // the tool ignores its context: the worst case
		return &Result{Content: "done"}, nil
	})
	var w Workers
	opts := InvokeOptions{Timeout: timeout}
	if useWorkers {
		opts.Workers = &w
	}
	go func() {
		Invoke(parent, tl, nil, opts)
		close(s.invoked)
	}()
	s.ctxs = []pair{{ref, <-got}}
	s.check("the start")
	for i := 0; i+1 < len(ops); i += 2 {
		name := s.step(ops[i], ops[i+1])
		synctest.Wait() // every goroutine has done what the step set off
		s.check(fmt.Sprintf("step %d (%s)", i/2, name))
	}
	if !s.released {
		close(s.release)
	}
	<-s.invoked
	w.Close()
	for _, c := range s.cancels {
		c()
	}
}

func TestCauseKeyFound(t *testing.T) {
	if causeKey == nil {
		t.Fatal("context.Cause no longer asks Value for its key: callCtx cannot hide the parent's cause")
	}
}

// TestCallCtxCause: the cause of a call context that ended of its own
// accord (deadline, end of call) is its error, even after the parent is
// cancelled with a cause of its own; one ended by the parent has the
// parent's cause.
func TestCallCtxCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			name      string
			first     func(cancel context.CancelCauseFunc)
			wantCause error
		}{
			{"deadline first", func(context.CancelCauseFunc) { time.Sleep(2 * time.Second) }, context.DeadlineExceeded},
			{"parent first", func(cancel context.CancelCauseFunc) { cancel(errParentCause) }, errParentCause},
		} {
			parent, cancel := context.WithCancelCause(context.Background())
			got := make(chan context.Context, 1)
			release := make(chan struct{})
			tl := callTool("c", func(ctx context.Context, _ json.RawMessage) (*Result, error) {
				got <- ctx
				<-release
				return nil, nil
			})
			returned := make(chan *Result)
			go func() { returned <- Invoke(parent, tl, nil, InvokeOptions{Timeout: time.Second}) }()
			ctx := <-got
			tc.first(cancel)
			synctest.Wait()
			cancel(errors.New("later"))
			if c := context.Cause(ctx); !errors.Is(c, tc.wantCause) {
				t.Errorf("%s: Cause = %v, want %v", tc.name, c, tc.wantCause)
			}
			close(release)
			<-returned
		}
	})
}

// TestCallCtxChildNeedsNoGoroutine: a child of the call's context, and an
// AfterFunc on it, are cancelled with it without a goroutine that waits.
func TestCallCtxChildNeedsNoGoroutine(t *testing.T) {
	var before, after int
	var child context.Context
	var stops []context.CancelFunc
	defer func() {
		for _, s := range stops {
			s()
		}
	}()
	tl := callTool("c", func(ctx context.Context, _ json.RawMessage) (*Result, error) {
		before = runtime.NumGoroutine()
		var cancel context.CancelFunc
		child, cancel = context.WithCancel(ctx)
		stops = append(stops, cancel) // called only after the check
		context.AfterFunc(ctx, func() {})
		after = runtime.NumGoroutine()
		return nil, nil
	})
	Invoke(context.Background(), tl, nil, InvokeOptions{})
	if after != before {
		t.Errorf("deriving from the call's context started %d goroutines", after-before)
	}
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the child of the call's context was not cancelled when the call returned")
	}
	if !errors.Is(child.Err(), context.Canceled) {
		t.Errorf("child.Err() = %v", child.Err())
	}
}

// TestCallCtxCarriesTheCall: InvokeOptions' CallID and IdempotencyKey
// reach the tool as WithCall's would, and every other value of the
// caller's context too.
func TestCallCtxCarriesTheCall(t *testing.T) {
	type k struct{}
	var id, key string
	var v any
	tl := callTool("c", func(ctx context.Context, _ json.RawMessage) (*Result, error) {
		id, key, v = CallID(ctx), IdempotencyKey(ctx), ctx.Value(k{})
		return nil, nil
	})
	ctx := WithCall(context.WithValue(context.Background(), k{}, "v"), "outer", "outer-key")
	Invoke(ctx, tl, nil, InvokeOptions{CallID: "call_1", IdempotencyKey: "idem_1"})
	if id != "call_1" || key != "idem_1" || v != "v" {
		t.Errorf("id %q key %q value %v", id, key, v)
	}
	Invoke(ctx, tl, nil, InvokeOptions{})
	if id != "outer" || key != "outer-key" {
		t.Errorf("without options: id %q key %q; want the caller's", id, key)
	}
}
