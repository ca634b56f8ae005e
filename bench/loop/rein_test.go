package loop

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/tool"
)

// reinModel is the script as a model.Provider: it yields one complete
// tool call and a stop, or the answer and a stop — what a provider
// yields after parsing a stream.
type reinModel struct{ s *script }

func (m reinModel) Stream(_ context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		wantTool, id, args := m.s.next(len(req.Messages))
		if wantTool {
			c := &model.ToolCall{ID: id, Name: "noop", Args: []byte(args)}
			if !yield(model.Event{Kind: model.EventToolCall, ToolCall: c}, nil) {
				return
			}
			yield(model.Event{Kind: model.EventStop, StopReason: model.StopToolUse}, nil)
			return
		}
		if !yield(model.Event{Kind: model.EventTextDelta, Text: finalText}, nil) {
			return
		}
		yield(model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn}, nil)
	}
}

type reinRunner struct {
	a       *agent.Agent
	history []model.Message
	c       *agent.Conversation
}

func newRein(tb testing.TB, s *script, history int) loopRunner {
	noop := tool.Func("noop", "Does nothing.", func(_ context.Context, _ noopIn) (string, error) {
		s.toolRuns++
		return "ok", nil
	})
	set, err := tool.NewSet(noop)
	if err != nil {
		tb.Fatal(err)
	}
	a, err := agent.New(agent.Config{
		Provider: reinModel{s},
		Tools:    set,
		System:   "You are a benchmark.",
		MaxSteps: s.k + 2,
	})
	if err != nil {
		tb.Fatal(err)
	}
	h := make([]model.Message, history)
	for i := range h {
		if i%2 == 0 {
			h[i] = model.UserText(historyText(i))
		} else {
			h[i] = model.AssistantText(historyText(i))
		}
	}
	return &reinRunner{a: a, history: h}
}

func (r *reinRunner) prepare(testing.TB) {
	r.c = agent.NewConversation("bench", slices.Clone(r.history)...)
}

func (r *reinRunner) run(tb testing.TB) string {
	out, err := r.a.RunToEnd(context.Background(), r.c, "go")
	if err != nil {
		tb.Fatal(err)
	}
	if out.Kind != agent.Complete {
		tb.Fatalf("outcome %v: %s", out.Kind, out.Reason)
	}
	return out.Text
}
