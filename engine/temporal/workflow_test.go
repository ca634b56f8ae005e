package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// fakeModels serves a scripted provider.
type fakeModels struct{ p model.Provider }

func (f fakeModels) Provider(context.Context) (model.Provider, error) { return f.p, nil }

// fakeWorkspace has an echo tool (pure), a write tool (mutating) and a
// policy that asks for "ask" and allows the rest.
type fakeWorkspace struct {
	set     *tool.Set
	writes  atomic.Int64
	mu      sync.Mutex
	order   []string
	timeout time.Duration
	// checks are the [verify] names; failChecks how many runs fail.
	checks     []string
	failChecks int
	hooks      bool
	// hooksBroken makes every PreToolUse steering activity fail.
	hooksBroken bool
	// lastWriteKey is the idempotency key of the last write call.
	lastWriteKey string
}

type echoIn struct {
	Text string `json:"text"`
}

func newFakeWorkspace(t *testing.T) *fakeWorkspace {
	t.Helper()
	w := &fakeWorkspace{}
	echo := tool.Func("echo", "echoes", func(_ context.Context, in echoIn) (string, error) {
		w.mu.Lock()
		w.order = append(w.order, "echo:"+in.Text)
		w.mu.Unlock()
		return "echo " + in.Text, nil
	})
	write := tool.Func("write", "writes", func(ctx context.Context, in echoIn) (string, error) {
		w.writes.Add(1)
		w.mu.Lock()
		w.lastWriteKey = tool.IdempotencyKey(ctx)
		w.mu.Unlock()
		return "wrote " + in.Text, nil
	}, tool.WithEffects(tool.Effects{WritesFiles: true}))
	set, err := tool.NewSet(echo, write)
	if err != nil {
		t.Fatal(err)
	}
	w.set = set
	return w
}

func (w *fakeWorkspace) Setup(_ context.Context, _, _ string, _ int) (Setup, error) {
	return Setup{System: "you are a test", Tools: w.set.Specs(), MaxSteps: 10, Timeout: w.timeout, Verify: w.checks, MaxVerifyAttempts: 2, Hooks: w.hooks}, nil
}

func (w *fakeWorkspace) Tools(context.Context, string) (*tool.Set, tool.InvokeOptions, error) {
	return w.set, tool.InvokeOptions{Timeout: time.Minute}, nil
}

func (w *fakeWorkspace) Policy(context.Context, string) (policy.Decider, error) {
	return askPolicy{}, nil
}

func (w *fakeWorkspace) Check(_ context.Context, _ string, index int) (agent.CheckResult, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.order = append(w.order, fmt.Sprintf("check:%d", index))
	if w.failChecks > 0 {
		w.failChecks--
		return agent.CheckResult{ExitCode: 1, Output: "FAIL: TestAdd"}, nil
	}
	return agent.CheckResult{}, nil
}

func (w *fakeWorkspace) Steer(_ context.Context, _ string, p agent.SteerPoint) (agent.SteerVerdict, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.order = append(w.order, "steer:"+string(p.Event))
	if w.hooksBroken && p.Event == agent.SteerPreToolUse {
		return agent.SteerVerdict{}, errors.New("the hook runner is gone")
	}
	if p.Event == agent.SteerPreToolUse && p.Call != nil && strings.Contains(string(p.Call.Args), "forbidden") {
		return agent.SteerVerdict{Block: true, Reason: "the hook refuses forbidden things"}, nil
	}
	return agent.SteerVerdict{}, nil
}

func (w *fakeWorkspace) LastChange(context.Context, string) int64 { return 0 }

func (w *fakeWorkspace) Changes(_ context.Context, _ string, _ int64, key string) []agent.FileChange {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lastWriteKey != key {
		return nil
	}
	return []agent.FileChange{{Path: "out.txt", Kind: "modify", CallKey: key}}
}

// askPolicy asks about calls whose arguments say "ask".
type askPolicy struct{}

func (askPolicy) Decide(_ context.Context, c policy.Call) policy.Decision {
	if strings.Contains(string(c.Args), "ask") {
		return policy.Decision{Action: policy.Ask, Reason: "asks"}
	}
	return policy.Decision{Action: policy.Allow}
}

func newEnv(t *testing.T, p model.Provider, ws *fakeWorkspace) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	env.RegisterActivityWithOptions(modelActivity(fakeModels{p}), activity.RegisterOptions{Name: activityModel})
	a := &workspaceActivities{name: "ws", ws: ws}
	env.RegisterActivityWithOptions(a.setup, activity.RegisterOptions{Name: activitySetup})
	env.RegisterActivityWithOptions(a.decide, activity.RegisterOptions{Name: activityDecide})
	env.RegisterActivityWithOptions(a.tool, activity.RegisterOptions{Name: activityTool})
	env.RegisterActivityWithOptions(a.check, activity.RegisterOptions{Name: activityCheck})
	env.RegisterActivityWithOptions(a.steer, activity.RegisterOptions{Name: activitySteer})
	return env
}

func call(id, name, args string) model.ToolCall {
	return model.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

func result(t *testing.T, env *testsuite.TestWorkflowEnvironment) SessionResult {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var r SessionResult
	if err := env.GetWorkflowResult(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestWorkflowRunsToolsInParallelAndCompletes(t *testing.T) {
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("c1", "echo", `{"text":"a"}`), call("c2", "echo", `{"text":"b"}`), call("c3", "write", `{"text":"w"}`)),
		modeltest.Text("done"),
	)
	ws := newFakeWorkspace(t)
	env := newEnv(t, p, ws)
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws"})
	r := result(t, env)
	if r.Outcome != agent.Complete || r.Text != "done" || r.ToolCalls != 3 {
		t.Fatalf("result = %+v", r)
	}
	if ws.writes.Load() != 1 {
		t.Errorf("write ran %d times", ws.writes.Load())
	}
	// The write's file change is journaled right after its result, as
	// rein run's session does.
	v, err := env.QueryWorkflow(EventsQuery, 0)
	if err != nil {
		t.Fatal(err)
	}
	var page EventsPage
	if err := v.Get(&page); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, raw := range page.Events {
		var ev agent.Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == agent.EventToolResult || ev.Type == agent.EventFileChange {
			kinds = append(kinds, string(ev.Type)+":"+firstNonEmpty(ev.ToolResult, ev.FileChange))
		}
	}
	if got := strings.Join(kinds, " "); !strings.Contains(got, "tool.result:c3 file.change:out.txt") || !page.Done {
		t.Errorf("events %s (done %v)", got, page.Done)
	}
	reqs := p.Requests()
	last := reqs[len(reqs)-1].Messages
	got := last[len(last)-1]
	text, _ := json.Marshal(got)
	for _, want := range []string{"echo a", "echo b", "wrote w"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the model did not get %q: %s", want, text)
		}
	}
}

// TestWorkflowVerifies: after a change the workspace's checks run as
// activities; a failure goes back to the model, which fixes it.
func TestWorkflowVerifies(t *testing.T) {
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("c1", "write", `{"text":"bug"}`)), modeltest.Text("done"),
		modeltest.ToolCalls(call("c2", "write", `{"text":"fix"}`)), modeltest.Text("fixed"),
	)
	ws := newFakeWorkspace(t)
	ws.checks, ws.failChecks = []string{"go test ./..."}, 1
	env := newEnv(t, p, ws)
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws"})
	r := result(t, env)
	if r.Outcome != agent.Complete || r.Text != "fixed" {
		t.Fatalf("result = %+v", r)
	}
	if got := strings.Join(ws.order, " "); got != "check:0 check:0" {
		t.Errorf("checks ran %q, want twice", got)
	}
	reqs := p.Requests()
	msgs, _ := json.Marshal(reqs[2].Messages)
	if !strings.Contains(string(msgs), "FAIL: TestAdd") {
		t.Errorf("the model did not read the failure: %s", msgs)
	}
}

// TestWorkflowRunsHooks: the workspace's hooks see every steering point,
// in order, and a PreToolUse block denies the call.
func TestWorkflowRunsHooks(t *testing.T) {
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("c1", "echo", `{"text":"a"}`), call("c2", "write", `{"text":"forbidden"}`)),
		modeltest.Text("done"),
	)
	ws := newFakeWorkspace(t)
	ws.hooks = true
	env := newEnv(t, p, ws)
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws"})
	r := result(t, env)
	if r.Outcome != agent.Complete || ws.writes.Load() != 0 {
		t.Fatalf("result %+v, %d writes (the hook should have blocked it)", r, ws.writes.Load())
	}
	got := strings.Join(ws.order, " ")
	for _, want := range []string{"steer:SessionStart", "steer:UserPromptSubmit", "steer:PreToolUse", "echo:a", "steer:PostToolUse", "steer:Stop"} {
		if !strings.Contains(got, want) {
			t.Errorf("hooks ran %q, missing %s", got, want)
		}
	}
	msgs, _ := json.Marshal(p.Requests()[1].Messages)
	if !strings.Contains(string(msgs), "the hook refuses forbidden things") {
		t.Errorf("the model did not read the hook's reason: %s", msgs)
	}
}

func firstNonEmpty(r *model.ToolResult, c *agent.FileChange) string {
	if r != nil {
		return r.CallID
	}
	return c.Path
}

// TestWorkflowHooksFailClosed: when the PreToolUse hooks cannot run (the
// activity fails), the call is blocked, not run unchecked.
func TestWorkflowHooksFailClosed(t *testing.T) {
	p := modeltest.NewScripted(modeltest.ToolCalls(call("c1", "write", `{"text":"x"}`)), modeltest.Text("done"))
	ws := newFakeWorkspace(t)
	ws.hooks, ws.hooksBroken = true, true
	env := newEnv(t, p, ws)
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws"})
	result(t, env)
	if ws.writes.Load() != 0 {
		t.Fatal("the call ran although its PreToolUse hooks could not")
	}
	msgs, _ := json.Marshal(p.Requests()[1].Messages)
	if !strings.Contains(string(msgs), "PreToolUse hooks failed") {
		t.Errorf("the model was not told why: %s", msgs)
	}
}
