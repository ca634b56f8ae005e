package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

func TestNewValidates(t *testing.T) {
	p := modeltest.NewScripted()
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no provider", Config{}},
		{"negative steps", Config{Provider: p, MaxSteps: -1}},
		{"negative timeout", Config{Provider: p, Timeout: -time.Second}},
		{"negative budget", Config{Provider: p, TokenBudget: -5}},
		{"negative parallel", Config{Provider: p, MaxParallel: -1}},
		{"negative window", Config{Provider: p, ContextWindow: -1}},
		{"negative result cap", Config{Provider: p, MaxResultBytes: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("New() error = %v, want ErrInvalidConfig", err)
			}
		})
	}
	a, err := New(Config{Provider: p})
	if err != nil {
		t.Fatal(err)
	}
	got := []any{a.cfg.MaxSteps, a.cfg.MaxConsecutiveDenials, a.cfg.RepeatLimit, a.cfg.MaxParallel, a.cfg.ToolTimeout, a.cfg.MaxResultBytes}
	want := []any{50, 3, 3, 4, 2 * time.Minute, 64 << 10}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestTextAnswer(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Events(
		model.Event{Kind: model.EventReasoningDelta, Text: "think"},
		model.Event{Kind: model.EventTextDelta, Text: "Hel"},
		model.Event{Kind: model.EventTextDelta, Text: "lo"},
		model.Event{Kind: model.EventUsage, Usage: &model.Usage{InputTokens: 10, OutputTokens: 3}},
		model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn},
	))
	a := mustAgent(t, Config{Provider: p, Model: "m", System: "sys", Instructions: "agents.md"})
	c := NewConversation("conv-1")
	r := collect(t, a, context.Background(), c, "hi")

	wantTypes := []EventType{EventSessionStarted, EventMessage, EventReasoningDelta, EventTextDelta,
		EventTextDelta, EventUsage, EventMessage, EventSessionCompleted}
	if diff := cmp.Diff(wantTypes, r.types()); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	want := &Outcome{Kind: Complete, Text: "Hello", Steps: 1, Usage: model.Usage{InputTokens: 10, OutputTokens: 3}}
	if diff := cmp.Diff(want, r.outcome); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	if r.err != nil || len(r.errs) != 0 {
		t.Errorf("errors = %v", r.errs)
	}
	var last time.Time
	for i, ev := range r.events {
		if ev.RunID != "conv-1" {
			t.Errorf("event %d RunID = %q", i, ev.RunID)
		}
		if !ev.Time.After(last) {
			t.Errorf("event %d time %v not after %v", i, ev.Time, last)
		}
		last = ev.Time
	}
	if r.events[1].Step != 0 || r.events[3].Step != 1 {
		t.Errorf("steps: user message %d, delta %d; want 0 and 1", r.events[1].Step, r.events[3].Step)
	}
	wantHist := []model.Message{model.UserText("hi"), {Role: model.RoleAssistant, Parts: []model.Part{
		{Kind: model.PartReasoning, Text: "think"}, model.TextPart("Hello")}}}
	if diff := cmp.Diff(wantHist, c.Messages()); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	reqs := p.Requests()
	if len(reqs) != 1 || reqs[0].System != "sys\n\nagents.md" || reqs[0].Model != "m" {
		t.Fatalf("request = %+v", reqs)
	}
}

func TestContinueWithEmptyInput(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("answer"))
	a := mustAgent(t, Config{Provider: p})
	c := NewConversation("", model.UserText("stored question"))
	r := collect(t, a, context.Background(), c, "")
	if r.outcome.Kind != Complete || c.Len() != 2 {
		t.Fatalf("outcome %v, history %d messages", r.outcome.Kind, c.Len())
	}
	if got := p.Requests()[0].Messages; len(got) != 1 || got[0].Text() != "stored question" {
		t.Errorf("request messages = %v", got)
	}
	if c.ID() == "" {
		t.Error("generated conversation id is empty")
	}
}

// TestResultsFollowCallsInOrder checks the core invariant with calls that
// finish in the reverse order of the calls.
func TestResultsFollowCallsInOrder(t *testing.T) {
	var running, peak atomic.Int32
	sleep := newTool("sleep", func(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		var in struct{ MS int }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(in.MS) * time.Millisecond)
		return &tool.Result{Content: "slept " + string(args)}, nil
	})
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("a", "sleep", `{"MS":60}`), call("b", "sleep", `{"MS":1}`), call("c", "sleep", `{"MS":25}`)),
		modeltest.Text("done"),
	)
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, sleep)})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	if r.outcome.Kind != Complete || r.outcome.ToolCalls != 3 {
		t.Fatalf("outcome = %+v", r.outcome)
	}
	if peak.Load() < 2 {
		t.Errorf("peak concurrency %d, want the calls to overlap", peak.Load())
	}
	// The assistant message is reported before any result.
	var order []string
	for _, ev := range r.events {
		switch {
		case ev.Type == EventMessage && ev.Message.Role == model.RoleAssistant && len(ev.Message.ToolCalls()) > 0:
			order = append(order, "assistant")
		case ev.Type == EventToolResult:
			order = append(order, "result:"+ev.ToolResult.CallID)
		case ev.Type == EventMessage && ev.Message.Role == model.RoleTool:
			order = append(order, "tool-message")
		}
	}
	want := []string{"assistant", "result:a", "result:b", "result:c", "tool-message"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	checkHistory(t, c.Messages())
	if diff := cmp.Diff([]model.Role{model.RoleUser, model.RoleAssistant, model.RoleTool, model.RoleAssistant}, roles(c.Messages())); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	// The second request carries the call and its results.
	checkHistory(t, p.Requests()[1].Messages)
}

func roles(msgs []model.Message) []model.Role {
	out := make([]model.Role, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role
	}
	return out
}

// TestFailuresBecomeErrorResults checks that every kind of tool failure is
// an is_error result and the run goes on.
func TestFailuresBecomeErrorResults(t *testing.T) {
	type in struct {
		Path string `json:"path"`
	}
	typed := tool.Func("typed", "needs a path", func(_ context.Context, v in) (string, error) { return "ok " + v.Path, nil })
	fails := newTool("fails", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return nil, errors.New("disk on fire")
	})
	panics := newTool("panics", func(context.Context, json.RawMessage) (*tool.Result, error) { panic("boom") })
	hangs := newTool("hangs", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	refused := echoTool()
	refused.spec.Name = "refused"
	tests := []struct {
		name string
		call model.ToolCall
		want string // substring of the result
	}{
		{"unknown tool", call("1", "nosuch", `{}`), `unknown tool "nosuch"`},
		{"schema violation", call("1", "typed", `{"path":7}`), `invalid arguments for "typed"`},
		{"not JSON", call("1", "typed", `{"path":`), "not valid JSON"},
		{"not an object", call("1", "typed", `[1,2]`), "must be a JSON object"},
		{"duplicate keys", call("1", "typed", `{"path":"a","path":"b"}`), "not valid JSON"},
		{"tool error", call("1", "fails", `{}`), "disk on fire"},
		{"panic", call("1", "panics", `{}`), "panicked: boom"},
		{"timeout", call("1", "hangs", `{}`), "timed out"},
		{"denied", call("1", "refused", `{}`), "tool call denied: not today"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := modeltest.NewScripted(modeltest.ToolCalls(tt.call), modeltest.Text("recovered"))
			a := mustAgent(t, Config{
				Provider:    p,
				Tools:       mustSet(t, typed, fails, panics, hangs, refused),
				Policy:      mapDecider{"refused": {Action: 2, Reason: "not today"}},
				ToolTimeout: 30 * time.Millisecond,
			})
			c := NewConversation("")
			r := collect(t, a, context.Background(), c, "go")
			if r.outcome.Kind != Complete || r.outcome.Text != "recovered" {
				t.Fatalf("outcome = %+v", r.outcome)
			}
			res := toolMessages(c.Messages())
			if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Content, tt.want) {
				t.Fatalf("results = %+v, want one is_error containing %q", res, tt.want)
			}
			checkHistory(t, c.Messages())
			// What goes back to the model must be a JSON object.
			for _, tc := range p.Requests()[1].Messages[1].ToolCalls() {
				var obj map[string]any
				if err := json.Unmarshal(tc.Args, &obj); err != nil && tt.name != "duplicate keys" {
					t.Errorf("args sent back = %s: %v", tc.Args, err)
				}
			}
		})
	}
}

func TestResultCap(t *testing.T) {
	big := newTool("big", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: strings.Repeat("x", 10000)}, nil
	})
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "big", `{}`)), modeltest.Text("ok"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, big), MaxResultBytes: 1000})
	c := NewConversation("")
	collect(t, a, context.Background(), c, "go")
	res := toolMessages(c.Messages())
	if len(res) != 1 || len(res[0].Content) > 1200 || !strings.Contains(res[0].Content, "[truncated: 10000 bytes total") {
		t.Fatalf("result = %d bytes: %.200q…", len(res[0].Content), res[0].Content)
	}
}

func TestDuplicateAndMissingCallIDs(t *testing.T) {
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("x", "echo", `{"n":1}`), call("x", "echo", `{"n":2}`), call("", "echo", `{"n":3}`)),
		modeltest.Text("ok"),
	)
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool())})
	c := NewConversation("")
	collect(t, a, context.Background(), c, "go")
	checkHistory(t, c.Messages())
	var got []string
	for _, r := range toolMessages(c.Messages()) {
		got = append(got, r.CallID+"="+r.Content)
	}
	want := []string{`x=echo {"n":1}`, `call-1=echo {"n":2}`, `call-2=echo {"n":3}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestIdempotencyKeys(t *testing.T) {
	var seen []string
	write := newTool("write", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		seen = append(seen, "write:"+tool.IdempotencyKey(ctx))
		return &tool.Result{Content: "written"}, nil
	})
	write.spec.Effects = tool.Effects{WritesFiles: true}
	read := newTool("read", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		seen = append(seen, "read:"+tool.IdempotencyKey(ctx))
		return &tool.Result{Content: "read"}, nil
	})
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("1", "write", `{}`)),
		modeltest.ToolCalls(call("2", "read", `{}`)),
		modeltest.ToolCalls(call("3", "write", `{}`)),
		modeltest.Text("ok"),
	)
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, write, read)})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if diff := cmp.Diff([]string{"write:idem-1", "read:", "write:idem-2"}, seen); diff != "" {
		t.Errorf("keys seen by tools (-want +got):\n%s", diff)
	}
	var keys []string
	for _, ev := range r.ofType(EventToolCall) {
		keys = append(keys, ev.IdempotencyKey)
	}
	if diff := cmp.Diff([]string{"idem-1", "", "idem-2"}, keys); diff != "" {
		t.Errorf("keys on tool.call events (-want +got):\n%s", diff)
	}
}

func TestUsageSummedAndReported(t *testing.T) {
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("1", "echo", `{}`)).WithUsage(model.Usage{InputTokens: 100, OutputTokens: 10}),
		modeltest.Text("ok").WithUsage(model.Usage{InputTokens: 130, OutputTokens: 5, CacheReadTokens: 90}),
	)
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool())})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	want := model.Usage{InputTokens: 230, OutputTokens: 15, CacheReadTokens: 90}
	if diff := cmp.Diff(want, r.outcome.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if n := len(r.ofType(EventUsage)); n != 2 {
		t.Errorf("%d usage events, want 2", n)
	}
	if c.LastUsage().InputTokens != 130 {
		t.Errorf("LastUsage = %+v", c.LastUsage())
	}
}

func TestProviderFailures(t *testing.T) {
	apiErr := &model.APIError{Provider: "openai", StatusCode: 500, Message: "down"}
	tests := []struct {
		name  string
		turn  modeltest.Turn
		check func(error) bool
	}{
		{"api error", modeltest.Fail(apiErr), func(err error) bool {
			var e *model.APIError
			return errors.As(err, &e) && e.StatusCode == 500
		}},
		{"broken stream", modeltest.Text("partial").ThenFail(&model.ConnectError{Endpoint: "http://x", Err: errors.New("reset")}),
			func(err error) bool { var e *model.ConnectError; return errors.As(err, &e) }},
		{"no stop event", modeltest.Events(model.Event{Kind: model.EventTextDelta, Text: "half"}),
			func(err error) bool { return errors.Is(err, model.ErrIncompleteStream) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustAgent(t, Config{Provider: modeltest.NewScripted(tt.turn)})
			c := NewConversation("")
			r := collect(t, a, context.Background(), c, "go")
			if r.outcome.Kind != Failed || !tt.check(r.err) {
				t.Fatalf("outcome %v, err %v", r.outcome.Kind, r.err)
			}
			errEvents := r.ofType(EventError)
			if len(errEvents) != 1 || errEvents[0].Err != r.err.Error() || r.outcome.Err != r.err.Error() {
				t.Errorf("error events %+v, outcome err %q", errEvents, r.outcome.Err)
			}
			// The partial answer is not recorded as if it were complete.
			if c.Len() != 1 {
				t.Errorf("history has %d messages, want only the user's", c.Len())
			}
			out, err := a.RunToEnd(context.Background(), c, "")
			if out == nil || out.Kind != Failed || !errors.Is(err, modeltest.ErrScriptExhausted) {
				t.Errorf("RunToEnd = %+v, %v", out, err)
			}
		})
	}
}

func TestEmptyAnswerIsNotRecorded(t *testing.T) {
	empty := modeltest.Events(model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn})
	p := modeltest.NewScripted(empty, modeltest.Text("here it is"))
	a := mustAgent(t, Config{Provider: p})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	// The empty answer is not recorded; the nudge and the real answer are.
	if r.outcome.Kind != Complete || r.outcome.Text != "here it is" || c.Len() != 3 {
		t.Fatalf("outcome %+v, history:\n%s", r.outcome, dumpHistory(c.Messages()))
	}
	if got := c.Messages()[1].Text(); got != emptyNudge {
		t.Errorf("message 1 = %q, want the nudge", got)
	}
}

func TestRequestTemplate(t *testing.T) {
	temp := 0.2
	p := modeltest.NewScripted(modeltest.Text("ok"))
	a := mustAgent(t, Config{
		Provider: p, Model: "qwen", System: "sys", Tools: mustSet(t, echoTool()),
		Params: model.Request{
			Model: "ignored", System: "ignored", Messages: []model.Message{model.UserText("ignored")},
			Tools:       []model.ToolSpec{{Name: "ignored"}},
			Temperature: &temp, MaxTokens: 256, ReasoningEffort: "low",
		},
	})
	collect(t, a, context.Background(), NewConversation(""), "go")
	got := p.Requests()[0]
	want := &model.Request{
		Model: "qwen", System: "sys", Messages: []model.Message{model.UserText("go")},
		Tools:       []model.ToolSpec{{Name: "echo", Description: "test tool echo", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
		Temperature: &temp, MaxTokens: 256, ReasoningEffort: "low",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}
