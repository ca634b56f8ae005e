package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// byRestriction names RunOptions.AllowedTools and Narrow as the decider of
// a call they denied or made ask.
const byRestriction = "restriction"

// narrowing is the per-run restriction of RunOptions: which tools are
// offered, and the extra decider of their calls. The zero value
// restricts nothing.
type narrowing struct {
	// allowed is nil when every tool is offered.
	allowed map[string]bool
	narrow  policy.Decider
	// restriction names the restriction in reasons.
	restriction string
	// listed are the allowed tools the Set has, for the denial reason.
	listed []string
}

func newNarrowing(opts RunOptions) narrowing {
	n := narrowing{narrow: opts.Narrow, restriction: opts.Restriction}
	if n.restriction == "" {
		n.restriction = "this run's allowed tools"
	}
	if opts.AllowedTools != nil {
		n.allowed = make(map[string]bool, len(opts.AllowedTools))
		for _, name := range opts.AllowedTools {
			n.allowed[name] = true
		}
	}
	return n
}

// permits reports whether the tool name is offered in this run.
func (n *narrowing) permits(name string) bool {
	return n.allowed == nil || n.allowed[name]
}

// offered returns the specs of the tools this run offers, in order, and
// notes their names for the denial reason.
func (n *narrowing) offered(specs []tool.Spec) []tool.Spec {
	if n.allowed == nil {
		return specs
	}
	out := slices.DeleteFunc(slices.Clone(specs), func(s tool.Spec) bool { return !n.allowed[s.Name] })
	n.listed = n.listed[:0] // read again when the set changed
	for _, s := range out {
		n.listed = append(n.listed, s.Name)
	}
	slices.Sort(n.listed)
	return out
}

// notAllowedReason is the denial a call of a tool outside AllowedTools
// gets: it names the restriction and what it allows, so the model can
// choose a tool it may use instead of retrying.
func (n *narrowing) notAllowedReason(name string) string {
	allowed := "no tools"
	if len(n.listed) > 0 {
		allowed = "only " + strings.Join(n.listed, ", ")
	}
	return fmt.Sprintf("%s is not allowed by %s (%s may be used in this run)", clip(name, tool.MaxNameLen), n.restriction, allowed)
}

// narrowDecision combines the policy's decision with Narrow's: the
// stricter wins, and a tie keeps the policy's, so Narrow never lifts a
// denial, a hard denial or a question of the policy.
func (r *run) narrowDecision(c policy.Call, pd policy.Decision, by string) (policy.Decision, string) {
	if r.narrow == nil {
		return pd, by
	}
	nd := r.safeNarrow(c)
	if nd.Action <= pd.Action {
		return pd, by
	}
	if nd.Reason == "" {
		nd.Reason = "not allowed by " + r.restriction
	}
	nby := nd.Rule
	if nby == "" {
		nby = byRestriction
	}
	return nd, nby
}

// safeNarrow calls Narrow, turning a panic into a denial (fail closed).
func (r *run) safeNarrow(c policy.Call) (d policy.Decision) {
	defer func() {
		if v := recover(); v != nil {
			d = policy.Decision{Action: policy.Deny, Reason: fmt.Sprintf("%s failed (%v)", r.restriction, v)}
		}
	}()
	return r.narrow.Decide(r.ctx, c)
}

// permitted returns the tools of the run that AllowedTools lets it call:
// what a sub-agent of the run may draw its tools from.
func (r *run) permitted() *tool.Set {
	if r.allowed == nil {
		return r.tools
	}
	return r.tools.Filter(func(s tool.Spec) bool { return r.allowed[s.Name] })
}

// inherited returns the narrowing a sub-agent's run inherits from r: the
// same allowed tools, Narrow and Restriction, so a child is never wider
// than the run that started it. Its own tool set (drawn from permitted)
// is then narrowed again by the same list, which keeps the denial reasons
// the parent's.
func (n *narrowing) inherited() RunOptions {
	opts := RunOptions{Narrow: n.narrow, Restriction: n.restriction}
	if n.allowed != nil {
		opts.AllowedTools = make([]string, 0, len(n.allowed))
		for name := range n.allowed {
			opts.AllowedTools = append(opts.AllowedTools, name)
		}
		slices.Sort(opts.AllowedTools)
	}
	return opts
}

// narrowedBy adds a definition's Narrow to the narrowing a sub-agent
// inherits: both decide, the stricter wins.
func narrowedBy(opts RunOptions, def SubagentDef) RunOptions {
	if def.Narrow == nil {
		return opts
	}
	restriction := def.Restriction
	if restriction == "" {
		restriction = "agent " + def.Name + "'s settings"
	}
	if opts.Narrow == nil {
		opts.Narrow = labelled{def.Narrow, restriction}
	} else {
		opts.Narrow = stricterOf{opts.Narrow, labelled{def.Narrow, restriction}}
	}
	if opts.Restriction == "" {
		opts.Restriction = restriction
	}
	return opts
}

// labelled gives a decider's unexplained decisions its restriction's name.
type labelled struct {
	d    policy.Decider
	name string
}

func (l labelled) Decide(ctx context.Context, c policy.Call) policy.Decision {
	d := l.d.Decide(ctx, c)
	if d.Action != policy.Allow && d.Reason == "" {
		d.Reason = "not allowed by " + l.name
	}
	return d
}

// stricterOf decides with both deciders; the stricter decision wins, a
// tie keeps the first's.
type stricterOf struct{ a, b policy.Decider }

func (s stricterOf) Decide(ctx context.Context, c policy.Call) policy.Decision {
	da := s.a.Decide(ctx, c)
	if da.Action == policy.Deny && da.Hard {
		return da
	}
	if db := s.b.Decide(ctx, c); db.Action > da.Action || db.Hard && !da.Hard && db.Action == da.Action {
		return db
	}
	return da
}
