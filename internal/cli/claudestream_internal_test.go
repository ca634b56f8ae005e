package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/model"
)

// claudeLineTypes are the line types Claude Code's stream-json has.
var claudeLineTypes = map[string]bool{"system": true, "assistant": true, "user": true, "result": true, "stream_event": true}

// renderClaude renders evs as Claude-shaped stream-json and checks every
// line: valid JSON of a Claude Code type, free of raw control characters.
func renderClaude(t *testing.T, partial bool, out *agent.Outcome, evs ...agent.Event) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	r := newClaudeStreamRenderer(&buf, newExplainer(config.ModelConfig{}), partial)
	for _, ev := range evs {
		r.event(ev)
	}
	r.finish(out, "")
	var ls []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %v\n%q", err, l)
		}
		if typ, _ := m["type"].(string); !claudeLineTypes[typ] {
			t.Fatalf("line type %q is not Claude Code's: %s", typ, l)
		}
		for _, c := range l {
			if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u202e' {
				t.Fatalf("raw control character %U in %q", c, l)
			}
		}
		ls = append(ls, m)
	}
	return ls
}

func assistantEvent(path, parent string, parts ...model.Part) agent.Event {
	return agent.Event{Type: agent.EventMessage, RunID: "s1", Step: 1, Time: time.Now(), AgentPath: path, ParentCallID: parent,
		Message: &model.Message{Role: model.RoleAssistant, Parts: parts}}
}

// TestClaudeStreamSubAgent: a sub-agent's messages name their task call
// as parent_tool_use_id; the root's have null; rein-only events (a
// decision, a plan, the sub-agent's own start) have no line.
func TestClaudeStreamSubAgent(t *testing.T) {
	ls := renderClaude(t, false, &agent.Outcome{Kind: agent.Complete, Text: "ok", Steps: 1},
		agent.Event{Type: agent.EventSessionStarted, RunID: "s1"},
		assistantEvent("", "", model.ToolCallPart(model.ToolCall{ID: "task_1", Name: "task", Args: json.RawMessage(`{"prompt":"look"}`)})),
		agent.Event{Type: agent.EventSessionStarted, RunID: "s1", AgentPath: "task:task_1/general", ParentCallID: "task_1"},
		assistantEvent("task:task_1/general", "task_1", model.TextPart("found it")),
		agent.Event{Type: agent.EventToolDecision, RunID: "s1", Decision: &agent.Decision{CallID: "x", Tool: "t", Action: "allow"}},
		agent.Event{Type: agent.EventPlanUpdated, RunID: "s1", Plan: []agent.PlanItem{{Content: "a"}}},
		agent.Event{Type: agent.EventMessage, RunID: "s1", Message: &model.Message{Role: model.RoleTool, Parts: []model.Part{
			model.ToolResultPart(model.ToolResult{CallID: "task_1", Content: "found it"})}}},
	)
	var got []string
	for _, l := range ls {
		parent, _ := l["parent_tool_use_id"].(string)
		got = append(got, l["type"].(string)+":"+parent)
	}
	if want := "system: assistant: assistant:task_1 user: result:"; strings.Join(got, " ") != want {
		t.Errorf("lines %v, want %s", got, want)
	}
}

// TestClaudeSubtypes is the outcome → subtype table of docs/headless.md.
func TestClaudeSubtypes(t *testing.T) {
	want := map[agent.OutcomeKind]string{
		agent.Complete: "success", agent.StepLimit: "error_max_turns", agent.TokenBudget: "error_max_budget_usd",
		agent.Deadline: "error_during_execution", agent.RepeatedAction: "error_during_execution", agent.Blocked: "error_during_execution",
		agent.VerificationFailed: "error_during_execution", agent.Cancelled: "error_during_execution", agent.Failed: "error_during_execution",
	}
	for kind, sub := range want {
		if got := claudeSubtype(&agent.Outcome{Kind: kind}); got != sub {
			t.Errorf("%s → %s, want %s", kind, got, sub)
		}
	}
	if got := claudeSubtype(nil); got != "error_during_execution" {
		t.Errorf("no outcome → %s", got)
	}
}

// TestToolInputAlwaysObject: a tool_use input is an object whatever the
// model sent as arguments.
func TestToolInputAlwaysObject(t *testing.T) {
	for _, args := range []string{`{"a":1}`, ``, `null`, `[1,2]`, `"str"`, `{"a":`, "\x1b[2J"} {
		var obj map[string]any
		in := toolInput(json.RawMessage(args))
		if err := json.Unmarshal(in, &obj); err != nil || obj == nil {
			t.Errorf("toolInput(%q) = %s, not an object", args, in)
		}
	}
}

// TestClaudeStreamRedactsSecrets: a key-shaped secret in any field the
// Claude shape carries (text, reasoning, tool arguments, tool results,
// streamed deltas, the final text) is redacted.
func TestClaudeStreamRedactsSecrets(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Ab1", 30)
	ls := renderClaude(t, true, &agent.Outcome{Kind: agent.Complete, Text: "the key is " + key},
		agent.Event{Type: agent.EventSessionStarted, RunID: "s1"},
		agent.Event{Type: agent.EventTextDelta, RunID: "s1", Text: key[:10]},
		agent.Event{Type: agent.EventTextDelta, RunID: "s1", Text: key[10:]},
		assistantEvent("", "", model.TextPart(key), model.ReasoningPart(key, ""),
			model.ToolCallPart(model.ToolCall{ID: "c", Name: "run_command", Args: json.RawMessage(`{"command":"echo ` + key + `"}`)})),
		agent.Event{Type: agent.EventMessage, RunID: "s1", Message: &model.Message{Role: model.RoleTool, Parts: []model.Part{
			model.ToolResultPart(model.ToolResult{CallID: "c", Content: key})}}},
	)
	all, _ := json.Marshal(ls)
	if strings.Contains(string(all), key[:20]) || !strings.Contains(string(all), "REDACTED") {
		t.Errorf("the key survives: %s", all)
	}
}

// FuzzClaudeStream: whatever the model and the tools say — texts,
// reasoning, arguments, results, streamed deltas — every line is a
// Claude Code line of valid JSON with no raw control character.
func FuzzClaudeStream(f *testing.F) {
	f.Add("hello", `{"path":"a"}`, "result", "de\x1bl")
	f.Add("\x1b]0;t\x07", `{"x":"\u202e"}`, "\x9b31m", "\xff\xfe")
	f.Add("", `not json`, "", "sk-ant-api03-"+strings.Repeat("A", 90))
	f.Fuzz(func(t *testing.T, text, args, result, delta string) {
		renderClaude(t, true, &agent.Outcome{Kind: agent.Failed, Text: text, Err: result},
			agent.Event{Type: agent.EventSessionStarted, RunID: "s1"},
			agent.Event{Type: agent.EventTextDelta, RunID: "s1", Text: delta},
			agent.Event{Type: agent.EventReasoningDelta, RunID: "s1", Text: text},
			agent.Event{Type: agent.EventTextDelta, RunID: "s1", AgentPath: "task:c/g", ParentCallID: "c", Text: text},
			assistantEvent("", "", model.TextPart(text), model.ReasoningPart(delta, result),
				model.ToolCallPart(model.ToolCall{ID: result, Name: text, Args: json.RawMessage(args)})),
			agent.Event{Type: agent.EventMessage, RunID: "s1", Message: &model.Message{Role: model.RoleTool, Parts: []model.Part{
				model.ToolResultPart(model.ToolResult{CallID: text, Content: result, IsError: true})}}},
			agent.Event{Type: agent.EventToolDecision, RunID: "s1", Decision: &agent.Decision{CallID: result, Tool: text, Action: "deny", Reason: delta}},
			agent.Event{Type: agent.EventCompaction, RunID: "s1", Compaction: &agent.CompactionInfo{Summary: text}},
		)
	})
}
