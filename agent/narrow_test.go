package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// collectWith is collect for RunWith.
func collectWith(t testing.TB, a *Agent, c *Conversation, opts RunOptions) *runResult {
	t.Helper()
	var r runResult
	for ev, err := range a.RunWith(context.Background(), c, "go", opts) {
		r.events = append(r.events, ev)
		if err != nil {
			r.errs = append(r.errs, err)
		}
		if ev.Type == EventSessionCompleted {
			r.outcome, r.err = ev.Outcome, err
		}
	}
	if r.outcome == nil {
		t.Fatalf("run ended without session.completed; events: %v", r.types())
	}
	return &r
}

func decisionsOf(r *runResult) map[string]Decision {
	out := map[string]Decision{}
	for _, ev := range r.ofType(EventToolDecision) {
		out[ev.Decision.CallID] = *ev.Decision
	}
	return out
}

func countingTool(name string, ran *int) tool.Tool {
	return newTool(name, func(context.Context, json.RawMessage) (*tool.Result, error) {
		*ran++
		return &tool.Result{Content: name + " ran"}, nil
	})
}

// AllowedTools offers only the named tools, denies a call of another one
// with a reason naming the restriction, and never runs it.
func TestAllowedToolsNarrowsOfferAndCalls(t *testing.T) {
	var readRan, writeRan int
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("c1", "read", `{}`), call("c2", "write", `{}`), call("c3", "missing", `{}`)),
		modeltest.Text("done"),
	)
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, countingTool("read", &readRan), countingTool("write", &writeRan))})
	c := NewConversation("")
	r := collectWith(t, a, c, RunOptions{AllowedTools: []string{"read", "not-a-tool"}, Restriction: "the command's allowed-tools"})
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome %+v", r.outcome)
	}
	var offered []string
	for _, s := range p.Requests()[0].Tools {
		offered = append(offered, s.Name)
	}
	if diff := cmp.Diff([]string{"read"}, offered); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	if readRan != 1 || writeRan != 0 {
		t.Errorf("read ran %d times, write %d; want 1 and 0", readRan, writeRan)
	}
	d := decisionsOf(r)
	if d["c1"].Action != "allow" {
		t.Errorf("read: %+v", d["c1"])
	}
	if w := d["c2"]; w.Action != "deny" || w.By != byRestriction || !strings.Contains(w.Reason, "not allowed by the command's allowed-tools") || !strings.Contains(w.Reason, "only read") {
		t.Errorf("write: %+v", w)
	}
	// A tool the Set lacks stays an unknown tool, listing only what is offered.
	if m := d["c3"]; m.Reason != "unknown tool" {
		t.Errorf("missing: %+v", m)
	}
	results := toolMessages(c.Messages())
	if len(results) != 3 || !results[1].IsError || !strings.Contains(results[1].Content, "tool call denied: write is not allowed") {
		t.Errorf("results: %+v", results)
	}
	if strings.Contains(results[2].Content, "write") {
		t.Errorf("the unknown-tool result suggests a tool outside the restriction: %q", results[2].Content)
	}
	checkHistory(t, c.Messages())
}

// An empty, non-nil list offers nothing; nil restricts nothing; the next
// run of the same Agent is not narrowed.
func TestAllowedToolsEmptyAndNil(t *testing.T) {
	var ran int
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("c1", "read", `{}`)), modeltest.Text("a"),
		modeltest.ToolCalls(call("c2", "read", `{}`)), modeltest.Text("b"),
	)
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, countingTool("read", &ran))})
	r := collectWith(t, a, NewConversation(""), RunOptions{AllowedTools: []string{}})
	if n := len(p.Requests()[0].Tools); n != 0 {
		t.Errorf("empty AllowedTools offered %d tools", n)
	}
	if d := decisionsOf(r)["c1"]; d.Action != "deny" || !strings.Contains(d.Reason, "no tools may be used") {
		t.Errorf("decision %+v", d)
	}
	r = collectWith(t, a, NewConversation(""), RunOptions{})
	if n := len(p.Requests()[2].Tools); n != 1 || ran != 1 || decisionsOf(r)["c2"].Action != "allow" {
		t.Errorf("unrestricted run: %d tools offered, ran %d", n, ran)
	}
}

// The restriction only narrows: the policy still decides every allowed
// call, and Narrow can deny or ask but never lift the policy's verdict.
func TestAllowedToolsCannotWiden(t *testing.T) {
	allow := policy.Decision{Action: policy.Allow, Rule: "narrow:ok"}
	tests := []struct {
		name   string
		policy policy.Decision
		narrow policy.Decider
		want   string // action
		by     string
	}{
		{"policy ask stays ask", policy.Decision{Action: policy.Ask, Reason: "asks"}, nil, "deny", "policy"},
		{"narrow allow lifts no ask", policy.Decision{Action: policy.Ask, Reason: "asks"}, mapDecider{"read": allow}, "deny", "policy"},
		{"narrow allow lifts no deny", policy.Decision{Action: policy.Deny, Reason: "no", Rule: "rule:x"}, mapDecider{"read": allow}, "deny", "rule:x"},
		{"narrow denies an allowed call", policy.Decision{Action: policy.Allow}, mapDecider{"read": {Action: policy.Deny, Reason: "pattern mismatch"}}, "deny", byRestriction},
		{"narrow ask goes to the approver", policy.Decision{Action: policy.Allow}, mapDecider{"read": {Action: policy.Ask, Rule: "narrow:ask"}}, "deny", "narrow:ask"},
		{"narrow panic fails closed", policy.Decision{Action: policy.Allow}, panicDecider{}, "deny", byRestriction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran int
			p := modeltest.NewScripted(modeltest.ToolCalls(call("c1", "read", `{}`)), modeltest.Text("done"))
			a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, countingTool("read", &ran)), Policy: mapDecider{"read": tt.policy}})
			r := collectWith(t, a, NewConversation(""), RunOptions{AllowedTools: []string{"read"}, Narrow: tt.narrow})
			d := decisionsOf(r)["c1"]
			if d.Action != tt.want || d.By != tt.by || ran != 0 {
				t.Errorf("decision %+v (ran %d), want %s by %s", d, ran, tt.want, tt.by)
			}
		})
	}
}

// A Narrow Ask is put to the approver like a policy Ask.
func TestNarrowAskReachesApprover(t *testing.T) {
	var ran int
	p := modeltest.NewScripted(modeltest.ToolCalls(call("c1", "read", `{}`)), modeltest.Text("done"))
	ap := &funcApprover{fn: func(_ context.Context, _ policy.Call, d policy.Decision) (policy.Decision, error) {
		if d.Reason != "confirm" {
			t.Errorf("approver saw %+v", d)
		}
		return policy.Decision{Action: policy.Allow}, nil
	}}
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, countingTool("read", &ran)), Approver: ap})
	collectWith(t, a, NewConversation(""), RunOptions{Narrow: mapDecider{"read": {Action: policy.Ask, Reason: "confirm"}}})
	if ap.calls != 1 || ran != 1 {
		t.Errorf("approver called %d times, tool ran %d", ap.calls, ran)
	}
}

func TestRunOptionsModel(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("a"), modeltest.Text("b"))
	a := mustAgent(t, Config{Provider: p, Model: "base"})
	collectWith(t, a, NewConversation(""), RunOptions{Model: "other"})
	collectWith(t, a, NewConversation(""), RunOptions{})
	if got := []string{p.Requests()[0].Model, p.Requests()[1].Model}; !cmp.Equal(got, []string{"other", "base"}) {
		t.Errorf("models %v", got)
	}
}
