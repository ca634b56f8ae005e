package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// TaskToolName is the name of the sub-agent tool (NewTaskTool), the name
// Claude Code's Task tool has in lower case.
const TaskToolName = "task"

// GeneralAgent is the name of the default sub-agent definition: a
// read-only agent with the parent's read-only tools.
const GeneralAgent = "general"

// Sub-agent defaults and bounds (TaskConfig).
const (
	// DefaultMaxSubagentDepth is the deepest a sub-agent may sit: the
	// root is depth 0, its children 1.
	DefaultMaxSubagentDepth = 3
	// DefaultMaxTreeSteps caps the model calls of a whole tree of agents.
	DefaultMaxTreeSteps = 50
	// DefaultSubagentSteps caps one sub-agent's own model calls.
	DefaultSubagentSteps = 25
	// DefaultSubagentTimeout bounds one task call, in place of the
	// parent's ToolTimeout, which is sized for a single tool.
	DefaultSubagentTimeout = 30 * time.Minute
	// MaxTaskListBytes caps the list of agents in the tool's description.
	MaxTaskListBytes = 4 << 10
	// maxAgentDescription caps one agent's line in that list.
	maxAgentDescription = 300
)

// SubagentDef defines a kind of sub-agent the model can start.
type SubagentDef struct {
	// Name is what the model passes as "agent": lower-case letters,
	// digits, '-' and '_', at most 64 bytes.
	Name string
	// Description tells the model when to use the agent; it is listed in
	// the task tool's description.
	Description string
	// System is the sub-agent's system prompt; "" means a general one.
	System string
	// Tools names the tools the sub-agent may call. Nil means the
	// parent's tools without mutating effects (tool.Effects.Mutating).
	// Only tools the parent run has are given; other names are dropped
	// with a note in the result, never added.
	Tools []string
	// Model names the sub-agent's model; "" means the parent's. It is
	// passed to TaskConfig.Provider, or sent as the request's model name
	// to the parent's provider.
	Model string
	// MaxSteps caps the sub-agent's model calls; 0 means
	// TaskConfig.MaxSteps.
	MaxSteps int

	// The fields below let an embedding program run the sub-agent under
	// other settings (rein's named profiles), never wider than the
	// parent.

	// Narrow, when not nil, decides every call of the sub-agent beside
	// the parent's policy and narrowing: the stricter decision wins, so
	// it can only narrow. Restriction names it in denial reasons.
	Narrow      policy.Decider
	Restriction string
	// Params, when not nil, replace the parent's sampling parameters.
	Params *model.Request
	// Provider, when not nil, is the sub-agent's provider in place of
	// the parent's (and of TaskConfig.Provider).
	Provider model.Provider
	// ToolTimeout and MaxResultBytes lower the parent's limits; 0, or a
	// value above the parent's, keeps the parent's.
	ToolTimeout    time.Duration
	MaxResultBytes int
	// Notes are appended to the task call's result: what the embedding
	// program narrowed, for instance.
	Notes []string
}

// TaskConfig configures NewTaskTool.
type TaskConfig struct {
	// Agents are the named definitions. A definition named GeneralAgent
	// replaces the default one.
	Agents []SubagentDef
	// Provider builds the provider for a definition that names a model;
	// nil means the parent run's provider, asked for that model by name.
	Provider func(model string) (model.Provider, error)
	// MaxDepth is the deepest a sub-agent may sit (0 means
	// DefaultMaxSubagentDepth; negative disables sub-agents: every task
	// call is refused). A call that would start a sub-agent deeper is an
	// is_error result naming the limit.
	MaxDepth int
	// MaxTreeSteps caps the model calls of the whole tree — the root run
	// and every sub-agent at any depth — when the root run's Agent offers
	// this tool (0 means DefaultMaxTreeSteps). Past it every run of the
	// tree stops StepLimit, and task calls are refused. A root run that
	// has started no sub-agent is bounded by its own MaxSteps only.
	MaxTreeSteps int
	// MaxSteps caps each sub-agent's model calls unless its definition
	// says otherwise (0 means DefaultSubagentSteps).
	MaxSteps int
	// Timeout bounds one task call (0 means DefaultSubagentTimeout).
	Timeout time.Duration
}

// ErrInvalidTaskConfig reports a TaskConfig NewTaskTool cannot use.
var ErrInvalidTaskConfig = errors.New("invalid task config")

var agentNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// taskArgs is the task tool's input, the shape of Claude Code's Task tool.
type taskArgs struct {
	Description  string `json:"description" jsonschema:"a short (3-5 word) description of the task"`
	Prompt       string `json:"prompt" jsonschema:"the task for the sub-agent: everything it needs to know, since it sees nothing of this conversation"`
	Agent        string `json:"agent,omitempty" jsonschema:"which agent to start (see the list in the description); default general"`
	SubagentType string `json:"subagent_type,omitempty" jsonschema:"the same as agent (Claude Code's name for it)"`
}

// taskTool is the tool NewTaskTool returns. It wraps a tool.Func (which
// validates the arguments) and adds what the loop asks of it: its
// definitions and the per-call effects the scheduler uses.
type taskTool struct {
	tool.Tool
	cfg  TaskConfig
	defs map[string]SubagentDef
}

// NewTaskTool returns the task tool: a call starts a sub-agent from one of
// cfg's definitions, runs it to its end and returns its final text as the
// result. The sub-agent is built from the run that calls the tool (found
// in the call's context; called outside an agent run the tool fails):
//
//   - its own Conversation, system prompt, step limit, and Config.Subagent
//     set, so Steering gets SubagentStop instead of Stop;
//   - the parent's Policy, Approver and Steering (never looser), and a
//     tool set no larger than the parent's (see SubagentDef.Tools);
//   - the parent's limits (tool timeout, result cap, parallelism) and the
//     rest of the parent's token budget;
//   - its events go to the root run's Journal and Hooks stamped with
//     Event.AgentPath, ParentCallID, Depth and Agent, and its usage counts
//     toward the parent's Outcome and TokenBudget.
//
// A failure, limit or cancellation of the sub-agent is an is_error result
// naming what happened, never a failure of the parent. Depth and the
// tree's model calls are limited (TaskConfig.MaxDepth, MaxTreeSteps).
// Several task calls of one turn run concurrently when their agents have
// no mutating tools; a call of an agent that may change things runs alone
// (the scheduler asks scheduleEffects).
func NewTaskTool(cfg TaskConfig) (tool.Tool, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{{"MaxTreeSteps", int64(cfg.MaxTreeSteps)}, {"MaxSteps", int64(cfg.MaxSteps)}, {"Timeout", int64(cfg.Timeout)}} {
		if f.v < 0 {
			return nil, fmt.Errorf("agent: %w: %s is negative; use 0 for the default", ErrInvalidTaskConfig, f.name)
		}
	}
	setDefault(&cfg.MaxDepth, DefaultMaxSubagentDepth)
	setDefault(&cfg.MaxTreeSteps, DefaultMaxTreeSteps)
	setDefault(&cfg.MaxSteps, DefaultSubagentSteps)
	setDefault(&cfg.Timeout, DefaultSubagentTimeout)
	t := &taskTool{cfg: cfg, defs: map[string]SubagentDef{GeneralAgent: generalDef()}}
	order := []string{GeneralAgent}
	for _, d := range cfg.Agents {
		if !agentNameRE.MatchString(d.Name) {
			return nil, fmt.Errorf("agent: %w: agent name %q must be lower-case letters, digits, '-' or '_' (at most 64)", ErrInvalidTaskConfig, d.Name)
		}
		if d.MaxSteps < 0 {
			return nil, fmt.Errorf("agent: %w: agent %s: MaxSteps is negative", ErrInvalidTaskConfig, d.Name)
		}
		if _, dup := t.defs[d.Name]; dup && d.Name != GeneralAgent {
			return nil, fmt.Errorf("agent: %w: two agents are named %s", ErrInvalidTaskConfig, d.Name)
		}
		if d.Name != GeneralAgent {
			order = append(order, d.Name)
		}
		t.defs[d.Name] = d
	}
	cfg.Agents = nil // the definitions live in t.defs
	t.cfg = cfg
	t.Tool = tool.Func(TaskToolName, taskDescription(t.defs, order, cfg.MaxDepth < 0), t.call,
		tool.WithEffects(tool.Effects{ReadsFiles: true}), tool.WithTimeout(cfg.Timeout))
	return t, nil
}

// generalDef is the default definition.
func generalDef() SubagentDef {
	return SubagentDef{Name: GeneralAgent,
		Description: "a general agent for research and multi-step questions; it has the read-only tools (it reads and searches, it changes nothing)"}
}

// DefaultSubagentSystem is the system prompt of a sub-agent whose
// definition has none (a durable engine running sub-agents itself uses it
// too).
const DefaultSubagentSystem = "You are a sub-agent: another agent started you to do one task, described in the " +
	"user message. You cannot ask the user anything. Use your tools to do the task, then answer with a " +
	"concise and complete report of what you found or did, with the file paths and facts that matter: " +
	"your final message is all the other agent will see."

// taskDescription is the tool's description: what it does and the list of
// agents, capped at MaxTaskListBytes.
func taskDescription(defs map[string]SubagentDef, order []string, disabled bool) string {
	var b strings.Builder
	b.WriteString("Start a sub-agent to do a task on its own and return its final report. It gets a fresh " +
		"conversation (it sees nothing of yours, so the prompt must say everything it needs) and at most " +
		"your tools. Start several in one turn to work in parallel. Agents (pass the name as \"agent\"):")
	if disabled {
		return "Sub-agents are disabled in this configuration; do not call this tool."
	}
	for i, name := range order {
		line := "\n- " + name + ": " + clip(oneLineText(defs[name].Description), maxAgentDescription)
		if b.Len()+len(line) > MaxTaskListBytes {
			fmt.Fprintf(&b, "\n(%s not listed)", plural(len(order)-i, "more agent"))
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// scheduleEffects implements callEffecter: a call of an agent whose tools
// (as the parent would give them) include a mutating one may change
// anything, so it runs alone; otherwise it only reads.
func (t *taskTool) scheduleEffects(args json.RawMessage, parent *tool.Set) tool.Effects {
	spec := t.Spec()
	var in taskArgs
	if json.Unmarshal(args, &in) != nil {
		return spec.Effects
	}
	def, ok := t.defs[agentName(in)]
	if !ok {
		return spec.Effects // refused before it starts anything
	}
	set, _ := childTools(def, parent)
	for _, s := range set.Specs() {
		if s.Effects.Mutating() {
			return tool.Effects{Exec: true}
		}
	}
	return spec.Effects
}

func agentName(in taskArgs) string {
	switch {
	case in.Agent != "":
		return in.Agent
	case in.SubagentType != "":
		return in.SubagentType
	}
	return GeneralAgent
}

// childTools is the tool set def gets from a parent with tools parent,
// and the names def asked for that the parent does not have.
func childTools(def SubagentDef, parent *tool.Set) (*tool.Set, []string) {
	if def.Tools == nil {
		return parent.Filter(func(s tool.Spec) bool { return !s.Effects.Mutating() }), nil
	}
	want := map[string]bool{}
	var dropped []string
	for _, n := range def.Tools {
		if _, ok := parent.Get(n); ok {
			want[n] = true
		} else if !want[n] {
			dropped = append(dropped, n)
		}
	}
	return parent.Filter(func(s tool.Spec) bool { return want[s.Name] }), dropped
}
