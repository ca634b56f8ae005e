package agent

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

// BenchmarkScheduleIndependentReads runs turns of four reads of different
// files, each taking 8 ms: scheduling must keep them concurrent, so a turn
// takes about 8 ms of wall time, not 32 (the bound: ≤ 12 ms).
// wall-ms/turn is the figure to watch.
func BenchmarkScheduleIndependentReads(b *testing.B) {
	read := newTool("read_file", func(context.Context, json.RawMessage) (*tool.Result, error) {
		time.Sleep(8 * time.Millisecond)
		return &tool.Result{Content: "ok"}, nil
	})
	read.spec.Effects = tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}
	var calls []model.ToolCall
	for i := range 4 {
		calls = append(calls, call("c"+strconv.Itoa(i), "read_file", `{"path":"f`+strconv.Itoa(i)+`.txt"}`))
	}
	p := modeltest.NewScripted(modeltest.ToolCalls(calls...), modeltest.Text("done")).Repeat().WithoutRecording()
	a, err := New(Config{Provider: p, Tools: mustSet(b, read), RepeatLimit: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, err := range a.Run(ctx, NewConversation("bench"), "go") {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(ms, "wall-ms/turn")
	if ms > 12 {
		b.Errorf("a turn of 4 independent 8 ms reads took %.1f ms of wall time; want ≤ 12", ms)
	}
}

// BenchmarkScheduleLevels measures the conflict analysis alone on a mixed
// batch of eight calls: what scheduling adds to every multi-call turn.
func BenchmarkScheduleLevels(b *testing.B) {
	specs := map[string]tool.Spec{}
	for _, t := range fakeTools(newMemFS()) {
		specs[t.Spec().Name] = t.Spec()
	}
	r := rand.New(rand.NewPCG(1, 2))
	calls := make([]model.ToolCall, 8)
	for i := range calls {
		calls[i] = randomCall(r, i)
	}
	acc := make([]access, len(calls))
	b.ReportAllocs()
	for b.Loop() {
		for i, c := range calls {
			spec, ok := specs[c.Name]
			acc[i] = callAccess(spec, ok, c.Args)
		}
		_ = scheduleLevels(acc)
	}
}
