package agent

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/reinharness/rein/tool"
)

// maxPartialAnswer caps the last text of a sub-agent that did not finish,
// quoted in its error result.
const maxPartialAnswer = 2 << 10

// call is the task tool's function: it checks the limits, builds the
// sub-agent from the calling run and runs it to its end.
func (t *taskTool) call(ctx context.Context, in taskArgs) (*tool.Result, error) {
	parent, _ := ctx.Value(runKey{}).(*run)
	if parent == nil {
		return tool.ErrorResult("%s works only inside an agent run", TaskToolName), nil
	}
	if t.cfg.MaxDepth < 0 {
		return tool.ErrorResult("sub-agents are disabled (max_subagent_depth is 0): do the task yourself"), nil
	}
	name := agentName(in)
	def, ok := t.defs[name]
	if !ok {
		return tool.ErrorResult("there is no agent named %q; the agents are: %s", clip(name, 64), strings.Join(t.names(), ", ")), nil
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return tool.ErrorResult("the prompt is empty: say what the sub-agent must do"), nil
	}
	depth := parent.link.depth + 1
	if depth > t.cfg.MaxDepth {
		return tool.ErrorResult("sub-agent depth limit reached: a sub-agent here would be at depth %d, past the limit of %d (max_subagent_depth); do the task yourself",
			depth, t.cfg.MaxDepth), nil
	}
	tree := parent.link.tree
	if tree.limit > 0 && tree.steps.Load() >= tree.limit {
		return tool.ErrorResult("the agent tree reached its shared limit of %s (max_tree_steps): no sub-agent can start",
			plural(int(tree.limit), "model call")), nil
	}
	child, dropped, err := t.newChild(parent, def)
	if err != nil {
		return tool.ErrorResult("sub-agent %s could not start: %v", name, err), nil
	}
	callID := tool.CallID(ctx)
	link := &treeLink{tree: tree, parent: parent, depth: depth, parentCallID: callID, agentName: name,
		path: joinPath(parent.link.path, TaskToolName+":"+callID+"/"+name)}
	tree.started.Add(1)
	conv := NewConversation(parent.c.id)
	out, _ := child.runToEnd(withLink(ctx, link), conv, in.Prompt, narrowedBy(parent.inherited(), def))
	if out != nil {
		parent.link.addChildUsage(out.Usage)
	}
	return taskResult(name, out, dropped, def.Notes), nil
}

// names lists the definitions' names, the default first.
func (t *taskTool) names() []string {
	out := []string{GeneralAgent}
	for n := range t.defs {
		if n != GeneralAgent {
			out = append(out, n)
		}
	}
	return out
}

func joinPath(parent, seg string) string {
	if parent == "" {
		return seg
	}
	return parent + "/" + seg
}

// newChild builds the sub-agent's Agent from the parent run's settings:
// its tools come from the run's effective tool set (RunOptions.Tools, else
// Config.Tools) as the run's AllowedTools narrow it, and call runs it
// with the run's narrowing (inherited).
func (t *taskTool) newChild(parent *run, def SubagentDef) (*Agent, []string, error) {
	pc := &parent.a.cfg
	tools, dropped := childTools(def, parent.permitted())
	cfg := Config{
		Provider: pc.Provider, Model: pc.Model,
		System: def.System, Instructions: pc.Instructions, Params: *parent.params,
		Tools: tools, Policy: pc.Policy, Approver: pc.Approver,
		MaxConsecutiveDenials: pc.MaxConsecutiveDenials, RepeatLimit: pc.RepeatLimit,
		MaxParallel: pc.MaxParallel, ToolTimeout: pc.ToolTimeout, MaxResultBytes: pc.MaxResultBytes,
		MaxSteps: def.MaxSteps, Subagent: true, Logger: pc.Logger,
		Clock: pc.Clock, IDs: pc.IDs, FanOut: pc.FanOut,
	}
	if cfg.System == "" {
		cfg.System = DefaultSubagentSystem
	}
	if def.Params != nil {
		cfg.Params = *def.Params
	}
	if def.ToolTimeout > 0 && (cfg.ToolTimeout == 0 || def.ToolTimeout < cfg.ToolTimeout) {
		cfg.ToolTimeout = def.ToolTimeout
	}
	if def.MaxResultBytes > 0 && (cfg.MaxResultBytes == 0 || def.MaxResultBytes < cfg.MaxResultBytes) {
		cfg.MaxResultBytes = def.MaxResultBytes
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = t.cfg.MaxSteps
	}
	if def.Model != "" {
		// Only the model name changes: the provider (endpoint and
		// credentials) is the parent's unless the embedding program's
		// Provider function builds one.
		cfg.Model = def.Model
		if t.cfg.Provider != nil && def.Provider == nil {
			p, err := t.cfg.Provider(def.Model)
			if err != nil {
				return nil, nil, fmt.Errorf("model %s: %w", def.Model, err)
			}
			cfg.Provider = p
		}
	}
	if def.Provider != nil {
		cfg.Provider = def.Provider
	}
	if pc.ContextWindow > 0 && cfg.Model == pc.Model && def.Provider == nil {
		cfg.ContextWindow = pc.ContextWindow
	}
	if pc.TokenBudget > 0 {
		// What the parent has left; the parent counts what the child
		// used when the call returns.
		cfg.TokenBudget = max(pc.TokenBudget-parent.used, 1)
	}
	if pc.Steering != nil {
		cfg.Steering = subagentSteering{inner: pc.Steering}
	}
	root := parent.link.tree.root
	if root.a.cfg.Journal != nil {
		cfg.Journal = treeJournal{root: root}
	}
	if len(root.a.cfg.Hooks) > 0 {
		cfg.Hooks = []Hook{treeHook{tree: parent.link.tree}}
	}
	a, err := New(cfg)
	return a, dropped, err
}

// taskResult turns the sub-agent's outcome into the task call's result.
func taskResult(name string, out *Outcome, dropped, notes []string) *tool.Result {
	var note string
	if len(dropped) > 0 {
		note = fmt.Sprintf("\n\n(note: agent %s asked for tools this run does not have, which it did not get: %s)", name, strings.Join(dropped, ", "))
	}
	for _, n := range notes {
		note += "\n\n(note: " + n + ")"
	}
	switch {
	case out == nil:
		return tool.ErrorResult("sub-agent %s ended without an outcome%s", name, note)
	case out.Kind == Complete && strings.TrimSpace(out.Text) != "":
		return &tool.Result{Content: out.Text + note}
	case out.Kind == Complete:
		return tool.ErrorResult("sub-agent %s finished without an answer%s", name, note)
	}
	why := out.Reason
	if why == "" {
		why = out.Err
	}
	msg := fmt.Sprintf("sub-agent %s did not finish: %s", name, out.Kind)
	if why != "" {
		msg += ": " + why
	}
	if t := strings.TrimSpace(out.Text); t != "" {
		msg += "\n\nIts last words:\n" + clip(t, maxPartialAnswer)
	}
	return &tool.Result{Content: msg + note, IsError: true}
}

// linkSlot carries a treeLink to exactly one run: the sub-agent's. Any
// other Agent run started later under the same context (by a tool of the
// sub-agent, say) starts a tree of its own.
type linkSlot struct {
	link    *treeLink
	claimed atomic.Bool
}

func withLink(ctx context.Context, l *treeLink) context.Context {
	return context.WithValue(ctx, linkKey{}, &linkSlot{link: l})
}

// claimLink returns the link ctx carries for the run being created, once.
func claimLink(ctx context.Context) *treeLink {
	s, _ := ctx.Value(linkKey{}).(*linkSlot)
	if s == nil || !s.claimed.CompareAndSwap(false, true) {
		return nil
	}
	return s.link
}
