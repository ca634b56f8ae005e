package sessiontest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// Load rebuilds the conversation and the state of every call of the last
// assistant message from the journal of a run that died mid-turn: c1
// finished (its result recorded, its tool message not), c2 was running,
// c3 was denied, c4 never started.
func testLoadSnapshot(t *testing.T, s session.Store) {
	info := create(t, s, session.Info{})
	id := info.ID
	c0 := toolCall("c0", "t", `{"n":0}`)
	c1, c2, c3, c4 := toolCall("c1", "t", `{"n":1}`), toolCall("c2", "t", `{"n":2}`), toolCall("c3", "t", `{"n":3}`), toolCall("c4", "t", `{"n":4}`)
	user := model.UserText("go")
	first := assistantCalls(c0)
	done := model.ToolResults(model.ToolResult{CallID: "c0", Name: "t", Content: "zero"})
	last := assistantCalls(c1, c2, c3, c4)
	plan := []agent.PlanItem{{Content: "step", Status: "pending"}}
	sub := callEvent(id, 2, toolCall("s1", "t", `{}`)) // a sub-agent's call is not the root's
	sub.AgentPath, sub.ParentCallID, sub.Depth = "task:c9/general", "c9", 1
	j := journal(t, s, id)
	appendAll(t, j, started(id),
		message(id, 1, user), message(id, 1, first),
		callEvent(id, 1, c0), decisionEvent(id, 1, "c0", "allow"), resultEvent(id, 1, "c0", "zero"),
		message(id, 1, done),
		agent.Event{Type: agent.EventPlanUpdated, RunID: id, Step: 1, Time: at(1), Plan: plan},
		message(id, 2, last),
		callEvent(id, 2, c1), decisionEvent(id, 2, "c1", "allow"),
		callEvent(id, 2, c2), decisionEvent(id, 2, "c2", "allow"),
		sub,
		callEvent(id, 2, c3), decisionEvent(id, 2, "c3", "deny"),
		resultEvent(id, 2, "c1", "one"),
	)
	closeJournal(t, j) // the process died here

	snap, err := s.Load(ctx(t), id[:len(id)-1]) // a unique prefix names it
	if err != nil {
		t.Fatal(err)
	}
	if snap.Info.ID != id || snap.Info.Status != session.StatusRunning {
		t.Errorf("snapshot Info %+v: want id %s, status running", snap.Info, id)
	}
	if diff := cmp.Diff([]model.Message{user, first, done, last}, snap.Messages); diff != "" {
		t.Errorf("Messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c0", "c1"}, snap.Finished); diff != "" {
		t.Errorf("Finished (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]model.ToolCall{c2, c3}, snap.InFlight); diff != "" {
		t.Errorf("InFlight (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]model.ToolCall{c1, c2, c3, c4}, snap.Unanswered); diff != "" {
		t.Errorf("Unanswered (-want +got):\n%s", diff)
	}
	wantResults := map[string]model.ToolResult{"c1": {CallID: "c1", Name: "t", Content: "one"}}
	if diff := cmp.Diff(wantResults, snap.Results); diff != "" {
		t.Errorf("Results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"c3": true}, snap.Denied, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Denied (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"c1": true, "c2": true, "c3": true}, snap.Started); diff != "" {
		t.Errorf("Started (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(plan, snap.Plan); diff != "" {
		t.Errorf("Plan (-want +got):\n%s", diff)
	}
	if want := int64(17); snap.LastSeq != want {
		t.Errorf("LastSeq = %d, want %d", snap.LastSeq, want)
	}

	// A session without events loads as an empty conversation.
	empty := create(t, s, session.Info{})
	es, err := s.Load(ctx(t), empty.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(es.Messages)+len(es.InFlight)+len(es.Unanswered)+len(es.Finished) != 0 || es.LastSeq != 0 {
		t.Errorf("empty session loads as %+v", es)
	}
}
