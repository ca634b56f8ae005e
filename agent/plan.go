package agent

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/reinharness/rein/tool"
)

// PlanToolName is the name of the plan tool (PlanTool).
const PlanToolName = "todo_write"

// Plan limits. A plan rides on every request (see PlanTool), so it is kept
// small enough never to crowd out the conversation.
const (
	MaxPlanItems     = 100
	MaxPlanItemBytes = 1 << 10
)

// planArgs is the plan tool's input: the shape Claude Code's TodoWrite and
// Codex's update_plan share.
type planArgs struct {
	Todos []planArg `json:"todos" jsonschema:"the whole plan, replacing the previous one; an empty list clears it"`
}

type planArg struct {
	Content    string `json:"content" jsonschema:"what to do, in the imperative (\"Run the tests\")"`
	Status     string `json:"status" enum:"pending,in_progress,completed" jsonschema:"pending, in_progress (at most one item) or completed"`
	ActiveForm string `json:"activeForm,omitempty" jsonschema:"the present-continuous form shown while the item is in progress (\"Running the tests\")"`
}

const planDescription = "Create or update your plan for the current task: the whole list of steps, each " +
	"pending, in_progress or completed. Keep exactly one item in_progress while you work on it and " +
	"mark it completed as soon as it is done. Use it for tasks of three or more steps; skip it for " +
	"trivial ones. The current plan is shown to you with every request. At most 100 items of 1 KiB each."

// PlanTool returns the todo_write tool. Its state lives in the Conversation
// of the run that invokes it (Conversation.Plan); every change is reported
// as a plan.updated event, which a session store journals so that a
// resumed conversation gets its plan back (Conversation.SetPlan). The
// current plan travels with every request as a "# Current plan" section of
// the system prompt, outside the compactable history, so no context
// strategy can drop it. Called outside an agent run it fails.
func PlanTool() tool.Tool {
	return tool.Func(PlanToolName, planDescription, callPlan)
}

// callPlan is the plan tool's function.
func callPlan(ctx context.Context, in planArgs) (*tool.Result, error) {
	items, problem := validatePlan(in.Todos)
	if problem != "" {
		return tool.ErrorResult("%s: %s; send the whole plan again", PlanToolName, problem), nil
	}
	r, _ := ctx.Value(runKey{}).(*run)
	if r == nil {
		return tool.ErrorResult("%s works only inside an agent run", PlanToolName), nil
	}
	r.updatePlan(items)
	return tool.TextResult(planSummary(items)), nil
}

// validatePlan checks a plan and converts it, or says what is wrong with it.
func validatePlan(in []planArg) ([]PlanItem, string) {
	if len(in) > MaxPlanItems {
		return nil, fmt.Sprintf("the plan has %d items, more than the limit of %d", len(in), MaxPlanItems)
	}
	items := make([]PlanItem, len(in))
	active := -1
	for i, a := range in {
		n := i + 1
		switch {
		case strings.TrimSpace(a.Content) == "":
			return nil, fmt.Sprintf("item %d has no content", n)
		case len(a.Content)+len(a.ActiveForm) > MaxPlanItemBytes:
			return nil, fmt.Sprintf("item %d is %d bytes long, more than the limit of %d", n, len(a.Content)+len(a.ActiveForm), MaxPlanItemBytes)
		case !utf8.ValidString(a.Content) || !utf8.ValidString(a.ActiveForm):
			return nil, fmt.Sprintf("item %d is not valid UTF-8", n)
		}
		st := PlanStatus(a.Status)
		switch st {
		case PlanPending, PlanCompleted:
		case PlanInProgress:
			if active >= 0 {
				return nil, fmt.Sprintf("items %d and %d are both in_progress; at most one item may be", active+1, n)
			}
			active = i
		default:
			return nil, fmt.Sprintf("item %d has status %q; use pending, in_progress or completed", n, clip(a.Status, 40))
		}
		items[i] = PlanItem{Content: a.Content, Status: st, ActiveForm: a.ActiveForm}
	}
	return items, ""
}

// planSummary is the plan tool's result: short, since the plan itself is
// in the system prompt of the next request.
func planSummary(items []PlanItem) string {
	if len(items) == 0 {
		return "Plan cleared."
	}
	var done, pending int
	current := ""
	for _, it := range items {
		switch it.Status {
		case PlanCompleted:
			done++
		case PlanPending:
			pending++
		case PlanInProgress:
			current = it.Content
		}
	}
	s := fmt.Sprintf("Plan updated: %s, %d completed, %d pending", plural(len(items), "item"), done, pending)
	if current != "" {
		s += "; in progress: " + clip(current, 200)
	}
	return s + "."
}

// runKey is the context key of the run invoking a tool.
type runKey struct{}

// planState is the run's plan state. The plan tool runs on a call's
// goroutine: it journals its plan.updated event at once, like a tool
// result, and leaves it here; the run's goroutine moves the plan into the
// Conversation and reports the events once the turn's results are recorded.
type planState struct {
	planMu      sync.Mutex
	planPending []planUpdate
	// planText is the rendered plan for the system prompt, "" for none.
	planText string
	// planTextOf is the plan planText was rendered from.
	planTextOf []PlanItem
}

// planUpdate is one plan tool call's change.
type planUpdate struct {
	items []PlanItem
	ev    Event
	err   error // the journal's refusal of ev
}

// updatePlan records a plan set by the plan tool. It may run on any
// goroutine. A journal failure ends the run once the turn is over.
func (r *run) updatePlan(items []PlanItem) {
	ev := r.stamp(Event{Type: EventPlanUpdated, Plan: items})
	err := r.journal(ev)
	r.planMu.Lock()
	r.planPending = append(r.planPending, planUpdate{items: items, ev: ev, err: err})
	r.planMu.Unlock()
}

// flushPlan moves the plan tool's changes of the turn into the
// Conversation, in the order the calls made them, and reports them. It
// runs on the run's goroutine.
func (r *run) flushPlan() error {
	r.planMu.Lock()
	pending := r.planPending
	r.planPending = nil
	r.planMu.Unlock()
	var first error
	for _, u := range pending {
		r.c.plan = u.items
		err := u.err
		if err == nil {
			err = r.deliverEvent(u.ev, nil, false)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// systemWithPlan returns the system prompt of the next request: the run's,
// followed by the current plan when there is one.
func (r *run) systemWithPlan() string {
	text := r.renderedPlan()
	switch {
	case text == "":
		return r.system
	case r.system == "":
		return text
	}
	return r.system + "\n\n" + text
}

// planTokens estimates what the plan adds to every request.
func (r *run) planTokens() int {
	return EstimateTextTokens(len(r.renderedPlan()))
}

// renderedPlan renders the Conversation's plan, once per change.
func (r *run) renderedPlan() string {
	p := r.c.plan
	if len(p) == 0 {
		return ""
	}
	if len(r.planTextOf) == len(p) && &r.planTextOf[0] == &p[0] {
		return r.planText
	}
	r.planTextOf, r.planText = p, renderPlan(p)
	return r.planText
}

// renderPlan is the "# Current plan" section of the system prompt.
func renderPlan(items []PlanItem) string {
	var b strings.Builder
	b.WriteString("# Current plan\n\nYour plan for this task, as you last set it with " + PlanToolName + ":\n")
	for i, it := range items {
		b.WriteString("\n" + strconv.Itoa(i+1) + ". [" + string(it.Status) + "] " + it.Content)
		if it.Status == PlanInProgress && it.ActiveForm != "" {
			b.WriteString(" (" + it.ActiveForm + ")")
		}
	}
	return b.String()
}

// Plan returns a copy of the conversation's current plan (set by the
// todo_write tool), nil when there is none.
func (c *Conversation) Plan() []PlanItem { return slices.Clone(c.plan) }

// SetPlan replaces the conversation's plan with a copy of items; a session
// store restoring a conversation uses it. Runs see it from their next
// model call.
func (c *Conversation) SetPlan(items []PlanItem) {
	c.plan = slices.Clip(slices.Clone(items))
	if len(c.plan) == 0 {
		c.plan = nil
	}
}
