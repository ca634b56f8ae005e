package policy

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/reinharness/rein/policy/internal/wspath"
	"github.com/reinharness/rein/policy/shell"
)

// planNoChange is the reason of every plan-mode denial: the model is to
// plan, and the user leaves plan mode by accepting the plan.
const planNoChange = "plan mode makes no changes: read, search and write the plan (todo_write), then present it; the user switches modes when the plan is accepted"

// planRule names what decided a plan-mode denial.
const planRule = "preset:plan"

// WithPreset returns an engine deciding like e under preset p instead of
// e's: the same rules, hard denials and project tightening, and a
// project's preset still caps p (a project at read-only keeps a switch to
// full at read-only). e itself is unchanged, so calls already being
// decided finish under the old preset.
func (e *Engine) WithPreset(p Preset) (*Engine, error) {
	if p == "" {
		return nil, fmt.Errorf("policy: no preset given")
	}
	if _, err := ParsePreset(string(p)); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	n := *e
	n.warnings = slices.Clone(e.warnings)
	n.preset = p
	if e.cap != "" && e.cap.rank() < p.rank() {
		n.preset = e.cap
	}
	return &n, nil
}

// Capped reports whether a project layer keeps the preset below p.
func (e *Engine) Capped(p Preset) bool { return e.cap != "" && e.cap.rank() < p.rank() }

// planDecision tightens d under the plan preset: a call that could change
// anything is denied whatever the rules say (a user's allow rule for
// `go test` or for write_file does not lift plan mode). What remains is
// what reads: tools without effects (todo_write), file reads, command
// lines of the read-only set, and outside tools that declare themselves
// read-only (still decided, and asked, as usual).
func (e *Engine) planDecision(c Call, d Decision, steps *[]Step) Decision {
	if e.preset != PresetPlan || d.Action == Deny {
		return d
	}
	eff := c.Spec.Effects
	mutates := eff.WritesFiles || eff.Network
	if eff.External {
		ro := c.Spec.Annotations.ReadOnlyHint
		mutates = mutates || ro == nil || !*ro
	}
	if eff.Exec && !mutates {
		mutates = !e.readOnlyCall(c)
	}
	if !mutates {
		return d
	}
	tr := tracer{steps: steps}
	tr.add("plan", planNoChange, Deny, planRule)
	return decision(c.Spec.Name, verdict{action: Deny, rule: planRule, reason: planNoChange})
}

// readOnlyCall reports whether every command line of an exec call is in
// the read-only set (readonly.go), as the read-only preset would allow it.
func (e *Engine) readOnlyCall(c Call) bool {
	eff := c.Spec.Effects
	if eff.CommandArg == "" || wspath.Within(e.opts.Home, e.opts.Workspace) {
		return false
	}
	args, err := parseArgs(c.Args)
	if err != nil {
		return false
	}
	commands, bad := args.strings(eff.CommandArg)
	if bad || len(commands) == 0 {
		return false
	}
	opts := e.analyzeOptions(args, eff)
	for _, cmd := range commands {
		if shell.Analyze(cmd, opts).ReadOnly(cmd, e.readOnlyPath) != "" {
			return false
		}
	}
	return true
}

// Switch is a Decider whose engine changes while a session runs: chat's
// modes (Shift+Tab, /mode) set another preset on the engine it started
// with. Every call is decided by the engine current when it is decided.
// It is safe for concurrent use.
type Switch struct {
	base *Engine
	cur  atomic.Pointer[Engine]
}

// NewSwitch starts a switch on e.
func NewSwitch(e *Engine) *Switch {
	s := &Switch{base: e}
	s.cur.Store(e)
	return s
}

// Decide implements Decider with the current engine.
func (s *Switch) Decide(ctx context.Context, c Call) Decision {
	return s.cur.Load().Decide(ctx, c)
}

// Engine is the current engine.
func (s *Switch) Engine() *Engine { return s.cur.Load() }

// Preset is the current effective preset.
func (s *Switch) Preset() Preset { return s.cur.Load().Preset() }

// Set switches to preset p (capped by the project, see WithPreset) and
// returns the effective preset.
func (s *Switch) Set(p Preset) (Preset, error) {
	n, err := s.base.WithPreset(p)
	if err != nil {
		return "", err
	}
	s.cur.Store(n)
	return n.preset, nil
}
