package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/tool"
)

// TestResumeRestoresThePlan: a run sets a plan with todo_write and changes
// it; the session is closed; Resume (what --continue does) gives the
// conversation the last plan, and the next run sends it.
func TestResumeRestoresThePlan(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	first := []agent.PlanItem{{Content: "Write the parser", Status: agent.PlanInProgress}, {Content: "Test it", Status: agent.PlanPending}}
	second := []agent.PlanItem{{Content: "Write the parser", Status: agent.PlanCompleted}, {Content: "Test it", Status: agent.PlanInProgress, ActiveForm: "Testing it"}}
	p := scripted(planTurn(t, "p1", first), planTurn(t, "p2", second), modeltest.Text("halfway"))
	a := planAgent(t, p, j)
	c := agent.NewConversation(info.ID)
	_, out := runAll(t, a, c, "build a parser")
	if out == nil || out.Kind != agent.Complete {
		t.Fatalf("outcome %+v", out)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	res, err := session.Resume(ctx, s, info.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Journal.Close()
	if diff := cmp.Diff(second, res.Snapshot.Plan); diff != "" {
		t.Errorf("snapshot plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(second, res.Conversation.Plan()); diff != "" {
		t.Errorf("resumed plan (-want +got):\n%s", diff)
	}
	p2 := scripted(modeltest.Text("done"))
	_, out = runAll(t, planAgent(t, p2, res.Journal), res.Conversation, "go on")
	if out == nil || out.Kind != agent.Complete {
		t.Fatalf("resumed outcome %+v", out)
	}
	if sys := p2.Requests()[0].System; !strings.Contains(sys, "[in_progress] Test it (Testing it)") {
		t.Errorf("resumed request system = %q", sys)
	}
}

// A session whose last todo_write cleared the plan resumes without one.
func TestResumeClearedPlan(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := scripted(planTurn(t, "p1", []agent.PlanItem{{Content: "a", Status: agent.PlanPending}}), planTurn(t, "p2", nil), modeltest.Text("ok"))
	runAll(t, planAgent(t, p, j), agent.NewConversation(info.ID), "go")
	j.Close()
	res, err := session.Resume(ctx, s, info.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Journal.Close()
	if got := res.Conversation.Plan(); got != nil {
		t.Errorf("plan after clearing = %+v", got)
	}
}

func planTurn(t *testing.T, id string, items []agent.PlanItem) modeltest.Turn {
	t.Helper()
	if items == nil {
		items = []agent.PlanItem{}
	}
	args, err := json.Marshal(map[string]any{"todos": items})
	if err != nil {
		t.Fatal(err)
	}
	return modeltest.ToolCalls(modelCall(id, agent.PlanToolName, args))
}

func modelCall(id, name string, args []byte) model.ToolCall {
	return model.ToolCall{ID: id, Name: name, Args: args}
}

func planAgent(t *testing.T, p *modeltest.Scripted, j agent.Journal) *agent.Agent {
	t.Helper()
	set, err := tool.NewSet(agent.PlanTool())
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Provider: p, Tools: set, Journal: j, Clock: &testClock{}, ContextWindow: 100000})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
