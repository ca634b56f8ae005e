package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"
)

// Clock tells the time stamped on events. Implementations must be safe for
// concurrent use. Replaying a run bit-for-bit needs a deterministic Clock.
type Clock interface {
	Now() time.Time
}

// IDs mints identifiers: run ids ("run") and idempotency keys ("idem") for
// mutating tool calls, and replacement tool-call ids ("call") when a model
// repeats or omits one. Implementations must be safe for concurrent use and
// must not return the same id twice for one prefix.
type IDs interface {
	NewID(prefix string) string
}

// FanOut runs fn(ctx, 0) … fn(ctx, n-1) with at most limit of them running
// at once and returns when all have returned, with their effects visible to
// the caller (as a sync.WaitGroup guarantees). fn must be called exactly
// once per index, with ctx or a context derived from it: the call runs
// under that context, so a durable-execution engine that runs each call
// on a coroutine of its own can hand it the values that coroutine needs
// (engine/temporal passes its workflow context that way). The agent
// already checks ctx inside fn, so a FanOut may ignore its cancellation.
// Implementations must be safe for concurrent use.
type FanOut interface {
	Run(ctx context.Context, n, limit int, fn func(ctx context.Context, i int))
}

// Sequential is a FanOut that runs the calls one after another on the
// caller's goroutine: deterministic order, no goroutines.
type Sequential struct{}

// Run implements FanOut.
func (Sequential) Run(ctx context.Context, n, _ int, fn func(ctx context.Context, i int)) {
	for i := range n {
		fn(ctx, i)
	}
}

// goroutines is the default FanOut: up to limit worker goroutines pull
// indices from a shared counter. A single call runs on the caller's
// goroutine, so the common one-tool turn spawns nothing.
type goroutines struct{}

func (goroutines) Run(ctx context.Context, n, limit int, fn func(ctx context.Context, i int)) {
	if limit <= 0 || limit > n {
		limit = n
	}
	if limit <= 1 {
		Sequential{}.Run(ctx, n, limit, fn)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range limit {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(ctx, i)
			}
		})
	}
	wg.Wait()
}

// systemClock is the default Clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// randomIDs is the default IDs: prefix, an underscore and 128 random bits in
// hex, so ids from different processes never collide.
type randomIDs struct{}

func (randomIDs) NewID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	var out [32]byte
	hex.Encode(out[:], b[:])
	if prefix == "" {
		return string(out[:])
	}
	return prefix + "_" + string(out[:])
}
