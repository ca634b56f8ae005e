package tool

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func idleWorkers(w *Workers) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.idle)
}

// TestWorkersReuse: calls one after another run on one goroutine; calls
// at the same time each on their own; Close ends the idle ones.
func TestWorkersReuse(t *testing.T) {
	var w Workers
	ok := Func("ok", "", func(context.Context, struct{}) (string, error) { return "ok", nil })
	for range 20 {
		if res := Invoke(context.Background(), ok, nil, InvokeOptions{Workers: &w}); res.Content != "ok" {
			t.Fatalf("result %+v", res)
		}
	}
	if n := idleWorkers(&w); n != 1 {
		t.Fatalf("%d idle workers after sequential calls; want 1", n)
	}
	const parallel = 4
	var started sync.WaitGroup
	started.Add(parallel)
	together := Func("together", "", func(context.Context, struct{}) (string, error) {
		started.Done()
		started.Wait() // all four run at once
		return "ok", nil
	})
	var calls sync.WaitGroup
	for range parallel {
		calls.Go(func() { Invoke(context.Background(), together, nil, InvokeOptions{Workers: &w}) })
	}
	calls.Wait()
	if n := idleWorkers(&w); n != parallel {
		t.Fatalf("%d idle workers after %d calls at once; want %d", n, parallel, parallel)
	}
	w.mu.Lock()
	idle := append([]*worker(nil), w.idle...)
	w.mu.Unlock()
	w.Close()
	for i, wk := range idle {
		select {
		case <-wk.exited:
		default:
			t.Errorf("worker %d still runs after Close returned", i)
		}
	}
	// After Close a call still runs, on a goroutine that ends with it.
	if res := Invoke(context.Background(), ok, nil, InvokeOptions{Workers: &w}); res.Content != "ok" {
		t.Fatalf("after Close: %+v", res)
	}
	if n := idleWorkers(&w); n != 0 {
		t.Errorf("%d idle workers after Close", n)
	}
}

// TestWorkersGiveUpAStuckCall: a call that ignores its context is given
// up at its deadline, its goroutine is never reused, and it ends when the
// tool returns; the next call gets a fresh goroutine and the full guards.
func TestWorkersGiveUpAStuckCall(t *testing.T) {
	var w Workers
	defer w.Close()
	release := make(chan struct{})
	stuckDone := make(chan struct{})
	stuck := callTool("stuck", func(context.Context, json.RawMessage) (*Result, error) {
		defer close(stuckDone)
		<-release
		return &Result{Content: "late"}, nil
	})
	start := time.Now()
	res := Invoke(context.Background(), stuck, nil, InvokeOptions{Timeout: 20 * time.Millisecond, Workers: &w})
	if want := (&Result{Content: `tool "stuck" timed out after 20ms`, IsError: true}); !cmp.Equal(want, res) {
		t.Fatalf("result %+v", res)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("Invoke did not return at the deadline")
	}
	if n := idleWorkers(&w); n != 0 {
		t.Fatalf("the stuck call's worker is idle again (%d idle)", n)
	}
	// The next calls time out on their own deadlines, not on a stale tick.
	slow := Func("slow", "", func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(30 * time.Millisecond):
			return "in time", nil
		}
	})
	for range 3 {
		if res := Invoke(context.Background(), slow, nil, InvokeOptions{Timeout: time.Minute, Workers: &w}); res.Content != "in time" {
			t.Fatalf("a call after the stuck one: %+v", res)
		}
	}
	close(release)
	<-stuckDone
}

// TestWorkersSurvivePanicsNotGoexit: a worker whose tool panicked is
// reused; one whose tool called runtime.Goexit has ended and is not.
func TestWorkersSurvivePanicsNotGoexit(t *testing.T) {
	var w Workers
	defer w.Close()
	panics := callTool("p", func(context.Context, json.RawMessage) (*Result, error) { panic("boom") })
	if res := Invoke(context.Background(), panics, nil, InvokeOptions{Workers: &w}); res.Content != `tool "p" panicked: boom` {
		t.Fatalf("result %+v", res)
	}
	if n := idleWorkers(&w); n != 1 {
		t.Fatalf("%d idle workers after a panic; want 1", n)
	}
	exits := callTool("g", func(context.Context, json.RawMessage) (*Result, error) {
		runtime.Goexit()
		return nil, nil
	})
	if res := Invoke(context.Background(), exits, nil, InvokeOptions{Workers: &w}); res.Content != `tool "g" stopped without returning a result` {
		t.Fatalf("result %+v", res)
	}
	if n := idleWorkers(&w); n != 0 {
		t.Fatalf("%d idle workers after Goexit; want 0", n)
	}
}

// TestInvokeAllocs guards Invoke's own allocations for a Func call on
// Workers: the call value (its input, context and outcome in one) and
// what decoding the arguments needs.
func TestInvokeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	var w Workers
	defer w.Close()
	tl := Func("noop", "", func(context.Context, calcIn) (string, error) { return "ok", nil })
	args := json.RawMessage(`{"expression":"1+1"}`)
	opts := InvokeOptions{Workers: &w, CallID: "call_1"}
	got := testing.AllocsPerRun(200, func() { Invoke(context.Background(), tl, args, opts) })
	t.Logf("%.1f allocations per call", got)
	if got > invokeAllocsLimit {
		t.Errorf("%.1f allocations per call; the limit is %d", got, invokeAllocsLimit)
	}
}

// invokeAllocsLimit is TestInvokeAllocs's budget (docs/performance.md).
const invokeAllocsLimit = 2
