// Package engine holds the contracts between rein's host (the command
// line's configuration, harness and tools) and a durable execution engine
// that runs sessions elsewhere (engine/temporal). It imports no engine, so
// the host implements it without linking one.
package engine

import (
	"context"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// Setup is what a session learns from the workspace it runs in when it
// starts: its prompts, tools and limits. A durable engine records it, so
// a replay sees the same.
type Setup struct {
	System       string        `json:"system"`
	Instructions string        `json:"instructions,omitempty"`
	Model        string        `json:"model,omitempty"`
	Params       model.Request `json:"params"`
	Tools        []tool.Spec   `json:"tools"`
	// AllowedTools narrows a sub-agent (nil: every tool in Tools).
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// Limits, as agent.Config's.
	MaxSteps              int           `json:"max_steps,omitempty"`
	Timeout               time.Duration `json:"timeout,omitempty"`
	TokenBudget           int           `json:"token_budget,omitempty"`
	MaxParallel           int           `json:"max_parallel,omitempty"`
	ToolTimeout           time.Duration `json:"tool_timeout,omitempty"`
	MaxResultBytes        int           `json:"max_result_bytes,omitempty"`
	ContextWindow         int           `json:"context_window,omitempty"`
	RepeatLimit           int           `json:"repeat_limit,omitempty"`
	MaxConsecutiveDenials int           `json:"max_consecutive_denials,omitempty"`
	// MaxDepth is the deepest a sub-agent may sit (0: agent's default).
	MaxDepth int `json:"max_depth,omitempty"`
	// Verify names the workspace's verification checks ([verify]), run
	// through Workspace.Check when the model ends a turn with an answer:
	// after a session changed something, or always when VerifyAlways.
	Verify            []string `json:"verify,omitempty"`
	VerifyAlways      bool     `json:"verify_always,omitempty"`
	MaxVerifyAttempts int      `json:"max_verify_attempts,omitempty"`
	// Hooks says the workspace has hooks that may run: the loop's
	// steering points then go to Workspace.Steer.
	Hooks bool `json:"hooks,omitempty"`
}

// Models gives model activities their backend. Implementations must be
// safe for concurrent use.
type Models interface {
	Provider(ctx context.Context) (model.Provider, error)
}

// Workspace is what one workspace's worker acts with: the session setup,
// the tools and the policy (for a preset). Implementations must be safe
// for concurrent use.
type Workspace interface {
	// Setup describes a session of this workspace: agent names a
	// sub-agent definition ("" for a top-level session) at depth.
	Setup(ctx context.Context, preset, agent string, depth int) (Setup, error)
	// Tools returns the tools that run the calls, and the options tool.Invoke
	// gets for them.
	Tools(ctx context.Context, preset string) (*tool.Set, tool.InvokeOptions, error)
	// Policy returns the policy that decides the calls.
	Policy(ctx context.Context, preset string) (policy.Decider, error)
	// Check runs verification check index of Setup.Verify.
	Check(ctx context.Context, preset string, index int) (agent.CheckResult, error)
	// LastChange is the sequence number of the workspace journal's last
	// change; Changes are the changes since seq that the call with
	// idempotency key callKey made (for file.change events).
	LastChange(ctx context.Context, preset string) int64
	Changes(ctx context.Context, preset string, since int64, callKey string) []agent.FileChange
	// Steer runs the workspace's hooks at one steering point.
	Steer(ctx context.Context, preset string, p agent.SteerPoint) (agent.SteerVerdict, error)
}

// ResultObserver is an optional interface of a Workspace: it is shown
// every tool call's result (already redacted) after the call ran, so
// the workspace can keep what it needs of the session's tool output —
// the memory tools mark notes copied from a tool result as tool-derived.
// It must return quickly and be safe for concurrent use.
type ResultObserver interface {
	ObserveResult(ctx context.Context, preset, tool, content string)
}
