package policy

import (
	"fmt"

	"github.com/reinharness/rein/tool"
)

// Preset is a named default policy for tools no rule decides. Presets
// decide from a tool's declared Effects, never from its name.
type Preset string

// Presets, from the most to the least restrictive.
const (
	// PresetReadOnly allows tools that only read files and tools with no
	// effects; it denies writes, the network and commands, except command
	// lines of the read-only set (readonly.go), which only read workspace
	// files.
	PresetReadOnly Preset = "read-only"
	// PresetEditor (the default) also allows writing files inside the
	// workspace; commands ask, except command lines of the read-only set,
	// and so does the network.
	PresetEditor Preset = "editor"
	// PresetFull also allows commands and network tools, still subject to
	// command rules, concerns and hard denials; code rein cannot see and
	// publishing (git push, npm publish, …) still ask.
	PresetFull Preset = "full"
	// PresetPlan is a session's plan mode: the read-only preset's
	// defaults, and no call that could change anything whatever the rules
	// say (planDecision): the model reads, searches and writes its plan
	// (todo_write) until the user accepts it. A project layer cannot
	// impose it (a project's "plan" counts as read-only): it is the
	// user's mode, left by accepting the plan.
	PresetPlan Preset = "plan"
)

// Modes are the presets a chat's Shift+Tab cycles through, in order.
var Modes = []Preset{PresetReadOnly, PresetEditor, PresetFull, PresetPlan}

// ParsePreset parses a preset name; "" is the default, editor.
func ParsePreset(s string) (Preset, error) {
	switch Preset(s) {
	case "":
		return PresetEditor, nil
	case PresetReadOnly, PresetEditor, PresetFull, PresetPlan:
		return Preset(s), nil
	}
	return "", fmt.Errorf("unknown preset %q: use read-only, editor, full or plan", s)
}

// rank orders presets by how much they allow.
func (p Preset) rank() int {
	switch p {
	case PresetReadOnly, PresetPlan:
		return 0
	case PresetFull:
		return 2
	}
	return 1
}

// verdict is an action with what decided it and why.
type verdict struct {
	action Action
	rule   string
	reason string
	// explicit says a rule (not a preset) decided.
	explicit bool
}

// stricter returns the stricter of two verdicts; on a tie, the first. A
// verdict without a rule has no opinion and loses every tie.
func stricter(a, b verdict) verdict {
	if b.action > a.action || b.action == a.action && a.rule == "" {
		return b
	}
	return a
}

// readsOnly reports whether the preset denies writes, commands outside
// the read-only set and the network: read-only and plan.
func (p Preset) readsOnly() bool { return p == PresetReadOnly || p == PresetPlan }

// Default is the preset's verdict for a tool with the given spec when no
// rule decides it.
func (p Preset) Default(spec tool.Spec) (Action, string) {
	v := p.verdictFor(spec)
	return v.action, v.reason
}

func (p Preset) verdictFor(spec tool.Spec) verdict {
	e := spec.Effects
	rule := "preset:" + string(p)
	v := verdict{action: Allow, rule: rule, reason: fmt.Sprintf("the %s preset allows %s", p, spec.Name)}
	add := func(a Action, reason string) {
		v = stricter(v, verdict{action: a, rule: rule, reason: reason})
	}
	if e.WritesFiles && p == PresetPlan {
		add(Deny, planNoChange)
	} else if e.WritesFiles && p == PresetReadOnly {
		add(Deny, "the read-only preset does not change files (use --preset editor)")
	}
	if e.Exec {
		switch {
		case p == PresetPlan:
			add(Deny, planNoChange)
		case p == PresetReadOnly:
			add(Deny, "the read-only preset does not run commands (use --preset editor or full)")
		case p == PresetEditor:
			add(Ask, "the editor preset asks before running commands")
		case e.CommandArg == "":
			add(Ask, "the tool runs processes rein cannot inspect")
		}
	}
	switch {
	case e.Network && p == PresetPlan:
		add(Deny, planNoChange)
	case e.Network && p == PresetReadOnly:
		add(Deny, "the read-only preset does not use the network (use --preset editor, which asks, or full)")
	case e.Network && p == PresetEditor:
		add(Ask, "the editor preset asks before using the network")
	}
	if e.WritesState && p == PresetReadOnly {
		add(Ask, "the read-only preset asks before rein's own state (memory) changes")
	}
	if e.External {
		add(Ask, "the tool is provided by an outside server whose behaviour rein cannot see")
	}
	return v
}

// writeVerdict is the preset's verdict for writing files, applied to
// commands that redirect output into files.
func (p Preset) writeVerdict() verdict {
	return p.verdictFor(tool.Spec{Name: "a redirect", Effects: tool.Effects{WritesFiles: true}})
}
