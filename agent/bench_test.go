package agent

import (
	"context"
	"encoding/json"
	"math/rand/v2"
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

func benchLoop(b *testing.B, base []model.Message, window int) {
	noop := newTool("noop", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: "ok"}, nil
	})
	set, err := tool.NewSet(noop)
	if err != nil {
		b.Fatal(err)
	}
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("c1", "noop", `{}`)),
		modeltest.Text("done"),
	).Repeat().WithoutRecording()
	a, err := New(Config{Provider: p, Tools: set, System: "You are a benchmark.", ContextWindow: window})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	c := NewConversation("bench", base...)
	lastUser := c.lastUser
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		// Rewind to the base history in place: rebuilding it would put
		// setup garbage on the measured clock through the GC.
		c.msgs, c.prefix, c.lastUser = c.msgs[:len(base)], c.prefix[:len(base)+1], lastUser
		for _, err := range a.Run(ctx, c, "go") {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/model-call")
}
