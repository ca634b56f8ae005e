package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// deciderFunc adapts a function to policy.Decider.
type deciderFunc func(policy.Call) policy.Decision

func (f deciderFunc) Decide(_ context.Context, c policy.Call) policy.Decision { return f(c) }

// TestSubagentDefNarrows: a definition's Narrow decides the child's calls
// beside the parent's policy (it denies what the parent allows); Params replace the sampling; ToolTimeout and
// MaxResultBytes only lower the parent's; Notes reach the result.
func TestSubagentDefNarrows(t *testing.T) {
	var mu sync.Mutex
	temps := map[string]*float64{}
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		w := who(req)
		mu.Lock()
		temps[w] = req.Temperature
		mu.Unlock()
		switch {
		case w == "root" && turnOf(req) == 0:
			return modeltest.ToolCalls(taskCall("t1", "narrow", "write"))
		case w == "root":
			return modeltest.Text("parent got: " + lastResults(req)[0].Content)
		case turnOf(req) == 0:
			return modeltest.ToolCalls(call("w1", "write", `{}`), call("l1", "look", `{}`))
		}
		rs := lastResults(req)
		return modeltest.Text(rs[0].Content + " | " + rs[1].Content)
	}}
	wrote := false
	write := newTool("write", func(context.Context, json.RawMessage) (*tool.Result, error) {
		wrote = true
		return tool.TextResult("wrote"), nil
	})
	write.spec.Effects = tool.Effects{WritesFiles: true}
	look := readTool("look", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return tool.TextResult(strings.Repeat("x", 600)), nil
	})
	deny := deciderFunc(func(c policy.Call) policy.Decision {
		if c.Spec.Name == "write" {
			return policy.Decision{Action: policy.Deny}
		}
		return policy.Decision{Action: policy.Allow}
	})
	temp := 0.25
	task := mustTask(t, TaskConfig{Agents: []SubagentDef{{Name: "narrow", System: "AGENT:narrow", Tools: []string{"write", "look"},
		Narrow: deny, Restriction: "profile ro", Params: &model.Request{Temperature: &temp},
		MaxResultBytes: 300, Notes: []string{"profile ro was narrowed"}}}})
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, look, write, task), MaxResultBytes: 64 << 10})
	out, err := a.RunToEnd(context.Background(), NewConversation("s"), "go")
	if err != nil {
		t.Fatal(err)
	}
	if wrote {
		t.Error("the child's write ran although its Narrow denies it")
	}
	for _, want := range []string{"not allowed by profile ro", "(note: profile ro was narrowed)"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("outcome %q lacks %q", out.Text, want)
		}
	}
	if strings.Contains(out.Text, strings.Repeat("x", 400)) {
		t.Error("the child's result was not capped at its MaxResultBytes")
	}
	if temps["narrow"] == nil || *temps["narrow"] != 0.25 || temps["root"] != nil {
		t.Errorf("temperatures: child %v, root %v", temps["narrow"], temps["root"])
	}
}

// TestStricterOf: the stricter decision wins, and a hard denial of
// either side is kept.
func TestStricterOf(t *testing.T) {
	at := func(a policy.Action, hard bool) policy.Decider {
		return deciderFunc(func(policy.Call) policy.Decision { return policy.Decision{Action: a, Hard: hard, Reason: a.String()} })
	}
	tests := []struct {
		a, b policy.Decider
		want policy.Action
		hard bool
	}{
		{at(policy.Allow, false), at(policy.Ask, false), policy.Ask, false},
		{at(policy.Deny, false), at(policy.Allow, false), policy.Deny, false},
		{at(policy.Deny, false), at(policy.Deny, true), policy.Deny, true},
		{at(policy.Deny, true), at(policy.Allow, false), policy.Deny, true},
	}
	for i, tt := range tests {
		d := stricterOf{tt.a, tt.b}.Decide(context.Background(), policy.Call{})
		if d.Action != tt.want || d.Hard != tt.hard {
			t.Errorf("%d: %v hard=%v, want %v hard=%v", i, d.Action, d.Hard, tt.want, tt.hard)
		}
	}
	opts := narrowedBy(RunOptions{Narrow: at(policy.Allow, false)}, SubagentDef{Name: "x", Narrow: at(policy.Deny, false)})
	if d := opts.Narrow.Decide(context.Background(), policy.Call{}); d.Action != policy.Deny || opts.Restriction != "agent x's settings" {
		t.Errorf("narrowedBy: %v, restriction %q", d.Action, opts.Restriction)
	}
}
