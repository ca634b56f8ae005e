package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// stepClock is a deterministic Clock: every Now is 1ms after the last.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func newStepClock() *stepClock {
	return &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// seqIDs is a deterministic IDs: prefix-1, prefix-2, … per prefix.
type seqIDs struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *seqIDs) NewID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	s.n[prefix]++
	return fmt.Sprintf("%s-%d", prefix, s.n[prefix])
}

// fnTool is an in-test tool whose behaviour is a function.
type fnTool struct {
	spec tool.Spec
	fn   func(ctx context.Context, args json.RawMessage) (*tool.Result, error)
}

func (t *fnTool) Spec() tool.Spec { return t.spec }

func (t *fnTool) Call(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	return t.fn(ctx, args)
}

func newTool(name string, fn func(ctx context.Context, args json.RawMessage) (*tool.Result, error)) *fnTool {
	return &fnTool{spec: tool.Spec{Name: name, Description: "test tool " + name}, fn: fn}
}

// echoTool returns its arguments as its result.
func echoTool() *fnTool {
	return newTool("echo", func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: "echo " + string(args)}, nil
	})
}

func mustSet(t testing.TB, tools ...tool.Tool) *tool.Set {
	t.Helper()
	s, err := tool.NewSet(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAgent(t testing.TB, cfg Config) *Agent {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = newStepClock()
	}
	if cfg.IDs == nil {
		cfg.IDs = &seqIDs{}
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runResult is everything one Run produced.
type runResult struct {
	events  []Event
	errs    []error // non-nil errors, in order
	outcome *Outcome
	err     error // the error yielded with session.completed
}

func (r *runResult) types() []EventType {
	out := make([]EventType, len(r.events))
	for i, ev := range r.events {
		out[i] = ev.Type
	}
	return out
}

func (r *runResult) ofType(typ EventType) []Event {
	var out []Event
	for _, ev := range r.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func collect(t testing.TB, a *Agent, ctx context.Context, c *Conversation, input string) *runResult {
	t.Helper()
	var r runResult
	for ev, err := range a.Run(ctx, c, input) {
		r.events = append(r.events, ev)
		if err != nil {
			r.errs = append(r.errs, err)
		}
		if ev.Type == EventSessionCompleted {
			r.outcome, r.err = ev.Outcome, err
		}
	}
	if r.outcome == nil {
		t.Fatalf("run ended without session.completed; events: %v", r.types())
	}
	if last := r.events[len(r.events)-1]; last.Type != EventSessionCompleted {
		t.Fatalf("last event is %s, want session.completed", last.Type)
	}
	return &r
}

func call(id, name, args string) model.ToolCall {
	return model.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

// checkHistory fails unless msgs is a valid history: every tool message
// follows the assistant message whose calls it answers, with exactly one
// result per call ID in call order, and every assistant call is answered.
func checkHistory(t testing.TB, msgs []model.Message) {
	t.Helper()
	if err := historyProblem(msgs, true); err != "" {
		t.Fatalf("invalid history: %s\n%s", err, dumpHistory(msgs))
	}
}

// historyProblem describes what is wrong with msgs, or "". With complete
// set, an assistant message with calls must be followed by their results.
func historyProblem(msgs []model.Message, complete bool) string {
	for i, m := range msgs {
		switch m.Role {
		case model.RoleTool:
			if i == 0 || msgs[i-1].Role != model.RoleAssistant {
				return fmt.Sprintf("tool message %d does not follow an assistant message", i)
			}
			var want []string
			for _, c := range msgs[i-1].ToolCalls() {
				want = append(want, c.ID)
			}
			var got []string
			for _, r := range m.ToolResultParts() {
				got = append(got, r.CallID)
			}
			if !slices.Equal(want, got) {
				return fmt.Sprintf("tool message %d answers %v, the calls were %v", i, got, want)
			}
		case model.RoleAssistant:
			if len(m.ToolCalls()) > 0 && complete && (i+1 >= len(msgs) || msgs[i+1].Role != model.RoleTool) {
				return fmt.Sprintf("assistant message %d has calls without results", i)
			}
		}
	}
	return ""
}

func dumpHistory(msgs []model.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&b, "%d %s:", i, m.Role)
		for _, p := range m.Parts {
			switch p.Kind {
			case model.PartToolCall:
				fmt.Fprintf(&b, " call(%s %s %s)", p.ToolCall.ID, p.ToolCall.Name, p.ToolCall.Args)
			case model.PartToolResult:
				fmt.Fprintf(&b, " result(%s err=%v %.40q)", p.ToolResult.CallID, p.ToolResult.IsError, p.ToolResult.Content)
			default:
				fmt.Fprintf(&b, " %s(%.40q)", p.Kind, p.Text)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// waitGoroutines fails if the goroutine count does not return to base
// within a few seconds.
func waitGoroutines(t testing.TB, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines leaked: %d now, %d before\n%s", n, base, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mapDecider decides by tool name; unknown names are allowed.
type mapDecider map[string]policy.Decision

func (m mapDecider) Decide(_ context.Context, c policy.Call) policy.Decision {
	if d, ok := m[c.Spec.Name]; ok {
		return d
	}
	return policy.Decision{Action: policy.Allow, Rule: "test:allow"}
}

// funcApprover adapts a function to policy.Approver and counts its calls.
type funcApprover struct {
	mu    sync.Mutex
	calls int
	fn    func(ctx context.Context, c policy.Call, d policy.Decision) (policy.Decision, error)
}

func (f *funcApprover) Approve(ctx context.Context, c policy.Call, d policy.Decision) (policy.Decision, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	return f.fn(ctx, c, d)
}

func toolMessages(msgs []model.Message) []model.ToolResult {
	var out []model.ToolResult
	for _, m := range msgs {
		out = append(out, m.ToolResultParts()...)
	}
	return out
}

var _ model.Provider = (*modeltest.Scripted)(nil)
