package loop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"
)

// lcModel is the script as a langchaingo llms.Model.
type lcModel struct{ s *script }

func (m lcModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	wantTool, id, args := m.s.next(lcMessages(msgs))
	if !wantTool {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: finalText, StopReason: "stop"}}}, nil
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		StopReason: "tool_calls",
		ToolCalls:  []llms.ToolCall{{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "noop", Arguments: args}}},
	}}}, nil
}

func (m lcModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// lcMessages counts the messages the model was shown. langchaingo's
// agent executor takes history only as a string (its memory renders it
// as one "Human: …\nAI: …" text), so each earlier message rendered into
// a text part counts as one.
func lcMessages(msgs []llms.MessageContent) int {
	n := 0
	for _, m := range msgs {
		k := 0
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				k += strings.Count(t.Text, "message ")
			}
		}
		n += max(k, 1)
	}
	return n
}

// lcNoop is the no-op tool as a langchaingo tools.Tool.
type lcNoop struct{ s *script }

func (lcNoop) Name() string        { return "noop" }
func (lcNoop) Description() string { return "Does nothing." }
func (t lcNoop) Call(_ context.Context, input string) (string, error) {
	var in noopIn
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		return "", err
	}
	t.s.toolRuns++
	return "ok", nil
}

// readOnlyMemory is langchaingo's own conversation buffer that is not
// written back: every run starts on the same history, as the other
// frameworks' runs do. Loading it (rendering the history) stays on the
// clock: langchaingo does it on every run.
type readOnlyMemory struct{ *memory.ConversationBuffer }

func (readOnlyMemory) SaveContext(context.Context, map[string]any, map[string]any) error { return nil }

type lcRunner struct {
	ex *agents.Executor
}

func newLangchain(tb testing.TB, s *script, history int) loopRunner {
	h := make([]llms.ChatMessage, history)
	for i := range h {
		if i%2 == 0 {
			h[i] = llms.HumanChatMessage{Content: historyText(i)}
		} else {
			h[i] = llms.AIChatMessage{Content: historyText(i)}
		}
	}
	buf := memory.NewConversationBuffer(memory.WithChatHistory(memory.NewChatMessageHistory(memory.WithPreviousMessages(h))))
	a := agents.NewOpenAIFunctionsAgent(lcModel{s}, []tools.Tool{lcNoop{s}},
		agents.NewOpenAIOption().WithSystemMessage("You are a benchmark."),
		agents.NewOpenAIOption().WithExtraMessages([]prompts.MessageFormatter{
			prompts.NewHumanMessagePromptTemplate("{{.history}}", []string{"history"}),
		}))
	ex := agents.NewExecutor(a, agents.WithMaxIterations(s.k+2), agents.WithMemory(readOnlyMemory{buf}))
	return &lcRunner{ex: ex}
}

func (*lcRunner) prepare(testing.TB) {}

func (r *lcRunner) run(tb testing.TB) string {
	out, err := chains.Call(context.Background(), r.ex, map[string]any{"input": "go"})
	if err != nil {
		tb.Fatal(err)
	}
	text, _ := out["output"].(string)
	return text
}

var _ schema.Memory = readOnlyMemory{}
