// Package policy decides whether a tool call may run: deny by default,
// presets, rules on parsed shell commands and paths, hard denials nothing
// lifts, layered configuration and approvers.
package policy

import (
	"context"
	"encoding/json"

	"github.com/reinharness/rein/tool"
)

// Action is a policy verdict.
type Action int

// Actions, ordered by strictness: the strictest decision wins.
const (
	Allow Action = iota
	Ask
	Deny
)

// String returns "allow", "ask" or "deny".
func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	default:
		return "deny"
	}
}

// Call is the thing being decided: a tool call with its spec.
type Call struct {
	ID   string
	Spec tool.Spec
	Args json.RawMessage
}

// Decision is a verdict with the reason the model (and user) sees.
type Decision struct {
	Action Action
	Reason string
	// Rule names what decided ("preset:editor", "rule:deny git push",
	// "hard-deny:sudo", "approver:console").
	Rule string
	// Hard marks a hard denial: no preset, rule or approver lifts it.
	Hard bool
}

// Decider decides calls. Implementations are safe for concurrent use and
// never wait on anything but bounded local file-system look-ups (asking a
// human is an Approver's job).
type Decider interface {
	Decide(ctx context.Context, c Call) Decision
}

// Approver resolves Ask decisions: it returns Allow or Deny. It is never
// given a hard denial. Implementations may block (a console prompt) and must
// honour ctx; they are called one at a time by the agent.
type Approver interface {
	Approve(ctx context.Context, c Call, d Decision) (Decision, error)
}
