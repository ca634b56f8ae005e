package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// errContinueAsNew stops the loop before a model call when the history is
// long: the workflow then continues as new with the conversation.
var errContinueAsNew = errors.New("the session's history is long: continuing as new")

// modelStub is the agent's Provider: each Stream is one model activity on
// the shared queue, whose recorded events are replayed to the agent.
type modelStub struct{ s *session }

func (m modelStub) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		wctx := workflowOf(ctx)
		if m.s.shouldContinueAsNew(wctx) {
			m.s.continueAt = len(m.s.events)
			yield(model.Event{}, errContinueAsNew)
			return
		}
		if payloadSize(req) > maxPayload {
			yield(model.Event{}, errPayloadTooLarge)
			return
		}
		m.s.steps++
		var out ModelOutput
		if err := m.s.execute(wctx, m.s.modelOptions(), activityModel, ModelInput{Request: *req}, &out); err != nil {
			yield(model.Event{}, activityError("the model call", err))
			return
		}
		for _, ev := range out.Events {
			if !yield(ev, nil) {
				return
			}
		}
		if out.Error != "" {
			yield(model.Event{}, errors.New(out.Error))
		}
	}
}

// toolStub is one tool of the session: its Call is an activity on the
// workspace queue.
type toolStub struct {
	s    *session
	spec tool.Spec
}

func (t *toolStub) Spec() tool.Spec { return t.spec }

// InlineCall marks the stub as one tool.Invoke must call on the workflow
// coroutine (see tool.Inline).
func (t *toolStub) InlineCall() {}

func (t *toolStub) Call(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	wctx := workflowOf(ctx)
	in := ToolInput{
		Workspace: t.s.in.Workspace, Preset: t.s.in.Preset, CallID: tool.CallID(ctx), Tool: t.spec.Name,
		Args: args, IdempotencyKey: tool.IdempotencyKey(ctx), Rerunnable: !t.spec.Effects.Mutating(),
	}
	var out ToolOutput
	if t.spec.Effects.Mutating() {
		t.s.mutated = true // the verification gate runs after a change
	}
	if err := t.s.execute(wctx, t.s.toolOptions(), activityTool, in, &out); err != nil {
		if temporal.IsCanceledError(err) {
			return nil, fmt.Errorf("tool %q was cancelled: the session was cancelled", t.spec.Name)
		}
		// Every attempt failed without an answer (the retries ran out):
		// the call may have run, so it is reported interrupted.
		return &tool.Result{Content: interruptedText(t.spec.Name, err.Error()), IsError: true}, nil
	}
	if len(out.Changes) > 0 {
		t.s.changes[in.CallID] = out.Changes
	}
	return &tool.Result{Content: out.Content, IsError: out.IsError, Structured: out.Structured, Finish: out.Finish}, nil
}

// interruptedText is what the model reads about a call whose worker died.
func interruptedText(name, why string) string {
	s := fmt.Sprintf("tool %s was interrupted: the worker running it stopped before it finished; it may have partly run, and it was not run again", name)
	if why != "" {
		s += " (" + why + ")"
	}
	return s + ". Check its effects before calling it again."
}

// deciderStub is the agent's Policy: the workspace worker's policy decides,
// in an activity, so that its file look-ups happen where the files are.
type deciderStub struct{ s *session }

func (d deciderStub) Decide(ctx context.Context, c policy.Call) policy.Decision {
	wctx := workflowOf(ctx)
	in := DecideInput{Workspace: d.s.in.Workspace, Preset: d.s.in.Preset, CallID: c.ID, Tool: c.Spec.Name, Args: c.Args}
	var out decision
	if err := d.s.execute(wctx, d.s.setupOptions(), activityDecide, in, &out); err != nil {
		// Fail closed: an undecided call does not run.
		return policy.Decision{Action: policy.Deny, Reason: activityError("the policy decision", err).Error()}
	}
	return out.policy()
}

// approverStub resolves Asks through ApproveUpdate, waiting at most the
// approval timeout on a durable timer.
type approverStub struct{ s *session }

func (a approverStub) Approve(ctx context.Context, c policy.Call, d policy.Decision) (policy.Decision, error) {
	wctx := workflowOf(ctx)
	s := a.s
	s.pending = append(s.pending, Pending{CallID: c.ID, Tool: c.Spec.Name, Args: c.Args, Reason: d.Reason, Since: workflow.Now(wctx)})
	defer s.dropPending(c.ID)
	timeout := s.in.ApprovalTimeout
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	ok, err := workflow.AwaitWithTimeout(wctx, timeout, func() bool { _, answered := s.answers[c.ID]; return answered })
	if err != nil {
		return policy.Decision{}, fmt.Errorf("waiting for approval: %w", err)
	}
	if !ok {
		return policy.Decision{Action: policy.Deny, Rule: "approval-timeout",
			Reason: fmt.Sprintf("approval timed out after %v: nobody answered", timeout)}, nil
	}
	ans := s.answers[c.ID]
	delete(s.answers, c.ID)
	by := "approver:" + ans.By
	if ans.By == "" {
		by = "approver:temporal"
	}
	if ans.Allow {
		return policy.Decision{Action: policy.Allow, Reason: ans.Reason, Rule: by}, nil
	}
	reason := ans.Reason
	if reason == "" {
		reason = "denied by the approver"
	}
	return policy.Decision{Action: policy.Deny, Reason: reason, Rule: by}, nil
}

// activityError words an activity's failure for the model and the log.
func activityError(what string, err error) error {
	var app *temporal.ApplicationError
	var to *temporal.TimeoutError
	switch {
	case temporal.IsCanceledError(err):
		return fmt.Errorf("%s was cancelled", what)
	case errors.As(err, &to):
		return fmt.Errorf("%s timed out (%v): no worker answered", what, to.TimeoutType())
	case errors.As(err, &app):
		return fmt.Errorf("%s failed: %s", what, app.Message())
	}
	return fmt.Errorf("%s failed: %v", what, err)
}

// retryOnlyTimeouts is the retry policy of every activity: Temporal retries
// an attempt that timed out (its worker died or hung), never one that
// answered with an error — rein already retried what was safe inside.
func retryOnlyTimeouts(attempts int32) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2,
		MaximumInterval: 10 * time.Second, MaximumAttempts: attempts}
}

// inlineTool runs a tool of the loop itself (pure, in memory) on the
// workflow coroutine.
type inlineTool struct{ tool.Tool }

// InlineCall implements tool.Inline.
func (inlineTool) InlineCall() {}

// verifierStub is the verification gate: the workspace's checks, each an
// activity, after a session that ran a mutating tool (or always).
type verifierStub struct{ s *session }

func (v verifierStub) Checks(ctx context.Context, _ int) []agent.Check {
	s := v.s
	if !s.setup.VerifyAlways && !s.mutated {
		return nil
	}
	checks := make([]agent.Check, len(s.setup.Verify))
	for i, name := range s.setup.Verify {
		checks[i] = agent.Check{Name: name, Run: func(ctx context.Context) agent.CheckResult {
			wctx := workflowOf(ctx)
			var out agent.CheckResult
			in := CheckInput{Workspace: s.in.Workspace, Preset: s.in.Preset, Index: i, Name: name}
			if err := s.execute(wctx, s.checkOptions(), activityCheck, in, &out); err != nil {
				return agent.CheckResult{ExitCode: -1, Err: activityError("the check", err).Error()}
			}
			return out
		}}
	}
	return checks
}

// steeringStub runs the workspace's hooks (Claude Code's hook points) as
// activities on its queue. Hooks that cannot run fail closed where they
// decide (a PreToolUse or UserPromptSubmit is blocked) and change nothing
// elsewhere.
type steeringStub struct{ s *session }

func (st steeringStub) Steer(ctx context.Context, p agent.SteerPoint) agent.SteerVerdict {
	wctx := workflowOf(ctx)
	s := st.s
	var v agent.SteerVerdict
	in := SteerInput{Workspace: s.in.Workspace, Preset: s.in.Preset, Point: p}
	if err := s.execute(wctx, s.setupOptions(), activitySteer, in, &v); err != nil {
		switch p.Event {
		case agent.SteerPreToolUse, agent.SteerUserPromptSubmit:
			return agent.SteerVerdict{Block: true, Reason: activityError("the "+string(p.Event)+" hooks", err).Error()}
		}
		return agent.SteerVerdict{}
	}
	return v
}
