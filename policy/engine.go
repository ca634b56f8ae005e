package policy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
	"github.com/reinharness/rein/policy/netrules"
	"github.com/reinharness/rein/policy/shell"
)

// LayerKind orders configuration layers: built-in < user < project.
type LayerKind int

// Layer kinds.
const (
	// LayerBuiltin holds rein's defaults.
	LayerBuiltin LayerKind = iota
	// LayerUser is the user's own configuration (~/.config/rein/) and
	// command-line flags: it may loosen the defaults.
	LayerUser
	// LayerProject is the workspace's .rein/ configuration. It comes
	// with the repository, so it can only tighten: its allow rules are
	// ignored unless the user approved them for this workspace.
	LayerProject
)

// String returns "builtin", "user" or "project".
func (k LayerKind) String() string {
	switch k {
	case LayerBuiltin:
		return "builtin"
	case LayerUser:
		return "user"
	default:
		return "project"
	}
}

// Layer is the policy configuration of one source.
type Layer struct {
	// Kind places the layer: built-in, user or project.
	Kind LayerKind
	// Source names where the configuration came from, for messages
	// ("~/.config/rein/config.toml", "--preset").
	Source string
	// Config is the layer's [policy] table.
	Config Config
}

// EngineConfig configures NewEngine.
type EngineConfig struct {
	// Workspace is the directory tools are confined to. Required.
	Workspace string
	// Home is the user's home directory; empty means os.UserHomeDir.
	Home string
	// Layers are applied in order; later user layers override earlier
	// presets. Without a LayerBuiltin layer, BuiltinConfig is used.
	Layers []Layer
	// Approved holds the project rules the user approved "always for
	// this project". It lives outside the workspace so a cloned
	// repository cannot approve its own rules. Nil approves nothing.
	Approved ApprovedStore
	// Protected are more workspace paths (relative, or absolute inside the
	// workspace) whose writes ask under every preset, like ProtectedPaths:
	// the files a trusted MCP server runs, for instance. A directory
	// protects everything under it. Paths outside the workspace are
	// ignored (the sandbox's business).
	Protected []ProtectedPath
	// Network are the [network] host rules for tools that declare the
	// argument holding their URL (tool.Effects.URLArg): a deny rule
	// denies, an allow rule lifts the editor preset's question. The
	// caller merges the layers (a project layer may only add denies).
	Network netrules.Rules
}

// Engine is the layered policy. It implements Decider; it is immutable
// after NewEngine and safe for concurrent use. Decide's only I/O is the
// bounded resolution of paths inside the workspace (symlinks, globs; see
// resolve.go).
type Engine struct {
	opts   shell.Options
	preset Preset
	// cap is the tightest project preset ("" when no project sets one):
	// WithPreset keeps the preset at or below it.
	cap      Preset
	pool     []*rule // built-in, user and approved project rules
	tighten  []*rule // project ask and deny rules
	hard     []hardPrefix
	warnings []string
	network  netrules.Rules
}

type hardPrefix struct {
	prefix []string
	reason string
	source string
}

// ProtectedPath is a path whose writes ask under every preset, with why
// it matters (shown in the reason: "a trusted MCP server runs it").
type ProtectedPath struct {
	Path string
	Why  string
}

// BuiltinConfig is rein's built-in layer: the editor preset, allow rules
// for shell builtins that only change the shell's own state, so
// `cd sub && go test` needs no more approval than `go test`, and ask
// rules for writes to git hooks and git's config under every preset
// (see GitControlPaths).
func BuiltinConfig() Config {
	c := Config{Preset: string(PresetEditor), Paths: ProtectedPaths()}
	for _, name := range []string{
		"cd", "pushd", "popd", "pwd", "echo", "printf", "true", "false", ":", "test", "[",
		"exit", "return", "shift", "set", "export", "unset", "local", "declare", "readonly", "sleep",
	} {
		c.Commands = append(c.Commands, CommandRule{Prefix: []string{name}, Action: "allow"})
	}
	return c
}

// NewEngine validates and compiles the layers.
func NewEngine(cfg EngineConfig) (*Engine, error) {
	if cfg.Workspace == "" {
		return nil, errors.New("policy: EngineConfig.Workspace is empty; pass the workspace directory")
	}
	home := cfg.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	ws := CanonicalWorkspace(cfg.Workspace)
	if err := cfg.Network.Validate(); err != nil {
		return nil, fmt.Errorf("policy: [network]: %w", err)
	}
	e := &Engine{opts: shell.Options{Workspace: ws, Home: wspath.CleanOr(home, wspath.UnknownHome)}, preset: PresetEditor, network: cfg.Network}
	layers := cfg.Layers
	if !slices.ContainsFunc(layers, func(l Layer) bool { return l.Kind == LayerBuiltin }) {
		layers = append([]Layer{{Kind: LayerBuiltin, Source: "built-in", Config: BuiltinConfig()}}, layers...)
	}
	var projectPresets []Layer
	for _, l := range layers {
		if err := l.Config.Validate(); err != nil {
			return nil, fmt.Errorf("policy layer %s: %w", l.Source, err)
		}
		if l.Kind == LayerProject {
			projectPresets = append(projectPresets, l)
		} else if l.Config.Preset != "" {
			e.preset = Preset(l.Config.Preset)
		}
		e.addRules(l, ws, cfg.Approved)
	}
	if len(cfg.Protected) > 0 {
		var c Config
		for _, pp := range cfg.Protected {
			p := pp.Path
			if filepath.IsAbs(p) {
				rel, err := filepath.Rel(ws, filepath.Clean(p))
				if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
					continue // outside the workspace: the sandbox's business
				}
				p = rel
			}
			why := pp.Why
			if why == "" {
				why = "it is a protected path"
			}
			c.Paths = append(c.Paths, protectedRules(p, "writing "+filepath.ToSlash(p)+" changes what runs later, outside the sandbox: "+why)...)
		}
		e.addRules(Layer{Kind: LayerBuiltin, Source: "protected paths", Config: c}, ws, nil)
	}
	for _, l := range projectPresets {
		if l.Config.Preset == "" {
			continue
		}
		p := Preset(l.Config.Preset)
		if p == PresetPlan {
			p = PresetReadOnly // plan is the user's mode (PresetPlan)
		}
		if e.cap == "" || p.rank() < e.cap.rank() {
			e.cap = p
		}
		if p.rank() < e.preset.rank() {
			e.preset = p
		} else if p.rank() > e.preset.rank() {
			e.warn("%s: preset %q ignored: a project can only tighten the policy (the preset is %q)", l.Source, p, e.preset)
		}
	}
	return e, nil
}

func (e *Engine) addRules(l Layer, ws string, approved ApprovedStore) {
	var rules []*rule
	for i, r := range l.Config.Tools {
		rules = append(rules, withOrigin(compileTool(r), l, i))
	}
	for i, r := range l.Config.Commands {
		rules = append(rules, withOrigin(compileCommand(r), l, i))
	}
	for i, r := range l.Config.Paths {
		rules = append(rules, withOrigin(compilePath(r), l, i))
	}
	for _, r := range rules {
		switch {
		case l.Kind != LayerProject:
			e.pool = append(e.pool, r)
		case r.action != Allow:
			e.tighten = append(e.tighten, r)
		case approved != nil && approved.Approved(ws, r.fingerprint(ws)):
			e.pool = append(e.pool, r)
		default:
			e.warn("%s ignored: a project can only tighten the policy; approve it with [a]lways at a prompt, or add it to your user configuration", r.where())
		}
	}
	for _, h := range l.Config.HardDeny {
		reason := h.Reason
		if reason == "" {
			reason = fmt.Sprintf("%q is on the hard-deny list of %s", describePrefix(h.Prefix), l.Source)
		}
		e.hard = append(e.hard, hardPrefix{prefix: h.Prefix, reason: reason, source: l.Source})
	}
}

func withOrigin(r *rule, l Layer, i int) *rule {
	r.layer, r.source, r.index = l.Kind, l.Source, i
	return r
}

func (e *Engine) warn(format string, args ...any) {
	e.warnings = append(e.warnings, fmt.Sprintf(format, args...))
}

// Warnings are the problems found while loading the layers that are not
// errors: ignored project allow rules and presets.
func (e *Engine) Warnings() []string { return slices.Clone(e.warnings) }

// Preset is the effective preset.
func (e *Engine) Preset() Preset { return e.preset }

// Workspace is the canonical workspace directory the engine decides for.
func (e *Engine) Workspace() string { return e.opts.Workspace }

// Decide decides one call.
func (e *Engine) Decide(_ context.Context, c Call) Decision {
	return e.planDecision(c, e.decide(c, nil), nil)
}

// Step is one step of how the engine reached a decision.
type Step struct {
	// Stage is what was considered: "analysis", "hard-deny", "tool",
	// "command", "path", "concern", "redirect", "destructive", "project",
	// "decision".
	Stage string
	// Detail says what was found, in words.
	Detail string
	// Action is the verdict of the step.
	Action Action
	// Rule names what gave the verdict, as in Decision.Rule.
	Rule string
}

// Explain returns the steps that lead to the decision of a call, the
// last of which is the decision itself. It is for debugging policies.
func (e *Engine) Explain(c Call) []Step {
	var steps []Step
	d := e.planDecision(c, e.decide(c, &steps), &steps)
	return append(steps, Step{Stage: "decision", Detail: d.Reason, Action: d.Action, Rule: d.Rule})
}
