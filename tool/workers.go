package tool

import (
	"context"
	"sync"
	"time"
)

// Workers keeps the goroutines Invoke runs calls on, so that a caller
// making many calls (the agent, once per tool call of a run) does not
// start a goroutine, and make its channel, for every one. The guarantees
// are Invoke's own: a call still runs off the caller's goroutine, and
// Invoke returns at the deadline even when the tool ignores its context —
// the goroutine it ran on is then given up, ends when the tool returns,
// and is never reused. The zero value is ready to use; it is safe for
// concurrent use, and keeps one goroutine per call that ran at the same
// time as others.
type Workers struct {
	mu     sync.Mutex
	idle   []*worker
	closed bool
}

// Close ends the idle goroutines and waits until they have ended. Calls
// in progress are not waited for: their goroutines end when the calls
// do. Invoke may still be given w after Close; each call then runs on a
// goroutine that ends with it.
func (w *Workers) Close() {
	w.mu.Lock()
	idle := w.idle
	w.idle, w.closed = nil, true
	w.mu.Unlock()
	for _, wk := range idle {
		close(wk.jobs)
	}
	for _, wk := range idle {
		<-wk.exited
	}
}

// get returns an idle worker, or a new one.
func (w *Workers) get() *worker {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		wk := w.idle[n-1]
		w.idle[n-1] = nil
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		return wk
	}
	w.mu.Unlock()
	wk := &worker{jobs: make(chan job, 1), done: make(chan struct{}, 1), exited: make(chan struct{})}
	go wk.loop()
	return wk
}

// put makes wk, whose last call Invoke has taken the outcome of, idle.
func (w *Workers) put(wk *worker) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		close(wk.jobs)
		return
	}
	w.idle = append(w.idle, wk)
	w.mu.Unlock()
}

// worker is one goroutine that runs calls, one at a time, until its jobs
// channel is closed or a call it ran was given up.
type worker struct {
	jobs   chan job
	done   chan struct{} // announces each call's outcome
	exited chan struct{} // closed when the goroutine ends
	tm     *time.Timer   // Invoke's timer for its calls (see timer)
}

// job is one call for a worker.
type job struct {
	ctx     context.Context
	call    caller
	name    string
	onPanic func(string, any, []byte)
}

func (wk *worker) loop() {
	defer close(wk.exited)
	for j := range wk.jobs {
		if !runCall(j.ctx, j.call, j.name, j.onPanic, wk.done) {
			return // given up: no one will make this worker idle again
		}
	}
}

// timer returns the worker's timer for Invoke's wait, set to fire after
// d: a timer per call would be two allocations. A worker's timer is
// made on the goroutine that made the worker, and only ever used for its
// calls, so it belongs to the same synctest bubble as they do (a timer
// shared across bubbles is a fatal error).
func (wk *worker) timer(d time.Duration) *time.Timer {
	if wk.tm == nil {
		wk.tm = time.NewTimer(d)
	} else {
		wk.tm.Reset(d)
	}
	return wk.tm
}

// stopTimer stops the worker's timer, and forgets it unless it is known
// to hold no pending tick — it was still pending, or its tick was
// received — so a reused timer never fires early whatever the program's
// timer semantics (GODEBUG asynctimerchan).
func (wk *worker) stopTimer(received bool) {
	if !wk.tm.Stop() && !received {
		wk.tm = nil
	}
}
