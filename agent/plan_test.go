package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

func planJSON(items ...PlanItem) string {
	b, err := json.Marshal(map[string]any{"todos": items})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestPlanToolValidation(t *testing.T) {
	long := strings.Repeat("x", MaxPlanItemBytes+1)
	many := make([]PlanItem, MaxPlanItems+1)
	for i := range many {
		many[i] = PlanItem{Content: fmt.Sprint("step ", i), Status: PlanPending}
	}
	tests := []struct {
		name, args, want string
	}{
		{"two in progress", planJSON(PlanItem{Content: "a", Status: PlanInProgress}, PlanItem{Content: "b", Status: PlanInProgress}), "items 1 and 2 are both in_progress"},
		{"bad status", `{"todos":[{"content":"a","status":"done"}]}`, "status"},
		{"empty content", planJSON(PlanItem{Content: "  ", Status: PlanPending}), "item 1 has no content"},
		{"too long", planJSON(PlanItem{Content: long, Status: PlanPending}), "more than the limit of 1024"},
		{"too many", planJSON(many...), "101 items, more than the limit of 100"},
		{"missing todos", `{}`, "todos"},
		{"not an object", `[1]`, "object"},
		{"unknown field", `{"todos":[],"plan":[]}`, "plan"},
		{"no run", planJSON(PlanItem{Content: "a", Status: PlanPending}), "works only inside an agent run"},
	}
	pt := PlanTool()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tool.Invoke(context.Background(), pt, json.RawMessage(tt.args), tool.InvokeOptions{})
			if !res.IsError || !strings.Contains(res.Content, tt.want) {
				t.Errorf("result = %+v, want an error containing %q", res, tt.want)
			}
		})
	}
}

// TestPlanToolInRun: the plan lands in the Conversation, is reported and
// journaled as plan.updated, and rides in the system prompt of the next
// request.
func TestPlanToolInRun(t *testing.T) {
	items := []PlanItem{
		{Content: "Read the code", Status: PlanCompleted},
		{Content: "Fix the bug", Status: PlanInProgress, ActiveForm: "Fixing the bug"},
		{Content: "Run the tests", Status: PlanPending},
	}
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", PlanToolName, planJSON(items...))), modeltest.Text("working"))
	j := &memJournal{}
	a := mustAgent(t, Config{Provider: p, System: "sys", Tools: mustSet(t, PlanTool()), Journal: j})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome = %+v", r.outcome)
	}
	if diff := cmp.Diff(items, c.Plan()); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	evs := r.ofType(EventPlanUpdated)
	if len(evs) != 1 || !cmp.Equal(items, evs[0].Plan) {
		t.Fatalf("plan.updated events = %+v", evs)
	}
	var journaled []PlanItem
	for _, ev := range j.events {
		if ev.Type == EventPlanUpdated {
			journaled = ev.Plan
		}
	}
	if !cmp.Equal(items, journaled) {
		t.Errorf("journaled plan = %+v", journaled)
	}
	res := toolMessages(c.Messages())[0]
	if res.IsError || !strings.Contains(res.Content, "3 items, 1 completed, 1 pending; in progress: Fix the bug") {
		t.Errorf("result = %+v", res)
	}
	reqs := p.Requests()
	if strings.Contains(reqs[0].System, "# Current plan") {
		t.Errorf("first request already has a plan: %q", reqs[0].System)
	}
	want := "sys\n\n# Current plan\n\nYour plan for this task, as you last set it with todo_write:\n\n" +
		"1. [completed] Read the code\n2. [in_progress] Fix the bug (Fixing the bug)\n3. [pending] Run the tests"
	if reqs[1].System != want {
		t.Errorf("second system prompt = %q, want %q", reqs[1].System, want)
	}
	// The plan is the Conversation's: a copy, not shared.
	c.Plan()[0].Content = "changed"
	if c.Plan()[0].Content != "Read the code" {
		t.Error("Plan returned the conversation's own slice")
	}
}

// TestPlanSurvivesCompaction: with a window so small that the todo_write
// call is compacted away, every request still carries the plan.
func TestPlanSurvivesCompaction(t *testing.T) {
	items := []PlanItem{{Content: "Keep this step", Status: PlanInProgress}}
	filler := strings.Repeat("lorem ipsum ", 300) // ~900 tokens each
	turns := []modeltest.Turn{modeltest.ToolCalls(call("p", PlanToolName, planJSON(items...)))}
	for i := range 6 {
		turns = append(turns, modeltest.ToolCalls(call(fmt.Sprint("e", i), "echo", fmt.Sprintf(`{"i":%d,"t":"%s"}`, i, filler))))
	}
	turns = append(turns, modeltest.Text("done"))
	p := modeltest.NewScripted(turns...)
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, PlanTool(), echoTool()), ContextWindow: 3000, Context: Window{}})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome = %+v", r.outcome)
	}
	if len(r.ofType(EventCompaction)) == 0 {
		t.Fatal("the window never compacted; the test proves nothing")
	}
	reqs := p.Requests()
	last := reqs[len(reqs)-1]
	for _, m := range last.Messages {
		for _, tc := range m.ToolCalls() {
			if tc.Name == PlanToolName {
				t.Fatal("the todo_write call is still in the last request; make the window smaller")
			}
		}
	}
	for i, req := range reqs[1:] {
		if !strings.Contains(req.System, "[in_progress] Keep this step") {
			t.Errorf("request %d lacks the plan: %q", i+1, req.System)
		}
	}
}

// A plan set on the Conversation (a resumed session) is sent from the
// first request on.
func TestSetPlanIsSent(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("ok"))
	a := mustAgent(t, Config{Provider: p})
	c := NewConversation("")
	c.SetPlan([]PlanItem{{Content: "restored", Status: PlanPending}})
	collect(t, a, context.Background(), c, "go")
	if got := p.Requests()[0].System; !strings.HasPrefix(got, "# Current plan") || !strings.Contains(got, "[pending] restored") {
		t.Errorf("system = %q", got)
	}
	c.SetPlan(nil)
	if c.Plan() != nil {
		t.Errorf("plan after SetPlan(nil) = %v", c.Plan())
	}
}

// An empty todo_write clears the plan.
func TestPlanCleared(t *testing.T) {
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("1", PlanToolName, planJSON(PlanItem{Content: "a", Status: PlanPending}))),
		modeltest.ToolCalls(call("2", PlanToolName, `{"todos":[]}`)),
		modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, PlanTool())})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	if c.Plan() != nil || len(r.ofType(EventPlanUpdated)) != 2 {
		t.Fatalf("plan %v, events %v", c.Plan(), r.types())
	}
	if reqs := p.Requests(); strings.Contains(reqs[2].System, "Current plan") {
		t.Errorf("cleared plan still sent: %q", reqs[2].System)
	}
}

// FuzzPlanTool: whatever the model sends as todo_write arguments, the tool
// answers with a result and never panics; an accepted plan obeys the rules.
func FuzzPlanTool(f *testing.F) {
	f.Add([]byte(planJSON(PlanItem{Content: "a", Status: PlanInProgress}, PlanItem{Content: "b", Status: PlanPending, ActiveForm: "x"})))
	f.Add([]byte(`{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`))
	f.Add([]byte(`{"todos":null}`))
	f.Add([]byte(`{"todos":[{"content":"\u0000","status":"completed"}]}`))
	f.Add([]byte(`{"todos":[{"content":1}]}`))
	f.Add([]byte(`{"todos`))
	pt := PlanTool()
	f.Fuzz(func(t *testing.T, args []byte) {
		res := tool.Invoke(context.Background(), pt, args, tool.InvokeOptions{})
		if res == nil || !res.IsError {
			t.Fatalf("outside a run every call must fail: %+v", res)
		}
		var in planArgs
		if json.Unmarshal(args, &in) != nil {
			return
		}
		items, problem := validatePlan(in.Todos)
		if problem != "" {
			return
		}
		active := 0
		for _, it := range items {
			if it.Status == PlanInProgress {
				active++
			}
			if strings.TrimSpace(it.Content) == "" || len(it.Content)+len(it.ActiveForm) > MaxPlanItemBytes {
				t.Fatalf("accepted item %+v", it)
			}
		}
		if active > 1 || len(items) > MaxPlanItems {
			t.Fatalf("accepted plan of %d items with %d in progress", len(items), active)
		}
		if r := renderPlan(items); !strings.HasPrefix(r, "# Current plan") {
			t.Fatalf("render = %q", r)
		}
	})
}

func TestEmptyAnswerTwiceFails(t *testing.T) {
	empty := modeltest.Events(model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn})
	reasoningOnly := modeltest.Events(model.Event{Kind: model.EventReasoningDelta, Text: "hmm"}, model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn})
	p := modeltest.NewScripted(empty, reasoningOnly)
	a := mustAgent(t, Config{Provider: p})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	if r.outcome.Kind != Failed || r.err != ErrEmptyAnswer || !strings.Contains(r.outcome.Err, "empty answer twice") {
		t.Fatalf("outcome = %+v, err %v", r.outcome, r.err)
	}
	// user, nudge, the reasoning-only message (recorded: it has parts).
	if diff := cmp.Diff([]model.Role{model.RoleUser, model.RoleUser, model.RoleAssistant}, roles(c.Messages())); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
}

// The nudge is once per empty streak: an answer in between resets it.
func TestEmptyAnswerNudgeResets(t *testing.T) {
	empty := modeltest.Events(model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn})
	p := modeltest.NewScripted(empty, modeltest.ToolCalls(call("1", "echo", `{}`)), empty, modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool())})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != Complete || r.outcome.Text != "done" {
		t.Fatalf("outcome = %+v", r.outcome)
	}
}
