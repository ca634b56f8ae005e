package agent

import (
	"context"
	"encoding/json"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/tool"
)

// SteerEvent names a point of a run where Steering is consulted. The
// values are Claude Code's hook event names, which hook configurations
// match on.
type SteerEvent string

// Steering points. Notification is not sent by the loop: it is for
// harnesses that notify the user (an approval prompt waiting). The run of
// an Agent with Config.Subagent set sends SubagentStop where other runs
// send Stop.
const (
	SteerSessionStart     SteerEvent = "SessionStart"
	SteerUserPromptSubmit SteerEvent = "UserPromptSubmit"
	SteerPreToolUse       SteerEvent = "PreToolUse"
	SteerPostToolUse      SteerEvent = "PostToolUse"
	SteerNotification     SteerEvent = "Notification"
	SteerStop             SteerEvent = "Stop"
	SteerSubagentStop     SteerEvent = "SubagentStop"
	SteerPreCompact       SteerEvent = "PreCompact"
	SteerSessionEnd       SteerEvent = "SessionEnd"
)

// Steering lets a program outside the loop (hook scripts, see package
// hooks) observe and steer a run at fixed points. The loop calls Steer
// synchronously on the run's goroutine (PreToolUse and PostToolUse may be
// called from the goroutine running the call) and waits for its verdict,
// so an implementation bounds its own time. It must be safe for concurrent
// use. Steer never breaks a run: a panic is recovered and treated as an
// empty verdict.
//
// What a verdict may do is limited by the loop, not trusted to the
// implementation:
//   - a Deny or Ask always applies (tightening is always allowed);
//   - an Allow lifts a policy Ask only when Trusted is set (the verdict
//     came from the user's own configuration), and never lifts a hard
//     denial or a policy Deny;
//   - UpdatedInput replaces a call's arguments, which the policy then
//     decides again from scratch.
type Steering interface {
	Steer(ctx context.Context, p SteerPoint) SteerVerdict
}

// SteerPoint describes the moment Steer is called at. Fields other than
// Event and SessionID are set according to Event.
type SteerPoint struct {
	Event     SteerEvent
	SessionID string
	// Source says why the session started ("startup", "resume") for
	// SessionStart, what triggered PreCompact ("auto", "manual"), and why
	// the session ended for SessionEnd ("complete", "cancelled", …, the
	// OutcomeKind).
	Source string
	// Prompt is the user's input, for UserPromptSubmit.
	Prompt string
	// Call and Spec are the tool call and its tool, for PreToolUse and
	// PostToolUse; Result is the call's result, for PostToolUse.
	Call   *model.ToolCall
	Spec   *tool.Spec
	Result *model.ToolResult
	// Text is the final answer for Stop and SubagentStop, and the message
	// for Notification.
	Text string
	// StopActive is set on Stop when the run already continued because
	// of an earlier Stop verdict, so a hook can avoid looping forever.
	StopActive bool
}

// Permission is a PreToolUse verdict on a call.
type Permission string

// Permissions. The zero value leaves the decision to the policy.
const (
	PermissionNone  Permission = ""
	PermissionAllow Permission = "allow"
	PermissionAsk   Permission = "ask"
	PermissionDeny  Permission = "deny"
)

// SteerVerdict is Steering's answer. The zero value changes nothing.
type SteerVerdict struct {
	// Block refuses what the point is about, with Reason shown to the
	// model: UserPromptSubmit — the prompt is not sent and the run ends
	// Blocked; PreToolUse — the call is denied; PostToolUse — Reason is
	// added to the call's result as feedback; Stop and SubagentStop — the
	// run does not stop but continues with Reason as a user message.
	Block  bool
	Reason string
	// Permission and PermissionReason are a PreToolUse decision (see the
	// Steering contract for what each may do).
	Permission       Permission
	PermissionReason string
	// Trusted marks a verdict that came only from the user's own
	// configuration; only a trusted Allow lifts an Ask.
	Trusted bool
	// UpdatedInput, for PreToolUse, replaces the call's arguments (a JSON
	// object); the policy decides the call again with them.
	UpdatedInput json.RawMessage
	// Context is text added for the model: appended to the prompt for
	// UserPromptSubmit and SessionStart, to the result for PostToolUse.
	Context string
	// Halt ends the run at once (Claude Code's "continue": false) with
	// outcome Blocked and HaltReason as the Outcome's Reason.
	Halt       bool
	HaltReason string
}
