package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// Decision.By values the harness itself uses.
const (
	byHarness  = "harness" // unknown tool, unusable arguments
	byDefault  = "default" // no policy configured: the tool set is the allow-list
	byPolicy   = "policy"  // the policy decided without naming a rule
	byHardDeny = "hard-deny"
	byApprover = "approver"
)

const reasonNoApprover = "needs approval and no one can be asked"

// toolTurn handles the tool calls of the assistant message just recorded:
// it reports and decides each call in order, runs the allowed ones
// concurrently, and records one tool message with a result for every call,
// in call order, whatever happened. Then it checks the stop conditions that
// follow a turn.
func (r *run) toolTurn(states []callState, text string) (OutcomeKind, error, bool) {
	r.out.ToolCalls += len(states)
	var stopErr error
	for i := range states {
		if _, halted := r.halted(); stopErr == nil && !halted {
			stopErr = r.admit(&states[i])
		}
	}
	if _, halted := r.halted(); stopErr == nil && !halted {
		r.execute(states)
	}
	stopErr = r.closeTurn(states, stopErr)
	if err := r.flushPlan(); err != nil && stopErr == nil {
		stopErr = err
	}
	return r.afterTurn(states, text, stopErr)
}

// closeTurn records the tool message: every call without a result (never
// decided or never run because the run is ending) gets an interrupted one,
// so the history stays valid for a resume. Then it reports the results and
// the message; after a failure they still reach hooks and the consumer.
// It returns stopErr, or the first reporting error.
func (r *run) closeTurn(states []callState, stopErr error) error {
	interrupted := ""
	results, parts := r.arrays.results.take(len(states)), r.arrays.parts.take(len(states))
	msg := model.Message{Role: model.RoleTool, Parts: parts}
	for i := range states {
		st := &states[i]
		if st.result.CallID == "" { // sanitizeAssistant gave every call an ID
			if interrupted == "" {
				interrupted = r.interruptedReason(stopErr)
			}
			st.result = errorResult(st, interrupted)
		}
		results[i] = st.result
		msg.Parts[i] = model.Part{Kind: model.PartToolResult, ToolResult: &results[i]}
	}
	r.c.Append(msg)
	for i := range states {
		st := &states[i]
		var err error
		if st.recorded != nil {
			err = st.recordErr
			if err == nil {
				err = r.deliverEvent(*st.recorded, nil, false)
			}
		} else {
			err = r.emit(Event{Type: EventToolResult, ToolResult: &st.result, ToolStructured: st.structured})
		}
		if err != nil && stopErr == nil {
			stopErr = err
		}
	}
	if err := r.emitMessage(); err != nil && stopErr == nil {
		stopErr = err
	}
	return stopErr
}

// afterTurn picks the outcome of a turn whose results are recorded.
func (r *run) afterTurn(states []callState, text string, stopErr error) (OutcomeKind, error, bool) {
	switch {
	case stopErr != nil && !errors.Is(stopErr, errStopped) && r.ctx.Err() == nil:
		return Failed, stopErr, true
	case stopErr != nil || r.ctx.Err() != nil:
		kind, err := r.ctxOutcome()
		return kind, err, true
	}
	if kind, ok := r.haltedOutcome(); ok {
		return kind, nil, true
	}
	blocked, repeated, needs := false, false, false
	for i := range states {
		st := &states[i]
		if st.finish {
			if text == "" {
				r.out.Text = st.result.Content
			}
			r.out.Reason = "tool " + clip(st.call.Name, tool.MaxNameLen) + " finished the run"
			return Complete, nil, true
		}
		switch {
		case st.unanswered:
			if r.noteUnanswered(st) && !blocked {
				blocked, needs = true, true
			}
		case st.denied:
			r.denials++
			if r.denials >= r.a.cfg.MaxConsecutiveDenials && !blocked {
				blocked = true
				r.out.Reason = fmt.Sprintf("%s in a row were denied; the last: %s",
					plural(r.denials, "tool call"), clip(st.result.Content, 200))
			}
		case st.run:
			r.denials, r.asks = 0, 0
		}
		if r.repeat.observe(st, r.a.cfg.RepeatLimit) && !repeated {
			repeated = true
			if st.unanswered && !blocked {
				// Repeating a call no one can approve: that is why it ended.
				blocked, needs = true, true
				r.out.Reason = r.needsApprovalReason()
			} else if !blocked {
				r.out.Reason = fmt.Sprintf("tool %s was called %s in a row with the same arguments and got the same result",
					clip(st.call.Name, tool.MaxNameLen), plural(r.repeat.count, "time"))
			}
		}
	}
	switch {
	case needs:
		return NeedsApproval, nil, true
	case blocked:
		return Blocked, nil, true
	case repeated:
		return RepeatedAction, nil, true
	}
	return "", nil, false
}

// admit reports one call and decides it, recording a result for any call
// that will not run. It returns an error only when the run must stop.
func (r *run) admit(st *callState) error {
	st.tool, _ = r.tools.Get(st.call.Name) // a nil Set is empty
	var spec tool.Spec
	if st.tool != nil {
		spec, _ = r.tools.Spec(st.call.Name)
		if spec.Effects.Mutating() && st.problem == "" {
			st.key = r.a.cfg.IDs.NewID("idem")
		}
	}
	if err := r.emit(Event{Type: EventToolCall, ToolCall: &st.call, IdempotencyKey: st.key}); err != nil {
		return err
	}
	var d Decision
	var decided *model.ToolCall
	switch {
	case st.tool == nil:
		res := tool.UnknownTool(st.call.Name, r.names)
		st.result = errorResult(st, res.Content)
		d = Decision{Action: policy.Deny.String(), Reason: "unknown tool", By: byHarness}
	case !r.permits(st.call.Name):
		d = r.deny(st, r.notAllowedReason(st.call.Name), byRestriction)
	case st.problem != "":
		st.result = errorResult(st, st.problem)
		d = Decision{Action: policy.Deny.String(), Reason: "unusable arguments", By: byHarness}
	default:
		var err error
		if d, err = r.decide(st, spec); err != nil {
			return err
		}
		if st.updated {
			decided = &st.call
		}
	}
	d.CallID, d.Tool = st.call.ID, st.call.Name
	st.decision = d
	return r.emit(Event{Type: EventToolDecision, Decision: &st.decision, ToolCall: decided})
}

// decide consults Steering (PreToolUse), asks the policy and, for Ask, the
// approver. Arguments a verdict replaced are decided afresh by the policy,
// and the verdict's permission applies to that decision under the Steering
// contract (see steerDecision). It returns an error only when the run was
// cancelled while an approver was asking.
func (r *run) decide(st *callState, spec tool.Spec) (Decision, error) {
	v := r.preToolUse(st, spec)
	if reason, halted := r.halted(); halted {
		return r.deny(st, "the run was halted: "+reason, byHook), nil
	}
	r.updateInput(st, v)
	pd, by := r.policyDecision(st, spec)
	pd, by = steerDecision(pd, by, v)
	d, err := r.resolve(st, spec, pd, by)
	if err == nil && st.updated {
		d.Reason = joinReason("a hook replaced the arguments", d.Reason)
		if st.denied {
			st.result.Content += "\n\n" + updatedNote(st)
		}
	}
	return d, err
}

// policyDecision asks the policy about st and names who decided.
func (r *run) policyDecision(st *callState, spec tool.Spec) (policy.Decision, string) {
	c := policy.Call{ID: st.call.ID, Spec: spec, Args: st.call.Args}
	if r.a.cfg.Policy == nil {
		return r.narrowDecision(c, policy.Decision{Action: policy.Allow}, byDefault)
	}
	pd := r.safeDecide(c)
	by := pd.Rule
	switch {
	case by == "" && pd.Hard:
		by = byHardDeny
	case by == "":
		by = byPolicy
	}
	return r.narrowDecision(c, pd, by)
}

// resolve turns a decision into the Decision to report, asking the
// approver for an Ask that is not a hard denial.
func (r *run) resolve(st *callState, spec tool.Spec, pd policy.Decision, by string) (Decision, error) {
	switch {
	case pd.Action == policy.Allow:
		st.run = true
		return Decision{Action: policy.Allow.String(), Reason: pd.Reason, By: by}, nil
	case pd.Action == policy.Ask && !pd.Hard && r.a.cfg.Approver == nil:
		st.unanswered = true
		return r.deny(st, reasonNoApprover, by), nil
	case pd.Action == policy.Ask && !pd.Hard:
		pc := policy.Call{ID: st.call.ID, Spec: spec, Args: st.call.Args}
		ad, err := r.safeApprove(pc, pd)
		if err != nil && r.ctx.Err() != nil {
			return Decision{}, r.ctx.Err()
		}
		by = ad.Rule
		if by == "" {
			by = byApprover
		}
		if err != nil {
			return r.deny(st, "approval failed: "+err.Error(), by), nil
		}
		if ad.Action == policy.Allow {
			st.run = true
			return Decision{Action: policy.Allow.String(), Reason: ad.Reason, By: by}, nil
		}
		st.unanswered = ad.Rule == ruleNever
		return r.deny(st, ad.Reason, by), nil
	}
	return r.deny(st, pd.Reason, by), nil
}

// joinReason puts a note in front of a decision's reason.
func joinReason(note, reason string) string {
	if reason == "" {
		return note
	}
	return note + "; " + reason
}

// deny records a denial result for st and returns the decision to report.
func (r *run) deny(st *callState, reason, by string) Decision {
	if reason == "" {
		reason = "the policy does not allow this call"
	}
	st.denied = true
	st.result = errorResult(st, "tool call denied: "+reason)
	return Decision{Action: policy.Deny.String(), Reason: reason, By: by}
}

// safeDecide calls the policy, turning a panic into a denial: a broken
// policy must fail closed, and must not crash the run.
func (r *run) safeDecide(c policy.Call) (d policy.Decision) {
	defer func() {
		if v := recover(); v != nil {
			d = policy.Decision{Action: policy.Deny, Reason: fmt.Sprintf("the policy failed (%v)", v)}
		}
	}()
	return r.a.cfg.Policy.Decide(r.ctx, c)
}

// safeApprove calls the approver, turning a panic into an error.
func (r *run) safeApprove(c policy.Call, d policy.Decision) (ad policy.Decision, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the approver failed (%v)", v)
		}
	}()
	return r.a.cfg.Approver.Approve(r.ctx, c, d)
}

// execute runs the allowed calls, ordered where their effects conflict
// (see schedule.go) and otherwise concurrently, at most MaxParallel at
// once. A call still running or not yet started when the run ends is
// recorded as interrupted.
func (r *run) execute(states []callState) {
	var buf [4]int // most turns run a few calls: no heap for their indices
	idx := buf[:0]
	for i := range states {
		if states[i].run {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return
	}
	opts := tool.InvokeOptions{Timeout: r.a.cfg.ToolTimeout, MaxResultBytes: r.a.cfg.MaxResultBytes, Workers: &r.workers}
	levels := [][]int{nil}
	if len(idx) > 1 {
		acc := make([]access, len(idx))
		for j, i := range idx {
			spec, ok := r.tools.Spec(states[i].call.Name)
			if ce, is := states[i].tool.(callEffecter); is && ok {
				spec.Effects = ce.scheduleEffects(states[i].call.Args, r.permitted())
			}
			acc[j] = callAccess(spec, ok, states[i].call.Args)
		}
		levels = scheduleLevels(acc)
	}
	for _, level := range levels {
		if r.ctx.Err() != nil {
			return // later levels never start
		}
		// The closure gets state indices, not idx: capturing idx would
		// move buf to the heap.
		n, only := len(level), idx[0]
		if level == nil { // a single call
			n = 1
		} else {
			for j, k := range level {
				level[j] = idx[k]
			}
		}
		r.exec = execLevel{states: states, level: level, only: only, opts: opts}
		r.a.cfg.FanOut.Run(r.ctx, n, r.a.cfg.MaxParallel, r.execFn())
	}
	r.exec = execLevel{} // do not pin the turn's states
}

// execLevel is the level of calls execute hands the FanOut.
type execLevel struct {
	states []callState
	level  []int // indices into states; nil for the single call only
	only   int
	opts   tool.InvokeOptions
}

// execFn returns the FanOut's fn, made once per run: it reads r.exec,
// which execute sets before each FanOut.Run and no one changes until Run
// has returned — the FanOut contract is that every fn has returned by
// then. A closure per level would be an allocation per model call.
func (r *run) execFn() func(context.Context, int) {
	if r.execFunc == nil {
		r.execFunc = func(ctx context.Context, j int) {
			e := &r.exec
			i := e.only
			if e.level != nil {
				i = e.level[j]
			}
			r.invoke(ctx, &e.states[i], e.opts)
		}
	}
	return r.execFunc
}

// invoke runs one call under ctx, the run's context or one the FanOut
// derived from it. It may run on any goroutine; it touches only st and the
// (serialised) journal.
func (r *run) invoke(ctx context.Context, st *callState, opts tool.InvokeOptions) {
	if r.ctx.Err() != nil || ctx.Err() != nil {
		return // recorded as interrupted by toolTurn
	}
	// The call's identity rides in the context Invoke makes for the call
	// (one allocation fewer than tool.WithCall here).
	opts.CallID, opts.IdempotencyKey = st.call.ID, st.key
	if l := r.a.cfg.Logger; l != nil {
		ctx = tool.WithLogger(ctx, l.With("call_id", st.call.ID, "tool", st.call.Name))
	}
	if progress := r.a.cfg.ToolProgress; progress != nil {
		id, name := st.call.ID, st.call.Name
		ctx = tool.WithProgress(ctx, func(text string) { progress(id, name, text) })
	}
	res := tool.Invoke(ctx, st.tool, st.call.Args, opts)
	if res.IsError && r.ctx.Err() != nil {
		// The failure is the cancellation's doing; say so rather than
		// show the tool's view of it. A call that succeeded keeps its
		// real result: it did happen.
		return
	}
	st.result = model.ToolResult{CallID: st.call.ID, Name: st.call.Name, Content: res.Content, IsError: res.IsError}
	st.structured = res.Structured
	st.finish = res.Finish
	if r.a.cfg.Steering != nil {
		ctx = tool.WithCall(ctx, st.call.ID, st.key) // as the tool saw it
	}
	r.postToolUse(ctx, st) // PostToolUse steering, before the result is journaled
	if r.a.cfg.Journal != nil {
		// Journal the result now, not when the whole turn is done: if
		// rein dies while a sibling call still runs, a resume must find
		// this call finished rather than report it interrupted.
		ev := r.stamp(Event{Type: EventToolResult, ToolResult: &st.result, ToolStructured: st.structured})
		st.recorded, st.recordErr = &ev, r.journal(ev)
	}
}
