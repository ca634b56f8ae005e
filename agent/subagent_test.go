package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

func mustTask(t testing.TB, cfg TaskConfig) tool.Tool {
	t.Helper()
	tt, err := NewTaskTool(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

func taskCall(id, agent, prompt string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"description": "test task", "prompt": prompt, "agent": agent})
	return call(id, TaskToolName, string(args))
}

// readTool is a read-only tool (it declares ReadsFiles) answering fn.
func readTool(name string, fn func(ctx context.Context, args json.RawMessage) (*tool.Result, error)) *fnTool {
	t := newTool(name, fn)
	t.spec.Effects = tool.Effects{ReadsFiles: true}
	return t
}

// TestTaskReturnsChildAnswer: the child's final text is the task call's
// result; its events reach the parent's journal and hooks stamped with
// their place in the tree; its usage counts toward the parent's; the
// parent's Steering gets SubagentStop for it and Stop for the root.
func TestTaskReturnsChildAnswer(t *testing.T) {
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		switch {
		case who(req) == "root" && turnOf(req) == 0:
			return modeltest.ToolCalls(taskCall("t1", "", "look around")).WithUsage(model.Usage{InputTokens: 10, OutputTokens: 1})
		case who(req) == "root":
			return modeltest.Text("parent got: " + lastResults(req)[0].Content)
		case turnOf(req) == 0:
			return modeltest.ToolCalls(call("c1", "look", `{}`)).WithUsage(model.Usage{InputTokens: 100, OutputTokens: 5})
		}
		return modeltest.Text("the child found " + lastResults(req)[0].Content).WithUsage(model.Usage{InputTokens: 200, OutputTokens: 7})
	}}
	look := readTool("look", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return tool.TextResult("three files"), nil
	})
	j := &memJournal{}
	var hooked []Event
	steer := &steerLog{}
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, look, mustTask(t, TaskConfig{})), Journal: j, Steering: steer,
		Hooks: []Hook{HookFunc(func(_ context.Context, ev Event) { hooked = append(hooked, ev) })}})
	out, err := a.RunToEnd(context.Background(), NewConversation("s1"), "go")
	if err != nil {
		t.Fatal(err)
	}
	if want := "parent got: the child found three files"; out.Kind != Complete || out.Text != want {
		t.Fatalf("outcome %s %q, want complete %q", out.Kind, out.Text, want)
	}
	if out.Usage.InputTokens != 310 || out.Usage.OutputTokens != 13 {
		t.Errorf("parent usage %+v; want the child's 300/12 added to its own 10/1", out.Usage)
	}
	var child []Event
	for _, ev := range j.snapshot() {
		if ev.AgentPath != "" {
			child = append(child, ev)
		}
		if ev.RunID != "s1" {
			t.Errorf("event %s has run id %q, want the session's", ev.Type, ev.RunID)
		}
	}
	if len(child) == 0 {
		t.Fatal("no child event in the journal")
	}
	for _, ev := range child {
		if ev.AgentPath != "task:t1/general" || ev.ParentCallID != "t1" || ev.Depth != 1 || ev.Agent != GeneralAgent {
			t.Fatalf("child event %s stamped %q/%q/%d/%q", ev.Type, ev.AgentPath, ev.ParentCallID, ev.Depth, ev.Agent)
		}
	}
	var sawChildResult bool
	for _, ev := range hooked {
		if ev.AgentPath != "" && ev.Type == EventToolResult && ev.ToolResult.Content == "three files" {
			sawChildResult = true
		}
	}
	if !sawChildResult {
		t.Error("the parent's hook did not see the child's tool result")
	}
	if steer.count(SteerSubagentStop) != 1 || steer.count(SteerStop) != 1 || steer.count(SteerSessionStart) != 1 {
		t.Errorf("steering points %v; want one SubagentStop, one Stop, one SessionStart", steer.points)
	}
}

// TestTaskDepthLimit: agents that always delegate stop at depth 3: the
// call at depth 3 that would start depth 4 gets an is_error naming the
// limit, and every level above gets its child's answer.
func TestTaskDepthLimit(t *testing.T) {
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		if turnOf(req) == 0 {
			return modeltest.ToolCalls(taskCall("d", "", "delegate"))
		}
		res := lastResults(req)[0]
		return modeltest.Text("up: " + res.Content)
	}}
	j := &memJournal{}
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, mustTask(t, TaskConfig{})), Journal: j})
	out, err := a.RunToEnd(context.Background(), NewConversation("s"), "go")
	if err != nil || out.Kind != Complete {
		t.Fatalf("outcome %v, %v", out, err)
	}
	var limitErr *Event
	maxDepth := 0
	for _, ev := range j.snapshot() {
		maxDepth = max(maxDepth, ev.Depth)
		if ev.Type == EventToolResult && ev.ToolResult.IsError {
			ev := ev
			limitErr = &ev
		}
	}
	if maxDepth != 3 {
		t.Errorf("deepest agent at depth %d, want 3", maxDepth)
	}
	if limitErr == nil || limitErr.Depth != 3 || !strings.Contains(limitErr.ToolResult.Content, "depth 4") ||
		!strings.Contains(limitErr.ToolResult.Content, "max_subagent_depth") {
		t.Fatalf("want an is_error result at depth 3 naming depth 4 and max_subagent_depth, got %+v", limitErr)
	}
	if !strings.HasPrefix(out.Text, "up: up: up: ") {
		t.Errorf("root answer %q; want three levels of answers", out.Text)
	}
}

// TestTaskDisabled: a negative MaxDepth refuses every call.
func TestTaskDisabled(t *testing.T) {
	p := modeltest.NewScripted(modeltest.ToolCalls(taskCall("t1", "", "x")), modeltest.Text("ok"))
	c := NewConversation("s")
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, mustTask(t, TaskConfig{MaxDepth: -1}))})
	if _, err := a.RunToEnd(context.Background(), c, "go"); err != nil {
		t.Fatal(err)
	}
	res := toolMessages(c.Messages())
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Content, "disabled") {
		t.Fatalf("results %+v; want one is_error saying sub-agents are disabled", res)
	}
}

// TestTaskTreeLimit: three parallel children that never stop share the
// tree's budget: the whole tree makes exactly MaxTreeSteps model calls,
// each child's result names the limit and the root stops on it too.
func TestTaskTreeLimit(t *testing.T) {
	var n atomic.Int64
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		if who(req) == "root" {
			if turnOf(req) == 0 {
				return modeltest.ToolCalls(taskCall("a", "", "loop 1"), taskCall("b", "", "loop 2"), taskCall("c", "", "loop 3"))
			}
			return modeltest.Text("done")
		}
		return modeltest.ToolCalls(call(fmt.Sprintf("e%d", n.Add(1)), "look", fmt.Sprintf(`{"n":%d}`, n.Load())))
	}}
	look := readTool("look", func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
		return tool.TextResult("seen " + string(args)), nil
	})
	look.spec.InputSchema = json.RawMessage(`{"type":"object"}`)
	c := NewConversation("s")
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, look, mustTask(t, TaskConfig{MaxTreeSteps: 10, MaxSteps: 100}))})
	out, err := a.RunToEnd(context.Background(), c, "go")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.calls.Load(); got != 10 {
		t.Errorf("the tree made %d model calls, want 10", got)
	}
	res := toolMessages(c.Messages())
	if len(res) != 3 {
		t.Fatalf("%d results, want 3", len(res))
	}
	for _, r := range res {
		if !r.IsError || !strings.Contains(r.Content, "max_tree_steps") {
			t.Errorf("child result %q; want an is_error naming max_tree_steps", r.Content)
		}
	}
	if out.Kind != StepLimit || !strings.Contains(out.Reason, "max_tree_steps") {
		t.Errorf("root outcome %s (%s); want step_limit on the tree limit", out.Kind, out.Reason)
	}
}

// TestTaskChildFailureIsAnError: a child whose model fails, and a child
// that hits its own step limit, are is_error results and the parent goes on.
func TestTaskChildFailureIsAnError(t *testing.T) {
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		switch who(req) {
		case "root":
			if turnOf(req) == 0 {
				return modeltest.ToolCalls(taskCall("t1", "broken", "x"), taskCall("t2", "busy", "y"))
			}
			return modeltest.Text("handled")
		case "broken":
			return modeltest.Fail(errors.New("the server is down"))
		}
		return modeltest.ToolCalls(call(fmt.Sprintf("b%d", turnOf(req)), "look", fmt.Sprintf(`{"i":%d}`, turnOf(req))))
	}}
	look := readTool("look", func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
		return tool.TextResult(string(args)), nil
	})
	look.spec.InputSchema = json.RawMessage(`{"type":"object"}`)
	task := mustTask(t, TaskConfig{Agents: []SubagentDef{
		{Name: "broken", System: "AGENT:broken", Description: "fails"},
		{Name: "busy", System: "AGENT:busy", Description: "never ends", MaxSteps: 2},
	}})
	c := NewConversation("s")
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, look, task)})
	out, err := a.RunToEnd(context.Background(), c, "go")
	if err != nil || out.Kind != Complete || out.Text != "handled" {
		t.Fatalf("outcome %+v, %v; want the parent to complete", out, err)
	}
	res := toolMessages(c.Messages())
	if !res[0].IsError || !strings.Contains(res[0].Content, "did not finish: failed") || !strings.Contains(res[0].Content, "server is down") {
		t.Errorf("broken child's result %q", res[0].Content)
	}
	if !res[1].IsError || !strings.Contains(res[1].Content, "step_limit") {
		t.Errorf("busy child's result %q; want step_limit", res[1].Content)
	}
}

// TestTaskParallel: three read-only task calls of one turn run at once:
// each child's tool waits until all three are inside it.
func TestTaskParallel(t *testing.T) {
	var inside sync.WaitGroup
	inside.Add(3)
	all := make(chan struct{})
	go func() { inside.Wait(); close(all) }()
	wait := readTool("wait", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		inside.Done()
		select {
		case <-all:
			return tool.TextResult("together"), nil
		case <-time.After(5 * time.Second):
			return tool.ErrorResult("alone"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		switch {
		case who(req) == "root" && turnOf(req) == 0:
			return modeltest.ToolCalls(taskCall("a", "", "1"), taskCall("b", "", "2"), taskCall("c", "", "3"))
		case who(req) == "root":
			return modeltest.Text("done")
		case turnOf(req) == 0:
			return modeltest.ToolCalls(call("w", "wait", `{}`))
		}
		return modeltest.Text(lastResults(req)[0].Content)
	}}
	c := NewConversation("s")
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, wait, mustTask(t, TaskConfig{}))})
	start := time.Now()
	if _, err := a.RunToEnd(context.Background(), c, "go"); err != nil {
		t.Fatal(err)
	}
	for _, r := range toolMessages(c.Messages()) {
		if r.Content != "together" {
			t.Fatalf("result %q after %v: the children did not run concurrently", r.Content, time.Since(start))
		}
	}
}

// TestTaskWriterRunsAlone: a call of an agent with a mutating tool is
// scheduled alone; calls of read-only agents are not.
func TestTaskWriterRunsAlone(t *testing.T) {
	write := newTool("write", func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil })
	write.spec.Effects = tool.Effects{WritesFiles: true}
	task := mustTask(t, TaskConfig{Agents: []SubagentDef{{Name: "editor", Tools: []string{"write"}}}})
	parent := mustSet(t, write, task)
	tt := task.(*taskTool)
	args := func(agent string) json.RawMessage {
		return json.RawMessage(`{"description":"d","prompt":"p","agent":"` + agent + `"}`)
	}
	if e := tt.scheduleEffects(args("editor"), parent); !e.Exec {
		t.Errorf("editor call effects %+v; want exclusive", e)
	}
	if e := tt.scheduleEffects(args("general"), parent); e.Exec || e.WritesFiles || !e.ReadsFiles {
		t.Errorf("general call effects %+v; want a read", e)
	}
	spec, _ := parent.Spec(TaskToolName)
	acc := []access{
		callAccess(tool.Spec{Effects: tt.scheduleEffects(args("general"), parent)}, true, args("general")),
		callAccess(tool.Spec{Effects: tt.scheduleEffects(args("general"), parent)}, true, args("general")),
		callAccess(tool.Spec{Effects: tt.scheduleEffects(args("editor"), parent)}, true, args("editor")),
	}
	if got := scheduleLevels(acc); len(got) != 2 || len(got[0]) != 2 {
		t.Errorf("levels %v; want the two readers together, then the editor", got)
	}
	if spec.Effects.Mutating() {
		t.Errorf("the task tool's spec is mutating (%+v): the policy would treat every call as a change", spec.Effects)
	}
}

// TestTaskToolsNeverWiden: the default agent gets only the parent's
// non-mutating tools; a custom agent gets the tools it names that the
// parent has, and names outside the parent's set are dropped with a note.
func TestTaskToolsNeverWiden(t *testing.T) {
	var mu sync.Mutex
	offered := map[string][]string{}
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		w := who(req)
		if w == "root" {
			if turnOf(req) == 0 {
				return modeltest.ToolCalls(taskCall("t1", "", "x"), taskCall("t2", "custom", "y"))
			}
			return modeltest.Text("done")
		}
		if turnOf(req) == 0 {
			mu.Lock()
			for _, s := range req.Tools {
				offered[w] = append(offered[w], s.Name)
			}
			mu.Unlock()
			// The custom agent tries the tool it was not given.
			return modeltest.ToolCalls(call("x1", "shell", `{}`))
		}
		return modeltest.Text(lastResults(req)[0].Content)
	}}
	write := newTool("write", func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("wrote"), nil })
	write.spec.Effects = tool.Effects{WritesFiles: true}
	look := readTool("look", func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("saw"), nil })
	task := mustTask(t, TaskConfig{Agents: []SubagentDef{{Name: "custom", System: "AGENT:custom", Tools: []string{"write", "shell"}}}})
	c := NewConversation("s")
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, look, write, task)})
	if _, err := a.RunToEnd(context.Background(), c, "go"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(offered[GeneralAgent], ","); got != "look,task" {
		t.Errorf("general agent offered %s; want look,task (no write)", got)
	}
	if got := strings.Join(offered["custom"], ","); got != "write" {
		t.Errorf("custom agent offered %s; want write only", got)
	}
	res := toolMessages(c.Messages())
	if !strings.Contains(res[1].Content, "unknown tool") && !strings.Contains(res[1].Content, "shell") {
		t.Errorf("custom agent's result %q; want the refusal of shell", res[1].Content)
	}
	if !strings.Contains(res[1].Content, "did not get: shell") {
		t.Errorf("custom agent's result %q lacks the note about the dropped tool", res[1].Content)
	}
}

// TestTaskBudgetCountsChildren: the child's tokens count toward the
// parent's TokenBudget: a parent whose child spent it stops TokenBudget.
func TestTaskBudgetCountsChildren(t *testing.T) {
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		if who(req) == "root" {
			if turnOf(req) == 0 {
				return modeltest.ToolCalls(taskCall("t1", "", "x")).WithUsage(model.Usage{InputTokens: 10})
			}
			return modeltest.ToolCalls(taskCall(fmt.Sprintf("t%d", turnOf(req)+1), "", "again")).WithUsage(model.Usage{InputTokens: 10})
		}
		return modeltest.Text("spent").WithUsage(model.Usage{InputTokens: 600})
	}}
	a := mustAgent(t, Config{Provider: p, TokenBudget: 1000, Tools: mustSet(t, mustTask(t, TaskConfig{}))})
	out, err := a.RunToEnd(context.Background(), NewConversation("s"), "go")
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != TokenBudget || out.Usage.InputTokens != 1220 {
		t.Errorf("outcome %s with usage %+v; want token_budget after 2 children of 600 and 2 calls of 10", out.Kind, out.Usage)
	}
}

// TestTaskOutsideRun: the tool called outside an agent run fails cleanly.
func TestTaskOutsideRun(t *testing.T) {
	task := mustTask(t, TaskConfig{})
	res := tool.Invoke(context.Background(), task, json.RawMessage(`{"description":"d","prompt":"p"}`), tool.InvokeOptions{})
	if !res.IsError || !strings.Contains(res.Content, "inside an agent run") {
		t.Errorf("result %+v", res)
	}
}

// TestNewTaskToolRejects bad configurations.
func TestNewTaskToolRejects(t *testing.T) {
	for _, cfg := range []TaskConfig{
		{Agents: []SubagentDef{{Name: "Bad Name"}}},
		{Agents: []SubagentDef{{Name: "a"}, {Name: "a"}}},
		{Agents: []SubagentDef{{Name: "a", MaxSteps: -1}}},
		{MaxTreeSteps: -1},
	} {
		if _, err := NewTaskTool(cfg); err == nil {
			t.Errorf("NewTaskTool(%+v) accepted", cfg)
		}
	}
}

// TestTaskDescriptionCapped: many agents are listed up to the cap, with
// a note of how many were left out.
func TestTaskDescriptionCapped(t *testing.T) {
	var defs []SubagentDef
	for i := range 200 {
		defs = append(defs, SubagentDef{Name: fmt.Sprintf("agent-%03d", i), Description: strings.Repeat("describes itself ", 10)})
	}
	spec := mustTask(t, TaskConfig{Agents: defs}).Spec()
	if len(spec.Description) > MaxTaskListBytes+100 || !strings.Contains(spec.Description, "more agents not listed") ||
		!strings.Contains(spec.Description, "- general: ") {
		t.Errorf("description of %d bytes: %.300s…", len(spec.Description), spec.Description)
	}
}

// TestTreeLimitSparesALoneRoot: a root that starts no sub-agent is bounded
// by its own MaxSteps, not by the tree's limit; once the tree's budget is
// spent a task call is refused.
func TestTreeLimitSparesALoneRoot(t *testing.T) {
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		n := turnOf(req)
		if n < 7 {
			return modeltest.ToolCalls(call(fmt.Sprintf("l%d", n), "look", fmt.Sprintf(`{"n":%d}`, n)))
		}
		if n == 7 {
			return modeltest.ToolCalls(taskCall("t1", "", "late"))
		}
		return modeltest.Text(lastResults(req)[0].Content)
	}}
	look := readTool("look", func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
		return tool.TextResult(string(args)), nil
	})
	look.spec.InputSchema = json.RawMessage(`{"type":"object"}`)
	a := mustAgent(t, Config{Provider: p, MaxSteps: 20, Tools: mustSet(t, look, mustTask(t, TaskConfig{MaxTreeSteps: 5}))})
	out, err := a.RunToEnd(context.Background(), NewConversation("s"), "go")
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != Complete || !strings.Contains(out.Text, "no sub-agent can start") || out.Steps != 9 {
		t.Errorf("outcome %s after %d steps: %q; want complete after 9 with the refused task call", out.Kind, out.Steps, out.Text)
	}
}
