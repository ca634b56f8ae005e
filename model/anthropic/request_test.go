package anthropic_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
)

func ptr[T any](v T) *T { return &v }

// jsonValue decodes JSON text for comparison, so tests compare structure,
// not key order or spacing.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %v:\n%s", err, s)
	}
	return v
}

func TestEncodeRequest(t *testing.T) {
	call1 := model.ToolCall{ID: "toolu_1", Name: "read", Args: json.RawMessage(`{"path": "a.go"}`)}
	call2 := model.ToolCall{ID: "toolu_2", Name: "now"}
	tests := []struct {
		name string
		req  model.Request
		want string
	}{
		{
			name: "minimal",
			req:  model.Request{Messages: []model.Message{model.UserText("hi")}},
			want: `{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true}`,
		},
		{
			name: "history system messages follow Request.System; tool results and a user note share one user turn",
			req: model.Request{
				System: "Be brief.",
				Messages: []model.Message{
					model.SystemText("Project rules: tabs."),
					model.UserText("read a.go"),
					{Role: model.RoleAssistant, Parts: []model.Part{model.TextPart("Reading."), model.ToolCallPart(call1), model.ToolCallPart(call2)}},
					model.ToolResults(model.ToolResult{CallID: "toolu_1", Content: "package a"}, model.ToolResult{CallID: "toolu_2", Content: "", IsError: true}),
					model.UserText("and summarise"),
				},
			},
			want: `{"model":"claude-test","max_tokens":1024,"stream":true,
				"system":[{"type":"text","text":"Be brief."},{"type":"text","text":"Project rules: tabs."}],
				"messages":[
					{"role":"user","content":[{"type":"text","text":"read a.go"}]},
					{"role":"assistant","content":[{"type":"text","text":"Reading."},
						{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a.go"}},
						{"type":"tool_use","id":"toolu_2","name":"now","input":{}}]},
					{"role":"user","content":[
						{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"package a"}]},
						{"type":"tool_result","tool_use_id":"toolu_2","is_error":true},
						{"type":"text","text":"and summarise"}]}]}`,
		},
		{
			name: "signed thinking round-trips first, unsigned reasoning and empty text are left out",
			req: model.Request{Messages: []model.Message{
				model.UserText("q"),
				{Role: model.RoleAssistant, Parts: []model.Part{model.TextPart("")}},
				{Role: model.RoleAssistant, Parts: []model.Part{
					model.TextPart("answer"),
					model.ReasoningPart("from another model", ""),
					model.ReasoningPart("", "sig-empty-text"),
					{Kind: model.PartReasoning, Redacted: "opaque"},
					model.ReasoningPart("mine", "sig"),
				}},
			}},
			want: `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[
				{"role":"user","content":[{"type":"text","text":"q"}]},
				{"role":"assistant","content":[
					{"type":"thinking","thinking":"","signature":"sig-empty-text"},
					{"type":"redacted_thinking","data":"opaque"},
					{"type":"thinking","thinking":"mine","signature":"sig"},
					{"type":"text","text":"answer"}]}]}`,
		},
		{
			name: "interleaved thinking that already starts the turn keeps its order",
			req: model.Request{Messages: []model.Message{
				model.UserText("q"),
				{Role: model.RoleAssistant, Parts: []model.Part{
					model.ReasoningPart("a", "s1"), model.ToolCallPart(call2), model.ReasoningPart("b", "s2"), model.TextPart("t"),
				}},
			}},
			want: `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[
				{"role":"user","content":[{"type":"text","text":"q"}]},
				{"role":"assistant","content":[
					{"type":"thinking","thinking":"a","signature":"s1"},
					{"type":"tool_use","id":"toolu_2","name":"now","input":{}},
					{"type":"thinking","thinking":"b","signature":"s2"},
					{"type":"text","text":"t"}]}]}`,
		},
		{
			name: "sampling, tools, required choice, thinking with room made for the answer",
			req: model.Request{
				Model:          "claude-other",
				Messages:       []model.Message{model.UserText("x")},
				Tools:          []model.ToolSpec{{Name: "now"}, {Name: "read", Description: "Read a file", InputSchema: json.RawMessage(` {"type":"object"} `)}},
				ToolChoice:     model.ToolChoiceRequired,
				Temperature:    ptr(0.0),
				TopP:           ptr(0.9),
				Stop:           []string{"END"},
				ThinkingBudget: 2048,
				// Not in the Messages API: not sent.
				Seed: ptr(int64(7)), ReasoningEffort: "high", ResponseFormat: json.RawMessage(`{"type":"json_object"}`),
			},
			want: `{"model":"claude-other","max_tokens":3072,"stream":true,"temperature":0,"top_p":0.9,"stop_sequences":["END"],
				"thinking":{"type":"enabled","budget_tokens":2048},
				"tool_choice":{"type":"any"},
				"tools":[{"name":"now","input_schema":{"type":"object","properties":{}}},{"name":"read","description":"Read a file","input_schema":{"type":"object"}}],
				"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`,
		},
		{
			name: "named tool and none",
			req: model.Request{
				Messages:   []model.Message{model.UserText("x")},
				Tools:      []model.ToolSpec{{Name: "read", InputSchema: json.RawMessage(`{"type":"object"}`)}},
				ToolChoice: "read",
				MaxTokens:  10,
			},
			want: `{"model":"claude-test","max_tokens":10,"stream":true,"tool_choice":{"type":"tool","name":"read"},
				"tools":[{"name":"read","input_schema":{"type":"object"}}],
				"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`,
		},
		{
			name: "Extra is merged last and wins",
			req: model.Request{
				Messages:    []model.Message{model.UserText("x")},
				Temperature: ptr(1.0),
				Extra:       map[string]any{"top_k": 5, "temperature": 0.2, "metadata": map[string]string{"user_id": "u1"}, "max_tokens": 77},
			},
			want: `{"model":"claude-test","max_tokens":77,"stream":true,"temperature":0.2,"top_k":5,"metadata":{"user_id":"u1"},
				"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := anthropic.EncodeRequest(&tt.req, "claude-test", 1024, true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(jsonValue(t, tt.want), jsonValue(t, string(body))); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeRequestToolChoiceNone(t *testing.T) {
	body, err := anthropic.EncodeRequest(&model.Request{Messages: []model.Message{model.UserText("x")}, ToolChoice: model.ToolChoiceNone}, "m", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"tool_choice":{"type":"none"}`) || strings.Contains(string(body), `"stream"`) {
		t.Errorf("body %s", body)
	}
}

func TestEncodeRequestErrors(t *testing.T) {
	user := []model.Message{model.UserText("x")}
	tests := []struct {
		name  string
		req   *model.Request
		model string
		msg   string
	}{
		{"nil request", nil, "m", "nil *model.Request"},
		{"no model", &model.Request{Messages: user}, "", "set Request.Model or Config.Model"},
		{"Extra model", &model.Request{Messages: user, Extra: map[string]any{"model": "x"}}, "m", `key "model" is set by the provider; use Request.Model`},
		{"Extra messages", &model.Request{Messages: user, Extra: map[string]any{"messages": nil}}, "m", `"messages"`},
		{"Extra system", &model.Request{Messages: user, Extra: map[string]any{"system": "s"}}, "m", `use Request.System`},
		{"Extra tools", &model.Request{Messages: user, Extra: map[string]any{"tools": nil}}, "m", `"tools"`},
		{"Extra tool_choice", &model.Request{Messages: user, Extra: map[string]any{"tool_choice": nil}}, "m", `"tool_choice"`},
		{"Extra stream", &model.Request{Messages: user, Extra: map[string]any{"stream": true}}, "m", `use Config.NoStreaming`},
		{"Extra not JSON", &model.Request{Messages: user, Extra: map[string]any{"x": func() {}}}, "m", `key "x" cannot be encoded`},
		{"negative max tokens", &model.Request{Messages: user, MaxTokens: -1}, "m", "must be positive"},
		{"budget above explicit max", &model.Request{Messages: user, MaxTokens: 1000, ThinkingBudget: 1024}, "m", "must exceed Request.ThinkingBudget"},
		{"unknown role", &model.Request{Messages: []model.Message{{Role: "developer"}}}, "m", `unknown role "developer"`},
		{"system with a tool call", &model.Request{Messages: []model.Message{{Role: model.RoleSystem, Parts: []model.Part{model.ToolCallPart(model.ToolCall{ID: "a", Name: "b"})}}}}, "m", "may hold only text"},
		{"user with reasoning", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Parts: []model.Part{model.ReasoningPart("r", "s")}}}}, "m", "cannot hold a reasoning part"},
		{"assistant with a result", &model.Request{Messages: []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.ToolResultPart(model.ToolResult{CallID: "a"})}}}}, "m", "cannot hold a tool_result part"},
		{"result without call ID", &model.Request{Messages: []model.Message{model.ToolResults(model.ToolResult{Content: "x"})}}, "m", "no call ID"},
		{"call without ID", &model.Request{Messages: []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(model.ToolCall{Name: "f"})}}}}, "m", "needs an ID and a name"},
		{"call args not an object", &model.Request{Messages: []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(model.ToolCall{ID: "a", Name: "f", Args: json.RawMessage(`[1]`)})}}}}, "m", "tool call a (f): arguments are not a JSON object"},
		{"call args broken", &model.Request{Messages: []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(model.ToolCall{ID: "a", Name: "f", Args: json.RawMessage(`{"a":`)})}}}}, "m", "arguments are not a JSON object"},
		{"tool without name", &model.Request{Messages: user, Tools: []model.ToolSpec{{}}}, "m", "Request.Tools[0] has no name"},
		{"tool schema not an object", &model.Request{Messages: user, Tools: []model.ToolSpec{{Name: "f", InputSchema: json.RawMessage(`"x"`)}}}, "m", `tool "f" has an input schema that is not a JSON object`},
		{"choice names an unknown tool", &model.Request{Messages: user, ToolChoice: "missing"}, "m", `names tool "missing", which is not in Request.Tools`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := anthropic.EncodeRequest(tt.req, tt.model, 1024, true)
			if !errors.Is(err, anthropic.ErrInvalidRequest) {
				t.Fatalf("error %v, want ErrInvalidRequest", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}
