package temporal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/engine"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/telemetry/redact"
	"github.com/reinharness/rein/tool"
)

// Models and Workspace are what a worker acts with (see package engine).
type (
	Models    = engine.Models
	Workspace = engine.Workspace
)

// maxChanges bounds the file changes one call reports (a command's writes
// are not journaled; a patch may touch many files).
const maxChanges = 1000

// heartbeatEvery is how often a running tool call tells Temporal its
// worker is alive; the SDK throttles to at most this (WorkerOptions).
const heartbeatEvery = time.Second

// maxModelEvents bounds the events one model activity returns before
// consecutive deltas are merged, to keep the payload well under
// Temporal's 2 MB limit.
const maxModelEvents = 2000

// failed makes err an answer Temporal must not retry; a cancelled context
// (the worker stopping, the session cancelled) stays retryable.
func failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), "rein", nil)
}

// modelActivity runs one model call with rein's own retries inside.
func modelActivity(models Models) func(context.Context, ModelInput) (ModelOutput, error) {
	return func(ctx context.Context, in ModelInput) (ModelOutput, error) {
		p, err := models.Provider(ctx)
		if err != nil {
			return ModelOutput{}, failed(ctx, err)
		}
		var out ModelOutput
		req := in.Request
		// A model may think for longer than the heartbeat timeout
		// before its first token.
		stop := keepAlive(ctx)
		defer stop()
		for ev, err := range p.Stream(ctx, &req) {
			if err != nil {
				if ctx.Err() != nil {
					return ModelOutput{}, ctx.Err() // the worker is stopping: another one calls again
				}
				out.Error = err.Error()
				break
			}
			out.Events = append(out.Events, ev)
		}
		if len(out.Events) > maxModelEvents {
			out.Events = mergeDeltas(out.Events)
		}
		redactModel(&out)
		return out, nil
	}
}

// redactModel removes known secrets from a model call's output before it
// enters the history: texts, reasoning and tool-call arguments.
// A run of deltas holding a secret is merged into one event first, so a
// secret split across deltas is found too.
func redactModel(out *ModelOutput) {
	evs := out.Events[:0:0]
	for i := 0; i < len(out.Events); {
		ev := out.Events[i]
		if ev.Kind == model.EventTextDelta || ev.Kind == model.EventReasoningDelta {
			j := i + 1
			var b strings.Builder
			b.WriteString(ev.Text)
			for j < len(out.Events) && out.Events[j].Kind == ev.Kind && out.Events[j].Signature == "" {
				b.WriteString(out.Events[j].Text)
				j++
			}
			if joined := b.String(); redact.String(joined) != joined {
				ev.Text = redact.String(joined)
				evs = append(evs, ev)
			} else {
				evs = append(evs, out.Events[i:j]...)
			}
			i = j
			continue
		}
		ev.Text = redact.String(ev.Text)
		if ev.ToolCall != nil {
			c := *ev.ToolCall
			c.Args = redact.JSON(c.Args)
			ev.ToolCall = &c
		}
		evs = append(evs, ev)
		i++
	}
	out.Events = evs
	out.Error = redact.String(out.Error)
}

// mergeDeltas joins runs of text (and of reasoning) deltas: the answer is
// the same, in fewer events.
func mergeDeltas(evs []model.Event) []model.Event {
	out := evs[:0:0]
	for _, ev := range evs {
		n := len(out)
		if n > 0 && (ev.Kind == model.EventTextDelta || ev.Kind == model.EventReasoningDelta) &&
			out[n-1].Kind == ev.Kind && out[n-1].Signature == "" && ev.Signature == "" && len(out[n-1].Text) < 4096 {
			out[n-1].Text += ev.Text
			continue
		}
		out = append(out, ev)
	}
	return out
}

// workspaceActivities are the activities of one workspace's queue.
type workspaceActivities struct {
	name string
	ws   Workspace
}

func (a *workspaceActivities) checkName(name string) error {
	if name != a.name {
		return fmt.Errorf("this worker serves workspace %q, not %q (its task queue is misrouted)", a.name, name)
	}
	return nil
}

func (a *workspaceActivities) setup(ctx context.Context, in SetupInput) (Setup, error) {
	if err := a.checkName(in.Workspace); err != nil {
		return Setup{}, failed(ctx, err)
	}
	st, err := a.ws.Setup(ctx, in.Preset, in.Agent, in.Depth)
	if err != nil {
		return Setup{}, failed(ctx, err)
	}
	return st, nil
}

func (a *workspaceActivities) decide(ctx context.Context, in DecideInput) (decision, error) {
	if err := a.checkName(in.Workspace); err != nil {
		return decision{}, failed(ctx, err)
	}
	d, err := a.ws.Policy(ctx, in.Preset)
	if err != nil {
		return decision{}, failed(ctx, err)
	}
	set, _, err := a.ws.Tools(ctx, in.Preset)
	if err != nil {
		return decision{}, failed(ctx, err)
	}
	spec, ok := set.Spec(in.Tool)
	if !ok {
		return toWire(policy.Decision{Action: policy.Deny, Reason: "this workspace has no tool " + in.Tool}), nil
	}
	return toWire(d.Decide(ctx, policy.Call{ID: in.CallID, Spec: spec, Args: in.Args})), nil
}

// tool runs one call. An attempt after the first means the worker of an
// earlier one died or stopped mid-call: a call that changes things is then
// reported interrupted, never run twice.
func (a *workspaceActivities) tool(ctx context.Context, in ToolInput) (ToolOutput, error) {
	if err := a.checkName(in.Workspace); err != nil {
		return ToolOutput{}, failed(ctx, err)
	}
	if activity.GetInfo(ctx).Attempt > 1 && !in.Rerunnable {
		return ToolOutput{Content: interruptedText(in.Tool, ""), IsError: true, Interrupted: true}, nil
	}
	set, opts, err := a.ws.Tools(ctx, in.Preset)
	if err != nil {
		return ToolOutput{}, failed(ctx, err)
	}
	t, ok := set.Get(in.Tool)
	if !ok {
		return ToolOutput{Content: fmt.Sprintf("tool %s is not available in this workspace", in.Tool), IsError: true}, nil
	}
	callCtx := tool.WithSessionID(tool.WithCallID(ctx, in.CallID), activity.GetInfo(ctx).WorkflowExecution.ID)
	if in.IdempotencyKey != "" {
		callCtx = tool.WithIdempotencyKey(callCtx, in.IdempotencyKey)
	}
	before := a.ws.LastChange(ctx, in.Preset)
	stop := keepAlive(ctx)
	res := tool.Invoke(callCtx, t, in.Args, opts)
	stop()
	if ctx.Err() != nil {
		// Cancelled by the session (nobody waits) or by the worker
		// stopping: the retry reports the call interrupted.
		return ToolOutput{}, ctx.Err()
	}
	// The history is the session's store: secrets the worker knows (its
	// credentials, registered at start) never enter it.
	out := ToolOutput{Content: redact.String(res.Content), IsError: res.IsError, Structured: redact.JSON(res.Structured), Finish: res.Finish}
	if o, ok := a.ws.(engine.ResultObserver); ok {
		o.ObserveResult(ctx, in.Preset, in.Tool, out.Content)
	}
	if in.IdempotencyKey != "" {
		out.Changes = a.ws.Changes(ctx, in.Preset, before, in.IdempotencyKey)
		if len(out.Changes) > maxChanges {
			out.Changes = out.Changes[:maxChanges]
		}
	}
	if len(out.Structured) > maxPayload/4 {
		out.Structured = nil // the content says the same for the model
	}
	if len(out.Content) > maxPayload/2 {
		out.Content, _ = tool.Truncate(out.Content, maxPayload/2)
	}
	return out, nil
}

// check runs one verification check in the workspace.
func (a *workspaceActivities) check(ctx context.Context, in CheckInput) (agent.CheckResult, error) {
	if err := a.checkName(in.Workspace); err != nil {
		return agent.CheckResult{}, failed(ctx, err)
	}
	stop := keepAlive(ctx)
	res, err := a.ws.Check(ctx, in.Preset, in.Index)
	stop()
	if err != nil {
		return agent.CheckResult{}, failed(ctx, err)
	}
	res.Output, res.Err = redact.String(res.Output), redact.String(res.Err)
	return res, nil
}

// steer runs the workspace's hooks at one point.
func (a *workspaceActivities) steer(ctx context.Context, in SteerInput) (agent.SteerVerdict, error) {
	if err := a.checkName(in.Workspace); err != nil {
		return agent.SteerVerdict{}, failed(ctx, err)
	}
	stop := keepAlive(ctx)
	v, err := a.ws.Steer(ctx, in.Preset, in.Point)
	stop()
	if err != nil {
		return agent.SteerVerdict{}, failed(ctx, err)
	}
	return v, nil
}

// keepAlive heartbeats until stop is called, so a dead worker is noticed
// within the heartbeat timeout and a cancellation reaches the call.
func keepAlive(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(heartbeatEvery)
		defer tick.Stop()
		for {
			activity.RecordHeartbeat(ctx)
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// errNoWorkspace reports a worker configured without workspaces.
var errNoWorkspace = errors.New("a worker needs at least one workspace")
