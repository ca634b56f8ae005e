package agent

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// loopingCalls returns n turns that each call echo with distinct args.
func loopingCalls(n int) []modeltest.Turn {
	turns := make([]modeltest.Turn, n)
	for i := range turns {
		turns[i] = modeltest.ToolCalls(call("c"+strconv.Itoa(i), "echo", `{"i":`+strconv.Itoa(i)+`}`))
	}
	return turns
}

func TestStopConditions(t *testing.T) {
	hangs := newTool("hangs", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	finish := newTool("finish", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: "final answer", Finish: true}, nil
	})
	same := newTool("same", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: "no change"}, nil
	})
	tools := []tool.Tool{echoTool(), hangs, finish, same}
	tests := []struct {
		name       string
		cfg        Config
		turns      []modeltest.Turn
		want       OutcomeKind
		wantSteps  int
		wantReason string
		wantText   string
	}{
		{
			name: "step limit", cfg: Config{MaxSteps: 3},
			turns: loopingCalls(10), want: StepLimit, wantSteps: 3, wantReason: "limit of 3 model calls",
		},
		{
			name: "token budget", cfg: Config{TokenBudget: 1000},
			turns: []modeltest.Turn{
				loopingCalls(1)[0].WithUsage(model.Usage{InputTokens: 400, OutputTokens: 100}),
				loopingCalls(2)[1].WithUsage(model.Usage{InputTokens: 450, OutputTokens: 100}),
				modeltest.Text("never"),
			},
			want: TokenBudget, wantSteps: 2, wantReason: "used 1050 of the run's budget of 1000 tokens",
		},
		{
			name: "deadline in model call", cfg: Config{Timeout: 50 * time.Millisecond},
			turns: []modeltest.Turn{modeltest.Hang()}, want: Deadline, wantSteps: 1, wantReason: "run timeout of 50ms",
		},
		{
			name: "deadline in tool", cfg: Config{Timeout: 50 * time.Millisecond},
			turns: []modeltest.Turn{modeltest.ToolCalls(call("1", "hangs", `{}`))}, want: Deadline, wantSteps: 1,
		},
		{
			name: "repeated action", cfg: Config{RepeatLimit: 3},
			turns: []modeltest.Turn{
				modeltest.ToolCalls(call("1", "same", `{"a":1,"b":2}`)),
				modeltest.ToolCalls(call("2", "same", `{"b":2,"a":1}`)),
				modeltest.ToolCalls(call("3", "same", `{ "a" : 1, "b":2 }`)),
				modeltest.Text("never"),
			},
			want: RepeatedAction, wantSteps: 3, wantReason: "tool same was called 3 times in a row",
		},
		{
			name: "finish", turns: []modeltest.Turn{modeltest.ToolCalls(call("1", "finish", `{}`), call("2", "echo", `{}`))},
			want: Complete, wantSteps: 1, wantText: "final answer", wantReason: "tool finish finished the run",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Provider = modeltest.NewScripted(tt.turns...)
			tt.cfg.Tools = mustSet(t, tools...)
			a := mustAgent(t, tt.cfg)
			c := NewConversation("")
			r := collect(t, a, context.Background(), c, "go")
			if r.outcome.Kind != tt.want || r.outcome.Steps != tt.wantSteps {
				t.Fatalf("outcome = %+v, want %s after %d steps", r.outcome, tt.want, tt.wantSteps)
			}
			if r.err != nil {
				t.Errorf("limit outcome came with error %v", r.err)
			}
			if !strings.Contains(r.outcome.Reason, tt.wantReason) {
				t.Errorf("reason = %q, want it to contain %q", r.outcome.Reason, tt.wantReason)
			}
			if tt.wantText != "" && r.outcome.Text != tt.wantText {
				t.Errorf("text = %q, want %q", r.outcome.Text, tt.wantText)
			}
			checkHistory(t, c.Messages())
		})
	}
}

func TestRepeatGuardNeedsSameResult(t *testing.T) {
	var n atomic.Int32
	counter := newTool("counter", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: strconv.Itoa(int(n.Add(1)))}, nil
	})
	turns := make([]modeltest.Turn, 0, 6)
	for range 5 {
		turns = append(turns, modeltest.ToolCalls(call("", "counter", `{}`)))
	}
	turns = append(turns, modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: modeltest.NewScripted(turns...), Tools: mustSet(t, counter)})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome = %+v; a call whose result changes is progress, not a loop", r.outcome)
	}
}

func TestApproverFlows(t *testing.T) {
	ask := policy.Decision{Action: policy.Ask, Reason: "writes files", Rule: "preset:editor"}
	allow := func(context.Context, policy.Call, policy.Decision) (policy.Decision, error) {
		return policy.Decision{Action: policy.Allow, Rule: "approver:test"}, nil
	}
	deny := func(context.Context, policy.Call, policy.Decision) (policy.Decision, error) {
		return policy.Decision{Action: policy.Deny, Reason: "user said no"}, nil
	}
	broken := func(context.Context, policy.Call, policy.Decision) (policy.Decision, error) {
		return policy.Decision{}, errors.New("terminal closed")
	}
	tests := []struct {
		name      string
		decision  policy.Decision
		approver  func(context.Context, policy.Call, policy.Decision) (policy.Decision, error)
		wantAsked int
		wantEvent Decision
		wantRes   string
		wantErr   bool
	}{
		{"ask then allow", ask, allow, 1,
			Decision{CallID: "1", Tool: "echo", Action: "allow", By: "approver:test"}, "echo {}", false},
		{"ask then deny", ask, deny, 1,
			Decision{CallID: "1", Tool: "echo", Action: "deny", Reason: "user said no", By: "approver"},
			"tool call denied: user said no", true},
		{"ask, approver fails", ask, broken, 1,
			Decision{CallID: "1", Tool: "echo", Action: "deny", Reason: "approval failed: terminal closed", By: "approver"},
			"approval failed: terminal closed", true},
		{"ask, no approver", ask, nil, 0,
			Decision{CallID: "1", Tool: "echo", Action: "deny", Reason: reasonNoApprover, By: "preset:editor"},
			reasonNoApprover, true},
		{"hard deny is never asked", policy.Decision{Action: policy.Deny, Hard: true, Reason: "sudo"}, allow, 0,
			Decision{CallID: "1", Tool: "echo", Action: "deny", Reason: "sudo", By: "hard-deny"}, "sudo", true},
		{"plain allow", policy.Decision{Action: policy.Allow}, allow, 0,
			Decision{CallID: "1", Tool: "echo", Action: "allow", By: "policy"}, "echo {}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "echo", `{}`)), modeltest.Text("ok"))
			cfg := Config{Provider: p, Tools: mustSet(t, echoTool()), Policy: mapDecider{"echo": tt.decision}}
			var fa *funcApprover
			if tt.approver != nil {
				fa = &funcApprover{fn: tt.approver}
				cfg.Approver = fa
			}
			a := mustAgent(t, cfg)
			c := NewConversation("")
			r := collect(t, a, context.Background(), c, "go")
			if r.outcome.Kind != Complete {
				t.Fatalf("outcome = %+v", r.outcome)
			}
			if fa != nil && fa.calls != tt.wantAsked {
				t.Errorf("approver asked %d times, want %d", fa.calls, tt.wantAsked)
			}
			evs := r.ofType(EventToolDecision)
			if len(evs) != 1 || *evs[0].Decision != tt.wantEvent {
				t.Errorf("decision events = %+v, want %+v", evs, tt.wantEvent)
			}
			res := toolMessages(c.Messages())
			if len(res) != 1 || res[0].IsError != tt.wantErr || !strings.Contains(res[0].Content, tt.wantRes) {
				t.Errorf("result = %+v, want is_error=%v containing %q", res, tt.wantErr, tt.wantRes)
			}
		})
	}
}

func TestConsecutiveDenialsBlock(t *testing.T) {
	deny := policy.Decision{Action: policy.Deny, Reason: "no network"}
	fetch := echoTool()
	fetch.spec.Name = "fetch"
	tests := []struct {
		name  string
		turns []modeltest.Turn
		want  OutcomeKind
	}{
		{"three turns in a row", []modeltest.Turn{
			modeltest.ToolCalls(call("1", "fetch", `{"u":1}`)),
			modeltest.ToolCalls(call("2", "fetch", `{"u":2}`)),
			modeltest.ToolCalls(call("3", "fetch", `{"u":3}`)),
			modeltest.Text("never"),
		}, Blocked},
		{"three in one turn", []modeltest.Turn{
			modeltest.ToolCalls(call("1", "fetch", `{"u":1}`), call("2", "fetch", `{"u":2}`), call("3", "fetch", `{"u":3}`)),
			modeltest.Text("never"),
		}, Blocked},
		{"an allowed call resets the count", []modeltest.Turn{
			modeltest.ToolCalls(call("1", "fetch", `{"u":1}`), call("2", "fetch", `{"u":2}`)),
			modeltest.ToolCalls(call("3", "echo", `{}`)),
			modeltest.ToolCalls(call("4", "fetch", `{"u":4}`), call("5", "fetch", `{"u":5}`)),
			modeltest.Text("gave up"),
		}, Complete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustAgent(t, Config{
				Provider: modeltest.NewScripted(tt.turns...),
				Tools:    mustSet(t, echoTool(), fetch),
				Policy:   mapDecider{"fetch": deny},
			})
			c := NewConversation("")
			r := collect(t, a, context.Background(), c, "go")
			if r.outcome.Kind != tt.want {
				t.Fatalf("outcome = %+v, want %s", r.outcome, tt.want)
			}
			if tt.want == Blocked && !strings.Contains(r.outcome.Reason, "3 tool calls in a row were denied") {
				t.Errorf("reason = %q", r.outcome.Reason)
			}
			checkHistory(t, c.Messages())
		})
	}
}

func TestPanickingPolicyFailsClosed(t *testing.T) {
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "echo", `{}`)), modeltest.Text("ok"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool()), Policy: panicDecider{}})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	res := toolMessages(c.Messages())
	if r.outcome.Kind != Complete || len(res) != 1 || !strings.Contains(res[0].Content, "the policy failed") {
		t.Fatalf("outcome %v, results %+v", r.outcome.Kind, res)
	}
}

type panicDecider struct{}

func (panicDecider) Decide(context.Context, policy.Call) policy.Decision { panic("policy bug") }

// TestCancelMidTool cancels the run while three calls are running: each
// gets a result, the history stays valid, and nothing leaks.
func TestCancelMidTool(t *testing.T) {
	base := runtime.NumGoroutine()
	started := make(chan struct{}, 3)
	block := newTool("block", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	stubborn := newTool("stubborn", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		started <- struct{}{}
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // ignores cancellation for a while
		return &tool.Result{Content: "finished anyway"}, nil
	})
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("1", "block", `{}`), call("2", "stubborn", `{}`), call("3", "block", `{}`), call("4", "block", `{}`)),
		modeltest.Text("never"),
	)
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, block, stubborn), MaxParallel: 3})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for range 3 {
			<-started
		}
		cancel()
	}()
	c := NewConversation("")
	r := collect(t, a, ctx, c, "go")
	if r.outcome.Kind != Cancelled || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("outcome %v, err %v", r.outcome.Kind, r.err)
	}
	checkHistory(t, c.Messages())
	res := toolMessages(c.Messages())
	if len(res) != 4 {
		t.Fatalf("%d results, want 4", len(res))
	}
	for _, r := range res {
		switch {
		case r.CallID == "2" && !r.IsError && r.Content == "finished anyway":
		case r.IsError && r.Content == "interrupted: run cancelled":
		default:
			t.Errorf("result %+v", r)
		}
	}
	if n := len(r.ofType(EventToolResult)); n != 4 {
		t.Errorf("%d tool.result events, want 4", n)
	}
	waitGoroutines(t, base)
}

// TestConsumerBreak stops reading at several points: the run stops, the
// history stays valid and no goroutine is left behind.
func TestConsumerBreak(t *testing.T) {
	for _, stopAt := range []EventType{EventSessionStarted, EventTextDelta, EventToolCall, EventToolDecision, EventToolResult} {
		t.Run(string(stopAt), func(t *testing.T) {
			base := runtime.NumGoroutine()
			p := modeltest.NewScripted(
				modeltest.Events(
					model.Event{Kind: model.EventTextDelta, Text: "let me look"},
					model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: "1", Name: "echo", Args: json.RawMessage(`{}`)}},
					model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: "2", Name: "echo", Args: json.RawMessage(`{}`)}},
					model.Event{Kind: model.EventStop, StopReason: model.StopToolUse},
				),
				modeltest.Text("done"),
			)
			a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool())})
			c := NewConversation("")
			var last EventType
			for ev := range a.Run(context.Background(), c, "go") {
				last = ev.Type
				if ev.Type == stopAt {
					break
				}
			}
			if last != stopAt {
				t.Fatalf("last event %s, want %s", last, stopAt)
			}
			checkHistory(t, c.Messages())
			waitGoroutines(t, base)
		})
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := modeltest.NewScripted(modeltest.Text("never"))
	a := mustAgent(t, Config{Provider: p})
	r := collect(t, a, ctx, NewConversation(""), "go")
	if r.outcome.Kind != Cancelled || !errors.Is(r.err, context.Canceled) || p.Calls() != 0 {
		t.Fatalf("outcome %v, err %v, %d model calls", r.outcome.Kind, r.err, p.Calls())
	}
}

func TestCallerDeadlineIsDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	a := mustAgent(t, Config{Provider: modeltest.NewScripted(modeltest.Hang())})
	r := collect(t, a, ctx, NewConversation(""), "go")
	if r.outcome.Kind != Deadline || r.err != nil {
		t.Fatalf("outcome %v, err %v", r.outcome.Kind, r.err)
	}
}

func TestMaxParallel(t *testing.T) {
	for _, tt := range []struct {
		name   string
		fanOut FanOut
		limit  int
		want   int32
	}{
		{"goroutines", nil, 2, 2},
		{"sequential", Sequential{}, 4, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var running, peak atomic.Int32
			slow := newTool("slow", func(context.Context, json.RawMessage) (*tool.Result, error) {
				n := running.Add(1)
				defer running.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(10 * time.Millisecond)
				return &tool.Result{Content: "ok"}, nil
			})
			calls := make([]model.ToolCall, 6)
			for i := range calls {
				calls[i] = call(strconv.Itoa(i), "slow", `{"i":`+strconv.Itoa(i)+`}`)
			}
			p := modeltest.NewScripted(modeltest.ToolCalls(calls...), modeltest.Text("ok"))
			a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, slow), MaxParallel: tt.limit, FanOut: tt.fanOut})
			c := NewConversation("")
			collect(t, a, context.Background(), c, "go")
			if peak.Load() != tt.want {
				t.Errorf("peak concurrency %d, want %d", peak.Load(), tt.want)
			}
			checkHistory(t, c.Messages())
		})
	}
}

func TestDeadlineWhileApproving(t *testing.T) {
	waits := &funcApprover{fn: func(ctx context.Context, _ policy.Call, _ policy.Decision) (policy.Decision, error) {
		<-ctx.Done()
		return policy.Decision{}, ctx.Err()
	}}
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "echo", `{}`), call("2", "echo", `{"x":1}`)), modeltest.Text("never"))
	a := mustAgent(t, Config{
		Provider: p, Tools: mustSet(t, echoTool()), Timeout: 30 * time.Millisecond,
		Policy: mapDecider{"echo": {Action: policy.Ask}}, Approver: waits,
	})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	if r.outcome.Kind != Deadline || waits.calls != 1 {
		t.Fatalf("outcome %v, approver asked %d times", r.outcome.Kind, waits.calls)
	}
	checkHistory(t, c.Messages())
	for _, res := range toolMessages(c.Messages()) {
		if res.Content != "interrupted: run deadline reached" {
			t.Errorf("result %+v", res)
		}
	}
}
