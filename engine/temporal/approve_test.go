package temporal

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model/modeltest"
)

// testUpdate is an UpdateCallbacks that records the outcome.
type testUpdate struct {
	rejected, failed error
	done             bool
}

func (u *testUpdate) Accept()                   {}
func (u *testUpdate) Reject(err error)          { u.rejected = err }
func (u *testUpdate) Complete(_ any, err error) { u.done, u.failed = true, err }

func TestWorkflowApprovalAllowed(t *testing.T) {
	p := modeltest.NewScripted(modeltest.ToolCalls(call("c1", "write", `{"text":"ask"}`)), modeltest.Text("ok"))
	ws := newFakeWorkspace(t)
	env := newEnv(t, p, ws)
	var wrong, right testUpdate
	var pending Status
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(StatusQuery)
		if err != nil {
			t.Errorf("status query: %v", err)
			return
		}
		if err := v.Get(&pending); err != nil {
			t.Error(err)
		}
		env.UpdateWorkflow(ApproveUpdate, "u1", &wrong, ApproveInput{CallID: "nope", Allow: true})
		env.UpdateWorkflow(ApproveUpdate, "u2", &right, ApproveInput{CallID: "c1", Allow: true, By: "alice"})
	}, time.Minute)
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws"})
	r := result(t, env)
	if pending.State != StateWaiting || len(pending.Pending) != 1 || pending.Pending[0].CallID != "c1" {
		t.Errorf("status while waiting = %+v", pending)
	}
	if wrong.rejected == nil || !strings.Contains(wrong.rejected.Error(), "not waiting") {
		t.Errorf("an approval of an unknown call was not rejected: %v", wrong.rejected)
	}
	if !right.done || right.failed != nil || ws.writes.Load() != 1 || r.Outcome != agent.Complete {
		t.Errorf("approved call: update done=%v err=%v writes=%d outcome=%s", right.done, right.failed, ws.writes.Load(), r.Outcome)
	}
}

func TestWorkflowApprovalTimesOut(t *testing.T) {
	p := modeltest.NewScripted(modeltest.ToolCalls(call("c1", "write", `{"text":"ask"}`)), modeltest.Text("ok"))
	ws := newFakeWorkspace(t)
	env := newEnv(t, p, ws)
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws", ApprovalTimeout: 30 * time.Second})
	r := result(t, env)
	if ws.writes.Load() != 0 {
		t.Error("a call whose approval timed out ran")
	}
	reqs := p.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Parts[0].ToolResult.Content; !strings.Contains(got, "approval timed out after 30s") {
		t.Errorf("the model read %q", got)
	}
	if r.Outcome != agent.Complete {
		t.Errorf("outcome %s", r.Outcome)
	}
}

func TestWorkflowCancelled(t *testing.T) {
	p := modeltest.NewScripted(modeltest.ToolCalls(call("c1", "write", `{"text":"ask"}`)), modeltest.Text("ok"))
	env := newEnv(t, p, newFakeWorkspace(t))
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws"})
	if err := env.GetWorkflowError(); !errors.Is(err, workflow.ErrCanceled) && !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("workflow error = %v, want cancelled", err)
	}
}

func TestWorkflowContinuesAsNew(t *testing.T) {
	var turns []modeltest.Turn
	for i := range 6 {
		turns = append(turns, modeltest.ToolCalls(call("c"+string(rune('a'+i)), "echo", `{"text":"x"}`)))
	}
	p := modeltest.NewScripted(append(turns, modeltest.Text("done"))...)
	env := newEnv(t, p, newFakeWorkspace(t))
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws", MaxHistory: 20})
	err := env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("workflow error = %v, want continue-as-new", err)
	}
	var next SessionInput
	if err := decodeArgs(can, &next); err != nil {
		t.Fatal(err)
	}
	if next.Prompt != "" || len(next.History) < 3 || next.StepsUsed == 0 || next.EventBase == 0 || next.Segment != 1 {
		t.Fatalf("continuation = prompt %q, %d messages, %d steps, base %d, segment %d", next.Prompt, len(next.History), next.StepsUsed, next.EventBase, next.Segment)
	}
	// The continuation finishes the session from where it stopped.
	env2 := newEnv(t, p, newFakeWorkspace(t))
	env2.ExecuteWorkflow(WorkflowName, next)
	if err := env2.GetWorkflowError(); err != nil && !errors.As(err, &can) {
		t.Fatal(err)
	}
}

// decodeArgs reads the continued run's input.
func decodeArgs(can *workflow.ContinueAsNewError, v any) error {
	return converter.GetDefaultDataConverter().FromPayloads(can.Input, v)
}

// TestWorkflowTimeout: the session's timeout is a durable timer that
// ends the loop Deadline and cancels the call in flight.
func TestWorkflowTimeout(t *testing.T) {
	p := modeltest.NewScripted(modeltest.ToolCalls(call("c1", "write", `{"text":"ask"}`)), modeltest.Text("never"))
	ws := newFakeWorkspace(t)
	ws.timeout = 5 * time.Minute
	env := newEnv(t, p, ws)
	// The approval would wait an hour: the timeout ends it first.
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws", ApprovalTimeout: time.Hour})
	r := result(t, env)
	if r.Outcome != agent.Deadline || !strings.Contains(r.Reason, "timeout of 5m0s") {
		t.Fatalf("result = %+v, want deadline", r)
	}
}
