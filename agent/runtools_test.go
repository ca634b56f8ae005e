package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

func specNames(specs []model.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// RunOptions.Tools replaces Config.Tools for one run: only its tools are
// offered and callable, a tool of Config.Tools is unknown, and the next
// run without the option is back on Config.Tools. AppendSystem is added
// after the Agent's prompt and instructions.
func TestRunOptionsToolsReplaceConfig(t *testing.T) {
	var baseRan, runRan int
	var mu sync.Mutex
	var offered [][]string
	var systems []string
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		mu.Lock()
		offered = append(offered, specNames(req.Tools))
		systems = append(systems, req.System)
		mu.Unlock()
		if turnOf(req) == 0 {
			return modeltest.ToolCalls(call("c1", "base", `{}`), call("c2", "extra", `{}`))
		}
		return modeltest.Text("done")
	}}
	a := mustAgent(t, Config{Provider: p, System: "SYS", Instructions: "INSTR", Tools: mustSet(t, countingTool("base", &baseRan))})
	c := NewConversation("")
	collectWith(t, a, c, RunOptions{Tools: mustSet(t, countingTool("extra", &runRan)), AppendSystem: "# Skill: x"})
	if baseRan != 0 || runRan != 1 {
		t.Errorf("base ran %d, extra ran %d; want only the run's tool to run", baseRan, runRan)
	}
	res := toolMessages(c.Messages())
	if !res[0].IsError || !strings.Contains(res[0].Content, "base") {
		t.Errorf("the Config tool's call got %+v; want an unknown-tool error", res[0])
	}
	if systems[0] != "SYS\n\nINSTR\n\n# Skill: x" {
		t.Errorf("system %q; want the Agent's prompt, its instructions, then the appended section", systems[0])
	}
	collectWith(t, a, NewConversation(""), RunOptions{})
	if got := offered[0]; !slices.Equal(got, []string{"extra"}) {
		t.Errorf("run with Tools offered %v, want [extra]", got)
	}
	if got := offered[len(offered)-1]; !slices.Equal(got, []string{"base"}) {
		t.Errorf("a later run without Tools offered %v, want [base]", got)
	}
	if baseRan != 1 || strings.Contains(systems[len(systems)-1], "Skill") {
		t.Errorf("the later run ran base %d times, system %q: the options leaked", baseRan, systems[len(systems)-1])
	}
}

// AllowedTools narrows RunOptions.Tools as it narrows Config.Tools.
func TestRunOptionsToolsNarrowed(t *testing.T) {
	var a1, a2 int
	var offered []string
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		if turnOf(req) == 0 {
			offered = specNames(req.Tools)
			return modeltest.ToolCalls(call("c1", "two", `{}`))
		}
		return modeltest.Text("done")
	}}
	a := mustAgent(t, Config{Provider: p})
	r := collectWith(t, a, NewConversation(""), RunOptions{
		Tools: mustSet(t, countingTool("one", &a1), countingTool("two", &a2)), AllowedTools: []string{"one"}})
	if !slices.Equal(offered, []string{"one"}) || a2 != 0 {
		t.Errorf("offered %v, two ran %d; want only one offered and two refused", offered, a2)
	}
	if d := decisionsOf(r)["c1"]; d.Action != "deny" || d.By != byRestriction {
		t.Errorf("decision %+v; want a denial by the restriction", d)
	}
}

// A sub-agent draws its tools from the run's tool set (RunOptions.Tools),
// not from the Agent's Config.Tools.
func TestSubagentUsesRunTools(t *testing.T) {
	var mu sync.Mutex
	offered := map[string][]string{}
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		w := who(req)
		if turnOf(req) == 0 {
			mu.Lock()
			offered[w] = specNames(req.Tools)
			mu.Unlock()
			if w == "root" {
				return modeltest.ToolCalls(taskCall("t1", "", "look"))
			}
			return modeltest.ToolCalls(call("x1", "skilled", `{}`))
		}
		return modeltest.Text("ok: " + lastResults(req)[0].Content)
	}}
	read := func(name string) tool.Tool {
		return readTool(name, func(context.Context, json.RawMessage) (*tool.Result, error) {
			return tool.TextResult(name + " ran"), nil
		})
	}
	task := mustTask(t, TaskConfig{})
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, read("base"), task)})
	out, _ := a.runToEnd(context.Background(), NewConversation(""), "go", RunOptions{Tools: mustSet(t, read("skilled"), task)})
	if out.Kind != Complete || out.Text != "ok: ok: skilled ran" {
		t.Fatalf("outcome %s %q", out.Kind, out.Text)
	}
	if got := offered[GeneralAgent]; !slices.Equal(got, []string{"skilled", "task"}) {
		t.Errorf("the sub-agent was offered %v; want the run's tools [skilled task]", got)
	}
}

// A sub-agent inherits its parent run's AllowedTools, Narrow and
// Restriction: tools the parent may not call are neither offered to a
// sub-agent (default or custom, which names them) nor callable, and the
// parent's Narrow decides the child's calls too.
func TestSubagentInheritsNarrowing(t *testing.T) {
	var mu sync.Mutex
	offered := map[string][]string{}
	var lookRan, grepRan int
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		w := who(req)
		switch {
		case w == "root" && turnOf(req) == 0:
			return modeltest.ToolCalls(taskCall("t1", "", "a"), taskCall("t2", "custom", "b"))
		case w == "root":
			return modeltest.Text("done")
		case turnOf(req) == 0:
			mu.Lock()
			offered[w] = specNames(req.Tools)
			mu.Unlock()
			return modeltest.ToolCalls(call(w+"1", "grep", `{}`), call(w+"2", "look", `{"secret":true}`), call(w+"3", "look", `{}`))
		}
		var parts []string
		for _, r := range lastResults(req) {
			parts = append(parts, r.Content)
		}
		return modeltest.Text(strings.Join(parts, " | "))
	}}
	look := readTool("look", func(context.Context, json.RawMessage) (*tool.Result, error) {
		mu.Lock()
		lookRan++
		mu.Unlock()
		return tool.TextResult("looked"), nil
	})
	grep := readTool("grep", func(context.Context, json.RawMessage) (*tool.Result, error) {
		mu.Lock()
		grepRan++
		mu.Unlock()
		return tool.TextResult("grepped"), nil
	})
	task := mustTask(t, TaskConfig{Agents: []SubagentDef{{Name: "custom", System: "AGENT:custom", Tools: []string{"look", "grep"}}}})
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, look, grep, task)})
	c := NewConversation("")
	collectWith(t, a, c, RunOptions{AllowedTools: []string{"look", "task"}, Narrow: secretDenier{}, Restriction: "the skill's allowed-tools"})
	for _, w := range []string{GeneralAgent, "custom"} {
		want := []string{"look", "task"}
		if w == "custom" {
			want = []string{"look"}
		}
		if got := offered[w]; !slices.Equal(got, want) {
			t.Errorf("%s was offered %v, want %v", w, got, want)
		}
	}
	if grepRan != 0 || lookRan != 2 {
		t.Errorf("grep ran %d, look ran %d; want grep refused and the secret look denied by Narrow in both children", grepRan, lookRan)
	}
	res := toolMessages(c.Messages())
	for i, r := range res {
		// The child's set holds only what the parent may call, so grep is
		// unknown to it.
		if !strings.Contains(r.Content, `unknown tool "grep"`) {
			t.Errorf("child %d result lacks the refusal of grep: %q", i, r.Content)
		}
		if !strings.Contains(r.Content, "no secrets") {
			t.Errorf("child %d result lacks the inherited Narrow's denial: %q", i, r.Content)
		}
	}
	if !strings.Contains(res[1].Content, "did not get: grep") {
		t.Errorf("the custom agent's result %q lacks the note that grep was not given", res[1].Content)
	}
}

// secretDenier denies calls whose arguments hold "secret".
type secretDenier struct{}

func (secretDenier) Decide(_ context.Context, c policy.Call) policy.Decision {
	if strings.Contains(string(c.Args), "secret") {
		return policy.Decision{Action: policy.Deny, Reason: "no secrets"}
	}
	return policy.Decision{Action: policy.Allow}
}
