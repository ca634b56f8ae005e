package temporal

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/telemetry/redact"
)

// TestMergeDeltasKeepsTheAnswer: merging a long stream's deltas keeps
// the text, the order of kinds and every non-delta event.
func TestMergeDeltasKeepsTheAnswer(t *testing.T) {
	var evs []model.Event
	var want strings.Builder
	for i := range 5000 {
		evs = append(evs, model.Event{Kind: model.EventTextDelta, Text: "ab"})
		want.WriteString("ab")
		if i == 2500 {
			evs = append(evs, model.Event{Kind: model.EventReasoningDelta, Text: "think"})
		}
	}
	evs = append(evs, model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn})
	got := mergeDeltas(evs)
	if len(got) >= maxModelEvents {
		t.Fatalf("%d events after merging", len(got))
	}
	var text strings.Builder
	reasoning := 0
	for _, ev := range got {
		switch ev.Kind {
		case model.EventTextDelta:
			text.WriteString(ev.Text)
			if len(ev.Text) > 4096+2 {
				t.Fatalf("a merged delta of %d bytes", len(ev.Text))
			}
		case model.EventReasoningDelta:
			reasoning++
		}
	}
	if text.String() != want.String() || reasoning != 1 || got[len(got)-1].Kind != model.EventStop {
		t.Fatalf("merged stream changed: %d text bytes (want %d), %d reasoning, last %v", text.Len(), want.Len(), reasoning, got[len(got)-1].Kind)
	}
}

// TestSecretsStayOutOfTheHistory: a secret the worker knows, printed by a
// tool or echoed by the model (split across deltas), never enters the
// session's history or events.
func TestSecretsStayOutOfTheHistory(t *testing.T) {
	const secret = "sk-test-7f3a9c2e81b44d0f9a6e"
	redact.Register(secret)
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("c1", "echo", `{"text":"`+secret+`"}`)),
		modeltest.Events(
			model.Event{Kind: model.EventTextDelta, Text: "the key is sk-test-7f3a"},
			model.Event{Kind: model.EventTextDelta, Text: "9c2e81b44d0f9a6e, done"},
			model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn},
		),
	)
	env := newEnv(t, p, newFakeWorkspace(t))
	env.ExecuteWorkflow(WorkflowName, SessionInput{Prompt: "go", Workspace: "ws"})
	r := result(t, env)
	v, err := env.QueryWorkflow(EventsQuery, 0)
	if err != nil {
		t.Fatal(err)
	}
	var page EventsPage
	if err := v.Get(&page); err != nil {
		t.Fatal(err)
	}
	all, _ := json.Marshal(page.Events)
	res, _ := json.Marshal(r)
	if strings.Contains(string(all), secret) || strings.Contains(string(res), secret) || strings.Contains(string(all), "9c2e81b44d0f9a6e") {
		t.Fatalf("the secret reached the history:\n%s\n%s", all, res)
	}
	if !strings.Contains(r.Text, "the key is") || !strings.Contains(string(all), "echo ") {
		t.Errorf("the rest of the text was lost: %q", r.Text)
	}
}
