package telemetry_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

type testClock struct{ n atomic.Int64 }

func (c *testClock) Now() time.Time {
	return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(c.n.Add(1)) * time.Millisecond)
}

type echoIn struct {
	Text string `json:"text"`
}

// echoTool returns its text, or fails when the text says "fail".
func echoTool() tool.Tool {
	return tool.Func("echo", "echo the text", func(ctx context.Context, in echoIn) (string, error) {
		if in.Text == "fail" {
			return "", errFail
		}
		return in.Text, nil
	})
}

type failErr struct{}

func (failErr) Error() string { return "echo failed on purpose" }

var errFail = failErr{}

func echoCall(id, text string) model.ToolCall {
	args, _ := json.Marshal(echoIn{Text: text})
	return model.ToolCall{ID: id, Name: "echo", Args: args}
}

// runWith runs an agent with the echo tool on a scripted provider and the
// given hooks; it returns the outcome.
func runWith(t *testing.T, p model.Provider, input string, hooks ...agent.Hook) *agent.Outcome {
	t.Helper()
	return runAs(t, "run-1", p, input, hooks...)
}

// runAs is runWith on a conversation with the given id.
func runAs(t *testing.T, id string, p model.Provider, input string, hooks ...agent.Hook) *agent.Outcome {
	t.Helper()
	set, err := tool.NewSet(echoTool())
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{
		Provider: p, Model: "test-model", Tools: set, Hooks: hooks,
		Clock: &testClock{}, FanOut: agent.Sequential{}, ContextWindow: 100000,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _ := a.RunToEnd(ctx, agent.NewConversation(id), input)
	if out == nil {
		t.Fatal("no outcome")
	}
	return out
}

// twoToolTurns is a script: a turn calling echo twice (one failing), then
// a final answer.
func twoToolTurns(text string) *modeltest.Scripted {
	return modeltest.NewScripted(
		modeltest.ToolCalls(echoCall("c1", text), echoCall("c2", "fail")).WithUsage(model.Usage{InputTokens: 100, OutputTokens: 20}),
		modeltest.Text("finished").WithUsage(model.Usage{InputTokens: 150, OutputTokens: 5, CacheReadTokens: 50}),
	)
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
