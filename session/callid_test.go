package session_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// TestResumeWithReusedCallIDs: a server that names every call call_0
// (llama.cpp-style) must resume like one with unique ids. An earlier
// turn's call_0, finished and answered, never stands for the last turn's:
// each crash point of the last turn gets the answer its own events call
// for.
func TestResumeWithReusedCallIDs(t *testing.T) {
	earlier := call("call_0", "1")
	last := call("call_0", "2")
	// The earlier turns: call_0 ran, its result and tool message recorded.
	history := []agent.Event{
		{Type: agent.EventSessionStarted},
		msgEvent(model.UserText("go")),
		msgEvent(assistantCalls(earlier)), callEvent(earlier), decisionEvent("call_0", "allow"),
		resultEvent("call_0", "marked 1"),
		msgEvent(model.ToolResults(model.ToolResult{CallID: "call_0", Name: "mark", Content: "marked 1"})),
		msgEvent(assistantCalls(call("call_0", "x"))), callEvent(call("call_0", "x")), decisionEvent("call_0", "deny"),
		resultEvent("call_0", "denied"),
		msgEvent(model.ToolResults(model.ToolResult{CallID: "call_0", Name: "mark", Content: "denied", IsError: true})),
		msgEvent(assistantCalls(last)),
	}
	tests := []struct {
		name        string
		crash       []agent.Event // the last turn's events before the crash
		content     string
		interrupted bool
		recovered   bool
	}{
		{"never started", nil, session.InterruptedNotRun, false, false},
		{"running", []agent.Event{callEvent(last), decisionEvent("call_0", "allow")}, session.InterruptedRunning, true, false},
		{"denied", []agent.Event{callEvent(last), decisionEvent("call_0", "deny")}, session.InterruptedNotRun, false, false},
		{"result recorded", []agent.Event{callEvent(last), decisionEvent("call_0", "allow"), resultEvent("call_0", "marked 2")}, "marked 2", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := openStore(t)
			info := create(t, s, "/w")
			j, err := s.Journal(ctx, info.ID)
			if err != nil {
				t.Fatal(err)
			}
			appendAll(t, j, info.ID, append(append([]agent.Event{}, history...), tt.crash...)...)
			j.Close()

			res, err := session.Resume(ctx, s, info.ID, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Journal.Close()
			if !res.AwaitsModel() {
				t.Fatalf("the resumed session does not await the model; its last message: %+v", res.Conversation.Messages()[len(res.Conversation.Messages())-1])
			}
			msgs := res.Conversation.Messages()
			got := msgs[len(msgs)-1].ToolResultParts()
			want := []model.ToolResult{{CallID: "call_0", Name: "mark", Content: tt.content, IsError: !tt.recovered}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the answer to the last call_0 (-want +got):\n%s", diff)
			}
			if got := len(res.Interrupted) == 1; got != tt.interrupted {
				t.Errorf("interrupted = %v, want %v", res.Interrupted, tt.interrupted)
			}
			if got := len(res.Recovered) == 1; got != tt.recovered {
				t.Errorf("recovered = %v, want %v", res.Recovered, tt.recovered)
			}
			wantInFlight := []model.ToolCall(nil)
			if tt.interrupted || tt.name == "denied" {
				wantInFlight = []model.ToolCall{last}
			}
			if diff := cmp.Diff(wantInFlight, res.Snapshot.InFlight); diff != "" {
				t.Errorf("in flight (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChildrenOfAReusedTaskCallID: a task call that reuses an earlier
// turn's id (call_0 again) is summarised with its own sub-agent's calls
// only, not the earlier tree's.
func TestChildrenOfAReusedTaskCallID(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	task := model.ToolCall{ID: "call_0", Name: "task", Args: []byte(`{"prompt":"p"}`)}
	child := func(ev agent.Event) agent.Event {
		ev.AgentPath, ev.ParentCallID, ev.Depth, ev.Agent = "task:call_0/general", "call_0", 1, "general"
		return ev
	}
	appendAll(t, j, info.ID,
		msgEvent(model.UserText("go")),
		msgEvent(assistantCalls(task)), callEvent(task),
		child(callEvent(call("call_0", "old"))), child(resultEvent("call_0", "marked old")),
		resultEvent("call_0", "done"),
		msgEvent(model.ToolResults(model.ToolResult{CallID: "call_0", Name: "task", Content: "done"})),
		msgEvent(assistantCalls(task)), callEvent(task),
		child(callEvent(call("call_0", "new"))),
	)
	j.Close()
	snap, err := s.Load(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []session.ChildCall{{AgentPath: "task:call_0/general", Call: call("call_0", "new")}}
	if diff := cmp.Diff(want, snap.Children["call_0"]); diff != "" {
		t.Errorf("children of the last task call (-want +got):\n%s", diff)
	}
}
