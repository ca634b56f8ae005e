package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
)

// A custom agent may name a profile in its front matter:
//
//	---
//	name: reviewer
//	description: Reviews a change
//	profile: review
//	---
//
// The sub-agent then runs under the configuration loaded with that
// profile (the layers in the usual order, the run's flags last): its
// model, sampling and provider, and its policy, tools.disabled and
// limits. It is never wider than the run that starts it: the profile's
// policy decides beside the parent's (the stricter decision wins), its
// limits only lower the parent's, and the tools are the parent's. What
// the profile would have widened is named in a note of the task's
// result, and in a warning when the run starts. An agent whose profile
// does not load is skipped with a warning: running it without its
// profile could be wider than its author meant.

// profileLoader loads the profiles custom agents name.
type profileLoader struct {
	a         *App
	flags     *commonFlags
	workspace string
	// parent is the run's own configuration.
	parent *config.Config
	// engine builds a policy engine as the run's is built; preset is
	// the run's engine's preset.
	engine func(*config.Config) (*policy.Engine, error)
	preset policy.Preset
}

// apply resolves the profile of each definition that names one,
// dropping (with a warning) those whose profile cannot be loaded.
func (p *profileLoader) apply(defs []host.AgentDef, warnings, toolNames []string) ([]host.AgentDef, []string) {
	if p == nil {
		return defs, warnings
	}
	out := defs[:0:0]
	for _, d := range defs {
		if d.Profile == "" {
			out = append(out, d)
			continue
		}
		notes, err := p.resolve(&d, toolNames)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("agent %s (%s) skipped: profile %s: %v", d.Name, termsafe.Line(d.Path), termsafe.Line(host.ClipRunes(d.Profile, 64)), err))
			continue
		}
		for _, n := range notes {
			warnings = append(warnings, fmt.Sprintf("agent %s: %s", d.Name, n))
		}
		d.Notes = append(d.Notes, notes...)
		out = append(out, d)
	}
	return out, warnings
}

// resolve loads d's profile and narrows d by it; the notes say what the
// profile would have widened.
func (p *profileLoader) resolve(d *host.AgentDef, toolNames []string) ([]string, error) {
	if known := p.parent.Profiles(); !slices.Contains(known, d.Profile) {
		return nil, fmt.Errorf("no such profile%s in the config files; define [profiles.%s] in your config, or remove the agent's profile line",
			config.Suggest(d.Profile, known), termsafe.Line(host.ClipRunes(d.Profile, 64)))
	}
	cfg, err := config.Load(config.LoadOptions{
		Workspace: p.workspace, File: p.flags.configFile, Flags: p.flags.settings(),
		Profile: d.Profile, Getenv: p.a.Getenv,
	})
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), config.ErrInvalidFlag.Error()+": "))
	}
	if err := host.RefuseProjectProfileWidening(cfg, p.workspace, host.HomeDir(p.a.Getenv)); err != nil {
		return nil, err
	}
	engine, err := p.engine(cfg)
	if err != nil {
		return nil, err
	}
	disabled, err := host.LoadDisabledTools(cfg, toolNames)
	if err != nil {
		return nil, err
	}
	name := "profile " + d.Profile
	d.Narrow = profileDecider{engine: engine, disabled: disabled, name: name}
	d.Restriction = name
	var notes []string
	if parent := p.preset; strictness(engine.Preset()) > strictness(parent) {
		notes = append(notes, fmt.Sprintf("%s's preset %s is wider than this run's %s: the sub-agent's calls are decided by both, the stricter wins", name, engine.Preset(), parent))
	}
	notes = append(notes, p.limits(d, cfg, name)...)
	if err := p.model(d, cfg); err != nil {
		return nil, err
	}
	return notes, nil
}

// strictness orders presets from the strictest (plan reads only, as
// read-only does).
func strictness(p policy.Preset) int {
	switch p {
	case policy.PresetReadOnly, policy.PresetPlan:
		return 0
	case policy.PresetEditor:
		return 1
	}
	return 2
}

// limits takes the profile's agent limits where they are lower than the
// run's, and notes those that are higher.
func (p *profileLoader) limits(d *host.AgentDef, cfg *config.Config, name string) []string {
	var notes []string
	pa := p.parent.Agent
	wider := func(key string, got, parent any) {
		notes = append(notes, fmt.Sprintf("%s's %s = %v is wider than this run's %v, which the sub-agent keeps", name, key, got, parent))
	}
	set := func(key string) bool { return cfg.Source(key).Profile == d.Profile }
	if set("agent.max_steps") {
		d.MaxSteps = min(cfg.Agent.MaxSteps, pa.MaxSteps)
		if cfg.Agent.MaxSteps > pa.MaxSteps {
			wider("agent.max_steps", cfg.Agent.MaxSteps, pa.MaxSteps)
		}
	}
	if set("agent.tool_timeout") {
		d.ToolTimeout = min(cfg.Agent.ToolTimeout, pa.ToolTimeout)
		if cfg.Agent.ToolTimeout > pa.ToolTimeout {
			wider("agent.tool_timeout", cfg.Agent.ToolTimeout, pa.ToolTimeout)
		}
	}
	if set("agent.max_result_bytes") {
		d.MaxResultBytes = min(cfg.Agent.MaxResultBytes, pa.MaxResultBytes)
		if cfg.Agent.MaxResultBytes > pa.MaxResultBytes {
			wider("agent.max_result_bytes", cfg.Agent.MaxResultBytes, pa.MaxResultBytes)
		}
	}
	return notes
}

// model takes the profile's model, sampling and, when they differ from
// the run's, provider settings. The agent file's own model wins over the
// profile's.
func (p *profileLoader) model(d *host.AgentDef, cfg *config.Config) error {
	pm, m := p.parent.Model, cfg.Model
	if d.Model == "" && m.Model != pm.Model {
		d.Model = m.Model
	}
	if !sameFloat(m.Temperature, pm.Temperature) || m.MaxTokens != pm.MaxTokens || m.ReasoningEffort != pm.ReasoningEffort {
		d.Params = &model.Request{Temperature: m.Temperature, MaxTokens: m.MaxTokens, ReasoningEffort: m.ReasoningEffort}
	}
	if m.Provider == pm.Provider && m.Endpoint == pm.Endpoint && m.APIKey == pm.APIKey && m.MaxResponseBytes == pm.MaxResponseBytes &&
		m.RequestTimeout == pm.RequestTimeout && m.HeaderTimeout == pm.HeaderTimeout && m.IdleTimeout == pm.IdleTimeout {
		return nil
	}
	if d.Model != "" {
		m.Model = d.Model
	}
	prov, err := newProvider(m)
	if err != nil {
		return err
	}
	d.Provider = prov
	return nil
}

func sameFloat(a, b *float64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// profileDecider is a profile's policy for a sub-agent: its engine, and a
// denial for the tools the profile disables.
type profileDecider struct {
	engine   *policy.Engine
	disabled []string
	name     string
}

func (d profileDecider) Decide(ctx context.Context, c policy.Call) policy.Decision {
	if slices.Contains(d.disabled, c.Spec.Name) {
		return policy.Decision{Action: policy.Deny, Reason: fmt.Sprintf("%s disables the tool %s", d.name, c.Spec.Name), Rule: d.name}
	}
	dec := d.engine.Decide(ctx, c)
	if dec.Action != policy.Allow && dec.Reason != "" {
		dec.Reason = d.name + ": " + dec.Reason
	}
	return dec
}
