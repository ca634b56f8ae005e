package loop

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
)

// einoModel is the script as an eino ToolCallingChatModel. Both agents
// are run without streaming (Generate), eino's cheaper path.
type einoModel struct{ s *script }

func (m einoModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	wantTool, id, args := m.s.next(len(input))
	if !wantTool {
		return schema.AssistantMessage(finalText, nil), nil
	}
	return schema.AssistantMessage("", []schema.ToolCall{{
		ID: id, Type: "function", Function: schema.FunctionCall{Name: "noop", Arguments: args},
	}}), nil
}

func (m einoModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m einoModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

// einoNoop is the no-op tool as an eino InvokableTool.
type einoNoop struct{ s *script }

func (einoNoop) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "noop", Desc: "Does nothing.", ParamsOneOf: schema.NewParamsOneOfByParams(
		map[string]*schema.ParameterInfo{"n": {Type: schema.Integer}})}, nil
}

func (t einoNoop) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in noopIn
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	t.s.toolRuns++
	return "ok", nil
}

func einoHistory(n int) []*schema.Message {
	h := make([]*schema.Message, n)
	for i := range h {
		if i%2 == 0 {
			h[i] = schema.UserMessage(historyText(i))
		} else {
			h[i] = schema.AssistantMessage(historyText(i), nil)
		}
	}
	return h
}

type einoReactRunner struct {
	a       *react.Agent
	history []*schema.Message
	input   []*schema.Message
}

func newEinoReact(tb testing.TB, s *script, history int) loopRunner {
	a, err := react.NewAgent(context.Background(), &react.AgentConfig{
		ToolCallingModel: einoModel{s},
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{einoNoop{s}}},
		// A react step is a model node or a tools node: two per tool call.
		MaxStep: 2*s.k + 10,
		MessageModifier: func(_ context.Context, in []*schema.Message) []*schema.Message {
			return append([]*schema.Message{schema.SystemMessage("You are a benchmark.")}, in...)
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return &einoReactRunner{a: a, history: einoHistory(history)}
}

func (r *einoReactRunner) prepare(testing.TB) {
	r.input = append(append(make([]*schema.Message, 0, len(r.history)+1), r.history...), schema.UserMessage("go"))
}

func (r *einoReactRunner) run(tb testing.TB) string {
	out, err := r.a.Generate(context.Background(), r.input)
	if err != nil {
		tb.Fatal(err)
	}
	return out.Content
}

type einoADKRunner struct {
	r       *adk.Runner
	history []*schema.Message
	input   []*schema.Message
}

func newEinoADK(tb testing.TB, s *script, history int) loopRunner {
	ctx := context.Background()
	a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:          "bench",
		Description:   "benchmark agent",
		Instruction:   "You are a benchmark.",
		Model:         einoModel{s},
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{einoNoop{s}}}},
		MaxIterations: s.k + 2,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return &einoADKRunner{r: adk.NewRunner(ctx, adk.RunnerConfig{Agent: a}), history: einoHistory(history)}
}

func (r *einoADKRunner) prepare(testing.TB) {
	r.input = append(append(make([]*schema.Message, 0, len(r.history)+1), r.history...), schema.UserMessage("go"))
}

func (r *einoADKRunner) run(tb testing.TB) string {
	it := r.r.Run(context.Background(), r.input)
	text := ""
	for {
		ev, ok := it.Next()
		if !ok {
			return text
		}
		if ev.Err != nil {
			tb.Fatal(ev.Err)
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil {
			if m := ev.Output.MessageOutput.Message; m.Role == schema.Assistant && len(m.ToolCalls) == 0 {
				text = m.Content
			}
		}
	}
}
