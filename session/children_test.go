package session_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/tool"
)

// child stamps ev as an event of the sub-agent started by task call t1.
func child(ev agent.Event) agent.Event {
	ev.AgentPath, ev.ParentCallID, ev.Depth, ev.Agent = "task:t1/marker", "t1", 1, "marker"
	return ev
}

// TestSubagentRunRoundTrip journals a real run whose task call starts a
// sub-agent that marks twice: the store holds the child's events, and Load
// rebuilds exactly the root's conversation from them, with the child's
// calls kept apart.
func TestSubagentRunRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	m := &marker{path: filepath.Join(t.TempDir(), "marks")}
	task, err := agent.NewTaskTool(agent.TaskConfig{Agents: []agent.SubagentDef{{Name: "marker", Tools: []string{"mark"}}}})
	if err != nil {
		t.Fatal(err)
	}
	set, err := tool.NewSet(m.tool(), task)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"description": "d", "prompt": "mark a and b", "agent": "marker"})
	p := scripted(
		modeltest.ToolCalls(model.ToolCall{ID: "t1", Name: agent.TaskToolName, Args: args}),
		// The child: two marks, then its answer.
		modeltest.ToolCalls(call("c1", "a"), call("c2", "b")).WithUsage(model.Usage{InputTokens: 7, OutputTokens: 1}),
		modeltest.Text("marked a and b"),
		// The root's answer.
		modeltest.Text("the child marked"),
	)
	a, err := agent.New(agent.Config{Provider: p, Tools: set, Journal: j, Clock: &testClock{}, ContextWindow: 100000})
	if err != nil {
		t.Fatal(err)
	}
	conv := agent.NewConversation(info.ID)
	if _, out := runAll(t, a, conv, "delegate"); out == nil || out.Kind != agent.Complete {
		t.Fatalf("outcome %+v", out)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Load(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(conv.Messages(), snap.Messages); diff != "" {
		t.Errorf("loaded messages differ from the root's conversation (-run +loaded):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"t1"}, snap.Finished); diff != "" {
		t.Errorf("finished calls of the root (-want +got):\n%s", diff)
	}
	kids := snap.Children["t1"]
	if len(kids) != 2 || kids[0].Result == nil || kids[0].Result.Content != "marked a" || kids[1].AgentPath != "task:t1/marker" {
		t.Errorf("children of t1: %+v", kids)
	}
	got, err := s.Get(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != string(agent.Complete) || got.Usage.InputTokens != 7 {
		t.Errorf("session row: status %s, %d input tokens; want complete with the child's 7", got.Status, got.Usage.InputTokens)
	}
	var stamped int
	for rec, err := range s.Events(ctx, info.ID) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Event.AgentPath == "task:t1/marker" && rec.Event.ParentCallID == "t1" && rec.Event.Depth == 1 {
			stamped++
		}
	}
	if stamped < 6 {
		t.Errorf("only %d stored events carry the child's agent path", stamped)
	}
}

// TestResumeSummarisesInterruptedSubagent: a crash while a sub-agent ran
// leaves the root's task call started and unanswered; Resume answers it
// as interrupted with what the sub-agent had finished, re-runs nothing,
// and the child's own messages and its session.completed neither enter
// the root's conversation nor change the session's status.
func TestResumeSummarisesInterruptedSubagent(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	taskCall := model.ToolCall{ID: "t1", Name: agent.TaskToolName, Args: json.RawMessage(`{"description":"d","prompt":"p"}`)}
	appendAll(t, j, info.ID,
		agent.Event{Type: agent.EventSessionStarted},
		msgEvent(model.UserText("delegate")),
		msgEvent(assistantCalls(taskCall)),
		callEvent(taskCall),
		child(agent.Event{Type: agent.EventSessionStarted}),
		child(msgEvent(model.UserText("p"))),
		child(msgEvent(assistantCalls(call("c1", "a")))),
		child(callEvent(call("c1", "a"))),
		child(resultEvent("c1", "marked a")),
		child(msgEvent(model.ToolResults(model.ToolResult{CallID: "c1", Name: "mark", Content: "marked a"}))),
		child(msgEvent(assistantCalls(call("c2", "b")))),
		child(callEvent(call("c2", "b"))),
		// A grandchild's event under the same root call.
		agent.Event{Type: agent.EventToolCall, ToolCall: &model.ToolCall{ID: "g1", Name: "read_file", Args: json.RawMessage(`{}`)},
			AgentPath: "task:t1/marker/task:c9/general", Depth: 2},
		// A sub-agent's completion must not mark the session complete.
		child(agent.Event{Type: agent.EventSessionCompleted, Outcome: &agent.Outcome{Kind: agent.Complete}}),
	)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != session.StatusRunning {
		t.Errorf("status %q after a child's completion, want %q", got.Status, session.StatusRunning)
	}
	r, err := session.Resume(ctx, s, info.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Journal.Close()
	msgs := r.Conversation.Messages()
	if len(msgs) != 3 || msgs[2].Role != model.RoleTool {
		t.Fatalf("resumed conversation has %d messages: %+v; want user, assistant, tool", len(msgs), msgs)
	}
	res := msgs[2].ToolResultParts()[0]
	for _, want := range []string{session.InterruptedRunning, `mark {"n":"a"}: finished: marked a`,
		`mark {"n":"b"}: interrupted`, "read_file {}: interrupted"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("the interrupted task call's result lacks %q:\n%s", want, res.Content)
		}
	}
	if len(r.Interrupted) != 1 || r.Interrupted[0].ID != "t1" {
		t.Errorf("interrupted %+v; want only the root's task call", r.Interrupted)
	}
}
