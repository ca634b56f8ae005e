// Package agent runs the loop at the heart of rein: it sends the
// conversation to a model, records the answer, decides and runs the tool
// calls the model asked for under limits, hands the results back, and stops
// on a clear Outcome.
//
// The loop keeps these invariants, whatever the model sends:
//
//   - the assistant message that requested tools is recorded before their
//     results, and every call ID gets exactly one result, in call order;
//   - unknown tools, invalid arguments, policy denials, timeouts, tool
//     errors and panics become is_error results and the run goes on;
//   - calls of one turn whose declared effects conflict (a write and any
//     other access to an overlapping path; commands and external tools
//     without a readOnly hint against anything but pure calls) run in call
//     order, the others concurrently (see schedule.go for the rules);
//   - the system prompt and instructions travel outside the history on
//     every call, so no context strategy can drop them;
//   - only framework failures (the model after its retries, the journal,
//     the context strategy, a second empty answer) end a run with an error.
//
// # Verification, steering and the plan
//
// A turn that ends with an answer and no tool calls goes through the
// verification gate when Config.Verifier is set: the checks it returns run
// one after another (verify.started, verify.result), a failure goes back to
// the model as a user message, and MaxVerifyAttempts failed verifications
// end the run VerificationFailed. Then Config.Steering's Stop point may send
// the model back to work. An empty answer is nudged once; a second one in a
// row ends the run Failed with ErrEmptyAnswer.
//
// Steering is consulted at the points Claude Code's hooks run: SessionStart
// and UserPromptSubmit as the run begins (their context is added to the
// prompt, labelled), PreToolUse for every call that reaches the policy,
// PostToolUse after each call that ran, Stop before the run ends Complete
// (SubagentStop for an Agent with Config.Subagent set, the Agent of a
// sub-agent), PreCompact before a model call whose history exceeds the
// budget, and SessionEnd as the run ends. The loop, not the Steering,
// enforces what a verdict may do (see Steering): tightening always applies,
// an Allow lifts an Ask only when Trusted, nothing lifts a hard or policy
// denial, and replaced arguments are decided by the policy afresh. The
// assistant message keeps the arguments the model sent; the tool.decision
// event carries the call as decided and the result begins with a note
// naming the arguments that ran, so the record shows what happened.
//
// The plan tool (PlanTool, todo_write) keeps the model's plan in the
// Conversation and reports each change as plan.updated; the plan is sent
// with every request as a section of the system prompt, outside the
// history, so no context strategy drops it.
//
// RunWith overrides the system prompt and the request template for one run.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultMaxConsecutiveDenials = 3
	DefaultMaxSteps              = 50
	DefaultRepeatLimit           = 3
	DefaultMaxParallel           = 4
	DefaultToolTimeout           = 2 * time.Minute
	DefaultMaxResultBytes        = tool.DefaultMaxResultBytes
)

// ErrInvalidConfig reports a Config that New cannot run with.
var ErrInvalidConfig = errors.New("invalid agent config")

// ErrModelCall is wrapped by the error of a run that ended because a
// model call failed ("agent: model call 3 failed: …"), so a front end
// can tell the model server's failures from the harness's own.
var ErrModelCall = errors.New("agent: model call")

// ErrJournal reports that the Journal refused an event. The run ends
// Failed, because the record of what ran is a guarantee, not a nicety.
var ErrJournal = errors.New("journal append failed")

// Config configures an Agent. Only Provider is required.
type Config struct {
	// Provider answers the model calls.
	Provider model.Provider
	// Model names the model; "" lets the provider choose its default.
	Model string
	// System is the system prompt, sent as Request.System on every model
	// call and never stored in the history, so it cannot be compacted away.
	System string
	// Instructions is extra instruction text (AGENTS.md, loaded by the
	// caller), appended to System on every call.
	Instructions string
	// Params is a template for every request: sampling, response format,
	// reasoning and extra fields. Its Model, System, Messages and Tools are
	// ignored.
	Params model.Request
	// Tools is what the model may call; nil means no tools.
	Tools *tool.Set
	// Policy decides each call. Nil allows every tool in Tools: the set is
	// then the allow-list.
	Policy policy.Decider
	// Approver resolves Ask decisions. Nil turns Ask into Deny with the
	// reason "needs approval and no one can be asked".
	Approver policy.Approver
	// MaxConsecutiveDenials ends the run Blocked when this many calls in a
	// row were denied (default 3).
	MaxConsecutiveDenials int
	// MaxSteps caps the model calls per Run (default 50 → StepLimit).
	MaxSteps int
	// Timeout is a deadline for the whole Run; 0 means none (→ Deadline).
	Timeout time.Duration
	// TokenBudget caps input+output tokens per Run as reported by the
	// server; 0 means none (→ TokenBudget).
	TokenBudget int
	// RepeatLimit ends the run RepeatedAction when the same tool, with the
	// same arguments, gave the same result this many calls in a row
	// (default 3).
	RepeatLimit int
	// MaxParallel caps concurrent tool calls in one turn (default 4).
	MaxParallel int
	// ToolTimeout and MaxResultBytes are passed to tool.Invoke for every
	// call (defaults 2m and 64 KiB).
	ToolTimeout    time.Duration
	MaxResultBytes int
	// ContextWindow is the model's context size in tokens. 0 asks the
	// Provider once, if it implements model.ContextWindower; unknown means
	// the history is not bounded.
	ContextWindow int
	// Context chooses the history sent on each call; nil means Window{}.
	Context ContextStrategy
	// Steering, when set, is consulted at the points Claude Code's hooks
	// run (see Steering).
	Steering Steering
	// Subagent marks the Agent of a sub-agent: its runs send SubagentStop
	// instead of Stop when they are about to end with an answer.
	Subagent bool
	// Verifier, when set, is the verification gate run when the model
	// ends a turn with an answer; MaxVerifyAttempts failed verifications
	// end the run VerificationFailed (default 3).
	Verifier          Verifier
	MaxVerifyAttempts int
	// Logger receives the loop's diagnostics and is handed to tools
	// (tool.Logger); nil discards them.
	Logger *slog.Logger
	// ToolProgress, when set, receives what a running tool reports through
	// tool.ReportProgress (run_command's output as it comes), with the
	// call's id and the tool's name, so a front end can show a live tail.
	// It is called from the goroutine running the call — concurrently when
	// calls run in parallel — and must not block. Progress never reaches
	// the model or the journal. Nil discards it.
	ToolProgress func(callID, tool, text string)
	// Hooks observe every event, in order, after the Journal accepted it.
	Hooks []Hook
	// Journal, when set, durably records every event before anyone else
	// sees it.
	Journal Journal
	// Clock, IDs and FanOut are the determinism seams; nil means real
	// time, random ids and bounded goroutines.
	Clock  Clock
	IDs    IDs
	FanOut FanOut
}

// Hook observes a run. OnEvent is called synchronously on the run's
// goroutine for every event, in order, after the Journal accepted it, so it
// should return quickly. Its ctx carries the caller's values but not its
// cancellation, so the closing events of a cancelled run can be exported. A hook can never break a run: a panic is recovered
// and counted (see Agent.HookPanics). Hooks shared by concurrent runs must
// be safe for concurrent use.
type Hook interface {
	OnEvent(ctx context.Context, ev Event)
}

// HookFunc adapts a function to Hook.
type HookFunc func(ctx context.Context, ev Event)

// OnEvent implements Hook.
func (f HookFunc) OnEvent(ctx context.Context, ev Event) { f(ctx, ev) }

// Journal durably records a run. Append is called for every event before
// hooks and the caller see it; a tool.call event is appended before its
// tool runs, and a tool.result as soon as its call finishes — from the
// goroutine that ran the call, so results of one turn arrive in completion
// order while hooks and the caller still see them in call order. Calls to
// Append are serialised; it is never called concurrently by one run. Its ctx carries the caller's
// values but not its cancellation: a cancelled run's interrupted results
// and closing events must still be written. An error ends the run Failed
// with ErrJournal: a run whose record is lost must not go on acting.
// Events share memory with the conversation (messages, calls, results) and
// must not be modified; a Journal that keeps them must encode or copy them.
type Journal interface {
	Append(ctx context.Context, ev Event) error
}

// Agent runs conversations with one configuration. It is safe for
// concurrent use: concurrent Runs on different Conversations are
// independent.
type Agent struct {
	cfg Config
	// system is System and Instructions joined, built once.
	system string

	// windowMu guards window, the context window once known.
	windowMu    sync.Mutex
	window      int
	windowKnown bool

	hookPanics atomic.Int64
}

// New validates cfg, applies defaults and returns an Agent.
func New(cfg Config) (*Agent, error) {
	if cfg.Provider == nil {
		return nil, fmt.Errorf("agent: %w: Provider is required; set Config.Provider to a model backend", ErrInvalidConfig)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"MaxConsecutiveDenials", int64(cfg.MaxConsecutiveDenials)},
		{"MaxSteps", int64(cfg.MaxSteps)},
		{"Timeout", int64(cfg.Timeout)},
		{"TokenBudget", int64(cfg.TokenBudget)},
		{"RepeatLimit", int64(cfg.RepeatLimit)},
		{"MaxParallel", int64(cfg.MaxParallel)},
		{"ToolTimeout", int64(cfg.ToolTimeout)},
		{"MaxResultBytes", int64(cfg.MaxResultBytes)},
		{"ContextWindow", int64(cfg.ContextWindow)},
	} {
		if f.v < 0 {
			return nil, fmt.Errorf("agent: %w: %s is negative; use 0 for the default", ErrInvalidConfig, f.name)
		}
	}
	setDefault(&cfg.MaxConsecutiveDenials, DefaultMaxConsecutiveDenials)
	setDefault(&cfg.MaxSteps, DefaultMaxSteps)
	setDefault(&cfg.RepeatLimit, DefaultRepeatLimit)
	setDefault(&cfg.MaxParallel, DefaultMaxParallel)
	setDefault(&cfg.ToolTimeout, DefaultToolTimeout)
	setDefault(&cfg.MaxResultBytes, DefaultMaxResultBytes)
	if cfg.Context == nil {
		cfg.Context = Window{}
	}
	if cfg.Clock == nil {
		cfg.Clock = systemClock{}
	}
	if cfg.IDs == nil {
		cfg.IDs = randomIDs{}
	}
	if cfg.FanOut == nil {
		cfg.FanOut = goroutines{}
	}
	a := &Agent{cfg: cfg, system: joinSystem(cfg.System, cfg.Instructions)}
	if cfg.ContextWindow > 0 {
		a.window, a.windowKnown = cfg.ContextWindow, true
	}
	return a, nil
}

func setDefault[T int | time.Duration](p *T, def T) {
	if *p == 0 {
		*p = def
	}
}

// joinSystem appends the instructions to the system prompt, separated by a
// blank line so the model reads them as a section of their own.
func joinSystem(system, instructions string) string {
	switch {
	case instructions == "":
		return system
	case system == "":
		return instructions
	}
	return system + "\n\n" + instructions
}

// HookPanics returns how many hook panics were recovered across all runs.
func (a *Agent) HookPanics() int64 { return a.hookPanics.Load() }

// minProbeTokens is the request size below which the context window is
// not worth asking for: no model server in use runs with a smaller window.
const minProbeTokens = 2048

// windowAsked reports whether the context window is already known.
func (a *Agent) windowAsked() bool {
	a.windowMu.Lock()
	defer a.windowMu.Unlock()
	return a.windowKnown
}

// contextWindow returns the configured window, or asks the provider. A
// definite answer (a size, or "unknown") is kept for the Agent's life; a
// failed question is asked again on the next run, and meanwhile the history
// is not bounded rather than the run failing: the server still enforces its
// own limit.
func (a *Agent) contextWindow(ctx context.Context) int {
	a.windowMu.Lock()
	defer a.windowMu.Unlock()
	if a.windowKnown {
		return a.window
	}
	if w, ok := a.cfg.Provider.(model.ContextWindower); ok {
		n, err := w.ContextWindow(ctx)
		if err != nil {
			return 0
		}
		a.window = max(n, 0)
	}
	a.windowKnown = true
	return a.window
}

// RunToEnd runs to completion and returns the Outcome with the run's error
// (nil unless it ended Failed or Cancelled).
func (a *Agent) RunToEnd(ctx context.Context, c *Conversation, input string) (*Outcome, error) {
	return a.runToEnd(ctx, c, input, RunOptions{})
}

func (a *Agent) runToEnd(ctx context.Context, c *Conversation, input string, opts RunOptions) (*Outcome, error) {
	var out *Outcome
	var runErr error
	for ev, err := range a.RunWith(ctx, c, input, opts) {
		if err != nil {
			runErr = err
		}
		if ev.Type == EventSessionCompleted {
			out = ev.Outcome
		}
	}
	return out, runErr
}
