package history

import (
	"context"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// benchBudget is a 12k-token window's history budget: the 2,000-message
// history is ~70× over it, so every strategy that bounds has to cut.
const benchBudget = 10_000

// BenchmarkPrepare measures one Prepare on a 2,000-message history: the
// per-model-call cost of each strategy.
func BenchmarkPrepare(b *testing.B) {
	hist := newHistoryGen(99).history(2000)
	c := agent.NewConversation("bench", hist...)
	ctx := context.Background()
	b.Logf("%d messages, ~%d tokens", c.Len(), c.EstimatedTokens(0))

	run := func(b *testing.B, s agent.ContextStrategy, budget int) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := s.Prepare(ctx, c, budget); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("full", func(b *testing.B) { run(b, Full{}, benchBudget) })
	b.Run("window/tokens", func(b *testing.B) { run(b, Window{}, benchBudget) })
	b.Run("window/messages", func(b *testing.B) { run(b, Window{MaxMessages: 100}, 0) })
	b.Run("summarize/steady", func(b *testing.B) {
		// The summary is in place: what almost every call costs.
		s := &Summarize{Provider: modeltest.NewScripted(modeltest.Text("S")).Repeat().WithoutRecording()}
		if _, info, err := s.Prepare(ctx, c, benchBudget); err != nil || info.Summary == "" {
			b.Fatalf("no summary: %+v, %v", info, err)
		}
		run(b, s, benchBudget)
	})
	b.Run("summarize/new-summary", func(b *testing.B) {
		// A summary falls due: one summary call (to a scripted provider)
		// folds the turns since the last summary, which cover ~85% of the
		// budget.
		through := c.Len()
		for through > 0 && (c.EstimatedTokens(through) < benchBudget*85/100 || hist[through].Role == model.RoleTool) {
			through--
		}
		restored := &agent.CompactionInfo{Summary: "S0", Summarized: through}
		s := &Summarize{Provider: modeltest.NewScripted(modeltest.Text("S1")).Repeat().WithoutRecording()}
		b.ReportAllocs()
		for b.Loop() {
			s.Restore(c.ID(), restored)
			if _, info, err := s.Prepare(ctx, c, benchBudget); err != nil || info.Summary != "S1" {
				b.Fatalf("no new summary: %+v, %v", info, err)
			}
		}
	})
}
