package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/tool"
)

// A tree of agents is a root run and the sub-agent runs its task calls
// started, at any depth. The tree shares one counter of model calls (its
// limit stops every run of the tree at once), one journal and one set of
// hooks — the root's — and each run knows where it sits in the tree, so
// every event it emits is stamped with its agent path.

// agentTree is what every run of one tree shares.
type agentTree struct {
	// steps counts the model calls of every run of the tree; limit is
	// its cap (0: none), fixed when the root run starts.
	steps atomic.Int64
	limit int64
	// started counts the sub-agents started: until the first, the root
	// is bounded by its own MaxSteps only.
	started atomic.Int64
	// root is the root run: its journal and hooks record the whole tree.
	root *run
	// hookMu serialises the root's hooks for events of sub-agents, which
	// run on their own goroutines, concurrently with each other.
	hookMu sync.Mutex
}

// spend takes one model call from the tree's budget. It reports false,
// taking nothing, when the budget is spent.
func (t *agentTree) spend() bool {
	if t.limit <= 0 {
		t.steps.Add(1)
		return true
	}
	for {
		n := t.steps.Load()
		if n >= t.limit {
			return false
		}
		if t.steps.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// treeLink is a run's place in its tree; the zero value is a root run of
// no tree (an Agent without the task tool).
type treeLink struct {
	tree *agentTree
	// parent is the run whose task call started this one; nil for the root.
	parent *run
	// depth is 0 for the root; path is "" for the root, else the
	// parent's path joined with "task:<call id>/<agent name>".
	depth        int
	path         string
	parentCallID string
	agentName    string

	// usageMu guards childUsage and childTokens: the usage of finished
	// sub-agents, added by their task calls (on tool goroutines) and
	// folded into the run's own accounting on the run's goroutine.
	usageMu     sync.Mutex
	childUsage  model.Usage
	childTokens int
}

// linkKey carries the treeLink a task call prepared into the child run's
// context (a *linkSlot), for newRun to pick up.
type linkKey struct{}

// linkRun gives r its place in a tree: the one its context carries (a
// sub-agent), else a tree of its own, whose model calls are capped when
// r's Agent offers the task tool.
func linkRun(r *run, ctx context.Context) {
	if l := claimLink(ctx); l != nil {
		r.link = l
		return
	}
	r.link = &treeLink{tree: &agentTree{root: r}}
	if t, ok := r.tools.Get(TaskToolName); ok {
		if tt, ok := t.(*taskTool); ok {
			r.link.tree.limit = int64(tt.cfg.MaxTreeSteps)
		}
	}
}

// treeLimitReached spends one model call of the tree's budget, or reports
// the reason the tree is out of it.
func (r *run) treeLimitReached() (string, bool) {
	t := r.link.tree
	if t.spend() || (r.link.parent == nil && t.started.Load() == 0) {
		return "", false
	}
	return fmt.Sprintf("the agent tree reached its shared limit of %s (max_tree_steps)", plural(int(t.limit), "model call")), true
}

// foldChildUsage adds the usage of sub-agents that finished since the last
// fold to the run's usage and token count, so children count toward the
// parent's Outcome and TokenBudget.
func (r *run) foldChildUsage() {
	l := r.link
	l.usageMu.Lock()
	u, n := l.childUsage, l.childTokens
	l.childUsage, l.childTokens = model.Usage{}, 0
	l.usageMu.Unlock()
	if n == 0 && u == (model.Usage{}) {
		return
	}
	r.out.Usage.Add(u)
	r.used += n
}

// addChildUsage is called by a task call when its sub-agent finished.
func (l *treeLink) addChildUsage(u model.Usage) {
	l.usageMu.Lock()
	defer l.usageMu.Unlock()
	l.childUsage.Add(u)
	l.childTokens += u.InputTokens + u.OutputTokens
}

// stampLink sets the tree fields of an event of r.
func (r *run) stampLink(ev *Event) {
	if l := r.link; l.path != "" {
		ev.AgentPath, ev.ParentCallID, ev.Depth, ev.Agent = l.path, l.parentCallID, l.depth, l.agentName
	}
}

// treeJournal is a sub-agent's Journal: the root run's Journal, serialised
// with the root's own appends. A refusal fails the sub-agent (and its task
// call); the root then meets the same broken journal on its next append.
type treeJournal struct{ root *run }

func (j treeJournal) Append(ctx context.Context, ev Event) error {
	jr := j.root.a.cfg.Journal
	j.root.journalMu.Lock()
	defer j.root.journalMu.Unlock()
	return jr.Append(j.root.recordCtx, ev)
}

// treeHook is a sub-agent's Hook: it hands the event to the root run's
// hooks, one event at a time across the tree, because hooks expect the
// calls of one run and sub-agents run concurrently.
type treeHook struct{ tree *agentTree }

func (h treeHook) OnEvent(_ context.Context, ev Event) {
	root := h.tree.root
	h.tree.hookMu.Lock()
	defer h.tree.hookMu.Unlock()
	for _, hk := range root.a.cfg.Hooks {
		root.callHook(hk, ev)
	}
}

// subagentSteering is a sub-agent's Steering: the parent's, consulted at
// the points Claude Code consults hooks for sub-agents (PreToolUse,
// PostToolUse, SubagentStop, PreCompact). SessionStart, UserPromptSubmit
// and SessionEnd belong to the session, which the sub-agent does not
// start or end.
type subagentSteering struct{ inner Steering }

func (s subagentSteering) Steer(ctx context.Context, p SteerPoint) SteerVerdict {
	switch p.Event {
	case SteerSessionStart, SteerUserPromptSubmit, SteerSessionEnd:
		return SteerVerdict{}
	}
	return s.inner.Steer(ctx, p)
}

// callEffecter is implemented by tools whose effects depend on the call:
// the scheduler (execute) orders the call by the effects it returns
// instead of the spec's. The task tool is one: a call of a read-only
// agent only reads, a call of an agent with write tools may do anything.
type callEffecter interface {
	scheduleEffects(args json.RawMessage, parent *tool.Set) tool.Effects
}
