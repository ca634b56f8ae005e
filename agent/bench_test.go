package agent

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

// BenchmarkLoop measures the loop's own overhead: one Run in which a
// scripted model makes one no-op tool call and then answers, so two model
// calls per op; ns/model-call is the figure to watch. The history case
// starts every Run on a 1,000-message conversation, which must cost about
// the same as an empty one: accounting is incremental and the history is
// never copied per call.
func BenchmarkLoop(b *testing.B) {
	for _, n := range []int{0, 1000} {
		b.Run("history="+strconv.Itoa(n), func(b *testing.B) {
			benchLoop(b, randomHistory(rand.New(rand.NewPCG(3, 4)), n), 0)
		})
	}
	// With a window the history must be cut on every call: the cost is
	// copying what is kept, not re-estimating what is dropped.
	b.Run("history=1000/window=4000", func(b *testing.B) {
		benchLoop(b, randomHistory(rand.New(rand.NewPCG(3, 4)), 1000), 4000)
	})
}

// TestLoopCostIndependentOfHistory is the deterministic half of the
// benchmark: a Run on a 1,000-message conversation allocates no more, in
// count or bytes, than one on an empty conversation — the history is
// neither copied nor re-estimated per call.
func TestLoopCostIndependentOfHistory(t *testing.T) {
	measure := func(n int) (allocs, bytes float64) {
		a, c, rewind := loopFixture(t, randomHistory(rand.New(rand.NewPCG(3, 4)), n), 0)
		run := func() {
			rewind()
			for _, err := range a.Run(context.Background(), c, "go") {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		run() // warm up: the conversation's arrays reach their final size
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 50
		for range runs {
			run()
		}
		runtime.ReadMemStats(&after)
		return float64(after.Mallocs-before.Mallocs) / runs, float64(after.TotalAlloc-before.TotalAlloc) / runs
	}
	// The least of three measurements: other goroutines' allocations
	// (the tool goroutine, the runtime) land in the counters too, and on a
	// loaded machine they can exceed the slack once. A history copied per
	// call would cost tens of KiB in every measurement.
	least := func(n int) (allocs, bytes float64) {
		allocs, bytes = measure(n)
		for range 2 {
			a, b := measure(n)
			allocs, bytes = min(allocs, a), min(bytes, b)
		}
		return allocs, bytes
	}
	a0, b0 := least(0)
	a1, b1 := least(1000)
	// Scheduling noise from the tool goroutine allows a little slack.
	if a1 > a0+2 || b1 > b0+256 {
		t.Errorf("per run: %.1f allocs / %.0f B at 1000 messages vs %.1f / %.0f B at 0", a1, b1, a0, b0)
	}
}

// loopFixture returns an agent whose scripted model makes one no-op tool
// call and then answers, a conversation holding base, and a function that
// rewinds the conversation to base in place.
func loopFixture(tb testing.TB, base []model.Message, window int) (*Agent, *Conversation, func()) {
	noop := newTool("noop", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: "ok"}, nil
	})
	set, err := tool.NewSet(noop)
	if err != nil {
		tb.Fatal(err)
	}
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("c1", "noop", `{}`)),
		modeltest.Text("done"),
	).Repeat().WithoutRecording()
	a, err := New(Config{Provider: p, Tools: set, System: "You are a benchmark.", ContextWindow: window})
	if err != nil {
		tb.Fatal(err)
	}
	c := NewConversation("bench", base...)
	lastUser := c.lastUser
	// Rewinding in place, rather than rebuilding the conversation, keeps
	// setup garbage off the measured clock.
	rewind := func() {
		c.msgs, c.prefix, c.lastUser = c.msgs[:len(base)], c.prefix[:len(base)+1], lastUser
	}
	return a, c, rewind
}

func benchLoop(b *testing.B, base []model.Message, window int) {
	a, c, rewind := loopFixture(b, base, window)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rewind()
		for _, err := range a.Run(ctx, c, "go") {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/model-call")
}
