package agent

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// byHook is the Decision.By of a decision a Steering verdict made.
const byHook = "hook"

// maxHookText caps each piece of text a verdict adds for the model
// (context, feedback, a reason), so a hook that prints a novel cannot
// flood the context window.
const maxHookText = 8 << 10

// steerState is the run's steering state.
type steerState struct {
	// haltMu guards haltReason and isHalted: PreToolUse and PostToolUse
	// verdicts arrive from the goroutines running calls.
	haltMu     sync.Mutex
	haltReason string
	isHalted   bool
	// stopActive is set once a Stop verdict made the run go on.
	stopActive bool
}

// steerCall is a call's steering state, part of callState.
type steerCall struct {
	// updated marks a call whose arguments a PreToolUse verdict replaced;
	// call.Args then holds the new ones, which the policy decided.
	updated bool
	// original is what the model sent before the replacement.
	original []byte
}

// discardLogger serves an Agent without a Logger.
var discardLogger = slog.New(slog.DiscardHandler)

// diag returns the logger for the loop's own diagnostics.
func (a *Agent) diag() *slog.Logger {
	if a.cfg.Logger != nil {
		return a.cfg.Logger
	}
	return discardLogger
}

// steer consults Steering at p, if any. A panic is recovered and logged and
// gives the empty verdict: a broken hook must not break the run. A Halt in
// the verdict marks the run halted.
func (r *run) steer(ctx context.Context, p SteerPoint) (v SteerVerdict) {
	s := r.a.cfg.Steering
	if s == nil {
		return SteerVerdict{}
	}
	p.SessionID = r.c.id
	defer func() {
		if e := recover(); e != nil {
			r.a.diag().Warn("steering panicked; its verdict is ignored", "event", string(p.Event), "panic", fmt.Sprint(e))
			v = SteerVerdict{}
		}
		if v.Halt {
			r.halt(v.HaltReason, p.Event)
		}
	}()
	return s.Steer(ctx, p)
}

// halt marks the run halted by a verdict at event; the first reason wins.
func (r *run) halt(reason string, event SteerEvent) {
	r.haltMu.Lock()
	defer r.haltMu.Unlock()
	if r.isHalted {
		return
	}
	if reason == "" {
		reason = "a " + string(event) + " hook stopped the run"
	}
	r.haltReason, r.isHalted = clip(reason, maxHookText), true
}

// halted reports whether a verdict halted the run, and why.
func (r *run) halted() (string, bool) {
	r.haltMu.Lock()
	defer r.haltMu.Unlock()
	return r.haltReason, r.isHalted
}

// haltedOutcome returns Blocked with the halt's reason when the run was
// halted.
func (r *run) haltedOutcome() (OutcomeKind, bool) {
	reason, ok := r.halted()
	if !ok {
		return "", false
	}
	r.out.Reason = reason
	return Blocked, true
}

// hookContext labels text a hook added for the model, so the model can
// tell it from what the user wrote.
func hookContext(event SteerEvent, text string) string {
	return "Context from a hook (" + string(event) + "):\n" + clip(text, maxHookText)
}

// begin runs the SessionStart and UserPromptSubmit points and appends the
// user's input, with any context the hooks added, as one user message.
// With input "" (continuing a conversation) only SessionStart runs, and its
// context, if any, goes in a user message of its own.
func (r *run) begin(input string) (OutcomeKind, error, bool) {
	source := "startup"
	if r.c.Len() > 0 {
		source = "resume"
	}
	var extra []model.Part
	v := r.steer(r.ctx, SteerPoint{Event: SteerSessionStart, Source: source})
	if kind, ok := r.haltedOutcome(); ok {
		return kind, nil, true
	}
	if v.Context != "" {
		extra = append(extra, model.TextPart(hookContext(SteerSessionStart, v.Context)))
	}
	if input != "" {
		v := r.steer(r.ctx, SteerPoint{Event: SteerUserPromptSubmit, Prompt: input})
		if kind, ok := r.haltedOutcome(); ok {
			return kind, nil, true
		}
		if v.Block {
			reason := v.Reason
			if reason == "" {
				reason = "no reason given"
			}
			r.out.Reason = "a UserPromptSubmit hook blocked the prompt: " + clip(reason, maxHookText)
			return Blocked, nil, true
		}
		if v.Context != "" {
			extra = append(extra, model.TextPart(hookContext(SteerUserPromptSubmit, v.Context)))
		}
	}
	if input == "" && len(extra) == 0 {
		return "", nil, false
	}
	parts := make([]model.Part, 0, 1+len(extra))
	if input != "" {
		parts = append(parts, model.TextPart(input))
	}
	r.c.Append(model.Message{Role: model.RoleUser, Parts: append(parts, extra...)})
	if err := r.emitMessage(); err != nil {
		return Failed, err, true
	}
	return "", nil, false
}

// preToolUse consults Steering on a call about to be decided. Steering
// gets copies: whatever it does to them, only its verdict counts.
func (r *run) preToolUse(st *callState, spec tool.Spec) SteerVerdict {
	if r.a.cfg.Steering == nil {
		return SteerVerdict{}
	}
	// Copied here, not at entry: taking the parameter's address would move
	// it to the heap on every call, with or without Steering.
	call, sp := st.call, spec
	call.Args = bytes.Clone(call.Args)
	return r.steer(r.ctx, SteerPoint{Event: SteerPreToolUse, Call: &call, Spec: &sp})
}

// updateInput applies a verdict's UpdatedInput to st. Input that is not a
// usable JSON object is ignored with a warning: the model's own arguments
// are then decided and run, as if the hook had said nothing about them.
func (r *run) updateInput(st *callState, v SteerVerdict) {
	if len(v.UpdatedInput) == 0 {
		return
	}
	// The copy first: the canonical form may be the arguments themselves,
	// which must not be the hook's to change.
	args := bytes.Clone(v.UpdatedInput)
	canon, problem := canonicalArgs(args)
	if problem != "" {
		r.a.diag().Warn("a PreToolUse hook returned updated input that is not a JSON object; it is ignored",
			"tool", st.call.Name, "call_id", st.call.ID, "problem", problem)
		return
	}
	st.original = st.call.Args
	st.call.Args = args
	st.canon, st.updated = canon, true
}

// steerDecision applies a PreToolUse verdict to the policy's decision pd
// (made by by) under the Steering contract: a hard denial or a policy
// Deny stands whatever the verdict; a Block or Deny denies; an Ask turns
// an Allow into an Ask; an Allow lifts an Ask only when it is Trusted.
func steerDecision(pd policy.Decision, by string, v SteerVerdict) (policy.Decision, string) {
	switch {
	case pd.Hard || pd.Action != policy.Allow && pd.Action != policy.Ask:
		return pd, by
	case v.Block || v.Permission == PermissionDeny:
		return policy.Decision{Action: policy.Deny, Reason: hookReason(v, "a hook denied the call")}, byHook
	case v.Permission == PermissionAsk && pd.Action == policy.Allow:
		return policy.Decision{Action: policy.Ask, Reason: hookReason(v, "a hook asks for approval")}, byHook
	case v.Permission == PermissionAllow && v.Trusted && pd.Action == policy.Ask:
		return policy.Decision{Action: policy.Allow, Reason: hookReason(v, "a hook of the user's configuration allowed it")}, byHook
	}
	return pd, by
}

// hookReason picks the reason of a PreToolUse verdict.
func hookReason(v SteerVerdict, def string) string {
	switch {
	case v.PermissionReason != "":
		return clip(v.PermissionReason, maxHookText)
	case v.Reason != "":
		return clip(v.Reason, maxHookText)
	}
	return def
}

// updatedNote tells the model that a hook replaced its arguments: the
// result it reads is that of the replacement, not of what it sent.
func updatedNote(st *callState) string {
	return "note: a hook replaced the arguments of this call; what was decided and run was " +
		clip(string(st.call.Args), 2<<10)
}

// postToolUse runs on the goroutine that ran st's call, once its result is
// set and before it is journaled: it notes replaced arguments and adds a
// PostToolUse verdict's feedback and context to the result.
func (r *run) postToolUse(ctx context.Context, st *callState) {
	if st.updated {
		st.result.Content = updatedNote(st) + "\n\n" + st.result.Content
	}
	if r.a.cfg.Steering == nil {
		return
	}
	spec, _ := r.tools.Spec(st.call.Name)
	call, res := st.call, st.result
	call.Args = bytes.Clone(call.Args)
	v := r.steer(ctx, SteerPoint{Event: SteerPostToolUse, Call: &call, Spec: &spec, Result: &res})
	if v.Block && v.Reason != "" {
		st.result.Content += "\n\nhook feedback: " + clip(v.Reason, maxHookText)
	}
	if v.Context != "" {
		st.result.Content += "\n\n" + hookContext(SteerPostToolUse, v.Context)
	}
}

// stopEvent is the steering point of a run about to end with an answer.
func (r *run) stopEvent() SteerEvent {
	if r.a.cfg.Subagent {
		return SteerSubagentStop
	}
	return SteerStop
}

// stop runs the Stop point (SubagentStop for a sub-agent) on a run about
// to end Complete with text. A Block makes the run go on with the verdict's
// reason as a user message.
func (r *run) stop(text string) (OutcomeKind, error, bool) {
	if r.a.cfg.Steering == nil {
		return Complete, nil, true
	}
	event := r.stopEvent()
	v := r.steer(r.ctx, SteerPoint{Event: event, Text: text, StopActive: r.stopActive})
	if kind, ok := r.haltedOutcome(); ok {
		return kind, nil, true
	}
	if !v.Block {
		return Complete, nil, true
	}
	if r.ctx.Err() != nil {
		kind, err := r.ctxOutcome()
		return kind, err, true
	}
	reason := v.Reason
	if reason == "" {
		reason = "a hook asked you to continue"
	}
	r.stopActive = true
	r.c.Append(model.UserText("The run was not allowed to stop yet (" + string(event) + " hook):\n" + clip(reason, maxHookText)))
	if err := r.emitMessage(); err != nil {
		return Failed, err, true
	}
	return "", nil, false
}

// preCompact runs the PreCompact point before a model call whose history
// exceeds budget, so the context strategy will compact it.
func (r *run) preCompact(budget int) (OutcomeKind, bool) {
	if r.a.cfg.Steering == nil || budget <= 0 || r.c.EstimatedTokens(0) <= budget {
		return "", false
	}
	r.steer(r.ctx, SteerPoint{Event: SteerPreCompact, Source: "auto"})
	return r.haltedOutcome()
}

// sessionEnd runs the SessionEnd point once, as the run ends with kind. It
// gets the record context: a cancelled run still says it ended.
func (r *run) sessionEnd(kind OutcomeKind) {
	if r.a.cfg.Steering == nil || r.ended {
		return
	}
	r.ended = true
	r.steer(r.recordCtx, SteerPoint{Event: SteerSessionEnd, Source: string(kind)})
}
