package cli

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/engine"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// temporalWorkspace is one workspace a worker holds: its harness (tools,
// policy, MCP servers) is built once per preset, as `rein run` builds it,
// and kept while the worker lives.
type temporalWorkspace struct {
	a     *App
	flags commonFlags // the worker's flags, with this workspace's directory
	mu    sync.Mutex
	parts map[string]*workspaceParts
	// maxPreset is the widest preset a session may ask for: the worker's
	// own (its configuration's, or --max-preset). A submitter may narrow
	// the policy, never widen it.
	maxPreset policy.Preset
}

// presetRank orders the presets from the narrowest.
func presetRank(p policy.Preset) int {
	switch p {
	case policy.PresetReadOnly:
		return 0
	case policy.PresetEditor:
		return 1
	}
	return 2
}

// workspaceParts is the harness of one preset.
type workspaceParts struct {
	cfg *config.Config
	h   *harness
	dir string
	// steer runs the hooks that may run here; nil when none.
	steer agent.Steering
}

func newTemporalWorkspace(a *App, flags commonFlags, dir string) *temporalWorkspace {
	flags.workspace = dir
	flags.approve = approveNever // an Ask waits for `rein approve`, in the workflow
	return &temporalWorkspace{a: a, flags: flags, parts: map[string]*workspaceParts{}}
}

// get builds (once) the harness of preset.
func (w *temporalWorkspace) get(ctx context.Context, preset string) (*workspaceParts, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p, ok := w.parts[preset]; ok {
		return p, nil
	}
	if preset != "" && w.maxPreset != "" && presetRank(policy.Preset(preset)) > presetRank(w.maxPreset) {
		return nil, fmt.Errorf("this workspace's workers allow presets up to %s, and the session asks for %s (start the workers with --max-preset %s to allow it)", w.maxPreset, preset, preset)
	}
	f := w.flags
	f.preset = preset
	cfg, dir, err := w.a.load(&f)
	if err != nil {
		return nil, err
	}
	// The workflow history is the session's store: the activities redact
	// what they return of every credential rein knows of here.
	registerSecrets(cfg, w.a.Getenv, w.a.environ())
	h, err := w.a.newHarness(cfg, harnessOptions{workspace: dir, flags: &f})
	if err != nil {
		return nil, err
	}
	if err := h.mcp.refresh(ctx); err != nil {
		h.close()
		return nil, err
	}
	runner, _, err := w.a.hookRunner(cfg, h, host.StateDir(f.stateDirFlag(), w.a.Getenv))
	if err != nil {
		h.close()
		return nil, err
	}
	p := &workspaceParts{cfg: cfg, h: h, dir: dir}
	if runner != nil {
		p.steer = runner
	}
	w.parts[preset] = p
	if preset == "" && w.maxPreset == "" {
		w.maxPreset = h.engine.Preset()
	}
	return p, nil
}

// close releases every harness.
func (w *temporalWorkspace) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.parts {
		p.h.close()
	}
	w.parts = nil
}

// Setup implements engine.Workspace.
func (w *temporalWorkspace) Setup(ctx context.Context, preset, agentName string, depth int) (engine.Setup, error) {
	p, err := w.get(ctx, preset)
	if err != nil {
		return engine.Setup{}, err
	}
	cfg, h := p.cfg, p.h
	in, err := w.a.runInstructions(cfg, h)
	if err != nil {
		return engine.Setup{}, err
	}
	st := engine.Setup{
		System: h.mem.refreshSystem(h.system, h.tools), Instructions: in.Text, Model: cfg.Model.Model,
		Params: model.Request{Temperature: cfg.Model.Temperature, MaxTokens: cfg.Model.MaxTokens, ReasoningEffort: cfg.Model.ReasoningEffort},
		Tools:  h.tools.Specs(), MaxSteps: cfg.Agent.MaxSteps, TokenBudget: cfg.Agent.TokenBudget,
		MaxParallel: cfg.Agent.MaxParallelTools, ToolTimeout: cfg.Agent.ToolTimeout, Timeout: cfg.Agent.Timeout,
		MaxResultBytes: cfg.Agent.MaxResultBytes, ContextWindow: cfg.Model.ContextWindow,
		RepeatLimit: cfg.Agent.RepeatLimit, MaxConsecutiveDenials: agentDenials(cfg.Agent.MaxConsecutiveDenials),
	}
	st.Hooks = p.steer != nil
	if v := h.verify; v != nil {
		for _, c := range v.checks {
			st.Verify = append(st.Verify, c.Name)
		}
		st.VerifyAlways, st.MaxVerifyAttempts = v.always, h.maxVerify
	}
	if agentName == "" {
		return st, nil
	}
	st.Verify = nil // sub-agents answer their parent, who is verified
	def, ok := findAgentDef(h.agents, agentName)
	if !ok {
		return engine.Setup{}, fmt.Errorf("no sub-agent is called %q in this workspace", agentName)
	}
	st.System, st.Instructions = def.System, ""
	if st.System == "" {
		st.System = agent.DefaultSubagentSystem
	}
	if def.Model != "" {
		st.Model = def.Model
	}
	if def.MaxSteps > 0 {
		st.MaxSteps = def.MaxSteps
	} else {
		st.MaxSteps = agent.DefaultSubagentSteps
	}
	st.AllowedTools = []string{}
	for _, s := range st.Tools {
		if def.Tools == nil && !s.Effects.Mutating() || def.Tools != nil && slices.Contains(def.Tools, s.Name) {
			st.AllowedTools = append(st.AllowedTools, s.Name)
		}
	}
	return st, nil
}

// findAgentDef finds a custom agent, or the general one.
func findAgentDef(defs []host.AgentDef, name string) (agent.SubagentDef, bool) {
	for _, d := range defs {
		if d.Name == name {
			return d.SubagentDef, true
		}
	}
	if name == agent.GeneralAgent {
		return agent.SubagentDef{Name: agent.GeneralAgent}, true
	}
	return agent.SubagentDef{}, false
}

// Tools implements engine.Workspace.
func (w *temporalWorkspace) Tools(ctx context.Context, preset string) (*tool.Set, tool.InvokeOptions, error) {
	p, err := w.get(ctx, preset)
	if err != nil {
		return nil, tool.InvokeOptions{}, err
	}
	return p.h.tools, tool.InvokeOptions{Timeout: p.cfg.Agent.ToolTimeout, MaxResultBytes: p.cfg.Agent.MaxResultBytes}, nil
}

// Check implements engine.Workspace: check index of the [verify] checks,
// run in the workspace under its sandbox as rein run runs it.
func (w *temporalWorkspace) Check(ctx context.Context, preset string, index int) (agent.CheckResult, error) {
	p, err := w.get(ctx, preset)
	if err != nil {
		return agent.CheckResult{}, err
	}
	v := p.h.verify
	if v == nil || index < 0 || index >= len(v.checks) {
		return agent.CheckResult{}, fmt.Errorf("this workspace has no verification check %d (its [verify] changed since the session started?)", index)
	}
	return v.run(ctx, v.checks[index]), nil
}

// LastChange implements engine.Workspace.
func (w *temporalWorkspace) LastChange(ctx context.Context, preset string) int64 {
	p, err := w.get(ctx, preset)
	if err != nil {
		return 0
	}
	return lastSeq(p.h.ws)
}

// Changes implements engine.Workspace: the journal's changes since seq
// made by the call with idempotency key key.
func (w *temporalWorkspace) Changes(ctx context.Context, preset string, since int64, key string) []agent.FileChange {
	p, err := w.get(ctx, preset)
	if err != nil {
		return nil
	}
	var out []agent.FileChange
	for _, c := range p.h.ws.ChangesSince(since) {
		if c.CallID == key {
			out = append(out, agent.FileChange{Path: c.Path, Kind: c.Kind(), CallKey: c.CallID,
				BeforeHash: c.Before.Hash, AfterHash: c.After.Hash, AfterSize: c.After.Size})
		}
	}
	return out
}

// Steer implements engine.Workspace: the workspace's hooks, as rein run
// runs them (the user's, and the workspace's once trusted). Their
// transcript_path names a file the worker does not write: the session's
// events live in the workflow.
func (w *temporalWorkspace) Steer(ctx context.Context, preset string, pt agent.SteerPoint) (agent.SteerVerdict, error) {
	p, err := w.get(ctx, preset)
	if err != nil {
		return agent.SteerVerdict{}, err
	}
	if p.steer == nil {
		return agent.SteerVerdict{}, nil
	}
	return p.steer.Steer(ctx, pt), nil
}

// Policy implements engine.Workspace.
func (w *temporalWorkspace) Policy(ctx context.Context, preset string) (policy.Decider, error) {
	p, err := w.get(ctx, preset)
	if err != nil {
		return nil, err
	}
	return p.h.engine, nil
}
