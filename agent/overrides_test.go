package agent

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

func TestRunWithOverrides(t *testing.T) {
	temp, low := 0.7, 0.1
	p := modeltest.NewScripted(modeltest.Text("a"), modeltest.Text("b"), modeltest.Text("c"))
	a := mustAgent(t, Config{Provider: p, Model: "m", System: "base", Instructions: "AGENTS.md text",
		Params: model.Request{Temperature: &temp, MaxTokens: 100}})
	run := func(opts RunOptions) *model.Request {
		t.Helper()
		for range a.RunWith(context.Background(), NewConversation(""), "go", opts) {
		}
		reqs := p.Requests()
		return reqs[len(reqs)-1]
	}
	got := run(RunOptions{System: "reviewer", Params: &model.Request{Temperature: &low, Model: "ignored", System: "ignored"}})
	if got.System != "reviewer\n\nAGENTS.md text" || got.Model != "m" || *got.Temperature != low || got.MaxTokens != 0 {
		t.Errorf("overridden request: system %q model %q temperature %v max %d", got.System, got.Model, *got.Temperature, got.MaxTokens)
	}
	got = run(RunOptions{})
	if got.System != "base\n\nAGENTS.md text" || *got.Temperature != temp || got.MaxTokens != 100 {
		t.Errorf("default request after an override: system %q temperature %v max %d", got.System, *got.Temperature, got.MaxTokens)
	}
	got = run(RunOptions{System: "only system"})
	if got.System != "only system\n\nAGENTS.md text" || *got.Temperature != temp {
		t.Errorf("system-only override: system %q temperature %v", got.System, *got.Temperature)
	}
}

// Concurrent runs on one Agent each see their own options (run with -race).
func TestRunWithConcurrent(t *testing.T) {
	const n = 8
	var turns []modeltest.Turn
	for range n {
		turns = append(turns, modeltest.Text("ok"))
	}
	p := modeltest.NewScripted(turns...)
	a := mustAgent(t, Config{Provider: p, System: "base"})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			temp := float64(i)
			opts := RunOptions{System: fmt.Sprint("sys-", i), Params: &model.Request{Temperature: &temp}}
			out, err := runToEndWith(a, NewConversation(fmt.Sprint("c", i)), opts)
			if err != nil || out.Kind != Complete {
				t.Errorf("run %d: %+v %v", i, out, err)
			}
		})
	}
	wg.Wait()
	seen := map[string]float64{}
	for _, req := range p.Requests() {
		seen[req.System] = *req.Temperature
	}
	for i := range n {
		if got, ok := seen[fmt.Sprint("sys-", i)]; !ok || got != float64(i) {
			t.Errorf("run %d: temperature %v (seen %v)", i, got, ok)
		}
	}
}

func runToEndWith(a *Agent, c *Conversation, opts RunOptions) (*Outcome, error) {
	var out *Outcome
	var runErr error
	for ev, err := range a.RunWith(context.Background(), c, "go", opts) {
		if err != nil {
			runErr = err
		}
		if ev.Type == EventSessionCompleted {
			out = ev.Outcome
		}
	}
	return out, runErr
}
