package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
)

// TestRunRoundTrip journals a real agent run and checks that Load rebuilds
// the conversation exactly and that resuming continues it.
func TestRunRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	m := &marker{path: filepath.Join(t.TempDir(), "marks")}
	p := scripted(
		modeltest.ToolCalls(call("c1", "one"), call("c2", "two")).WithUsage(model.Usage{InputTokens: 10, OutputTokens: 3}),
		modeltest.Events(
			model.Event{Kind: model.EventReasoningDelta, Text: "thinking"},
			model.Event{Kind: model.EventReasoningEnd, Signature: "sig=="},
			model.Event{Kind: model.EventTextDelta, Text: "done: "},
			model.Event{Kind: model.EventTextDelta, Text: "ünïcode ✓"},
			model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn},
		).WithUsage(model.Usage{InputTokens: 20, OutputTokens: 5}),
	)
	conv := agent.NewConversation(info.ID)
	_, out := runAll(t, newAgent(t, p, m, j), conv, "mark twice")
	if out == nil || out.Kind != agent.Complete {
		t.Fatalf("outcome %+v, want complete", out)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	snap, err := s.Load(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(conv.Messages(), snap.Messages); diff != "" {
		t.Errorf("loaded messages differ from the run's conversation (-run +loaded):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c1", "c2"}, snap.Finished); diff != "" {
		t.Errorf("finished calls (-want +got):\n%s", diff)
	}
	if len(snap.InFlight) != 0 || len(snap.Unanswered) != 0 {
		t.Errorf("in flight %v, unanswered %v; want none", snap.InFlight, snap.Unanswered)
	}
	if snap.Info.Status != string(agent.Complete) || snap.Info.Title != "mark twice" {
		t.Errorf("info %+v: want status complete, title 'mark twice'", snap.Info)
	}
	if snap.Info.Usage.InputTokens != 30 || snap.Info.Usage.OutputTokens != 8 {
		t.Errorf("usage %+v, want 30 in, 8 out", snap.Info.Usage)
	}
	// Deltas are not stored by default.
	for r, err := range s.Events(ctx, info.ID) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Event.Type == agent.EventTextDelta || r.Event.Type == agent.EventReasoningDelta {
			t.Errorf("event %d is a %s; deltas should not be stored", r.Seq, r.Event.Type)
		}
	}

	// Resume and continue with a new prompt: the model sees the whole
	// history, and nothing ran again.
	res, err := session.Resume(ctx, s, info.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interrupted)+len(res.Recovered) != 0 || res.AwaitsModel() {
		t.Errorf("resume of a finished session: interrupted %v recovered %v awaits %v", res.Interrupted, res.Recovered, res.AwaitsModel())
	}
	p2 := scripted(modeltest.Text("again"))
	_, out = runAll(t, newAgent(t, p2, m, res.Journal), res.Conversation, "and now?")
	res.Journal.Close()
	if out == nil || out.Kind != agent.Complete {
		t.Fatalf("resumed outcome %+v", out)
	}
	req := p2.Requests()[0]
	if diff := cmp.Diff(append(conv.Messages(), model.UserText("and now?")), req.Messages); diff != "" {
		t.Errorf("resumed request history (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"one", "two"}, m.calls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}

// TestResumeAnswersUnfinishedCalls covers every way a crash can leave the
// calls of the last assistant message.
func TestResumeAnswersUnfinishedCalls(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	c1, c2, c3, c4 := call("c1", "1"), call("c2", "2"), call("c3", "3"), call("c4", "4")
	appendAll(t, j, info.ID,
		agent.Event{Type: agent.EventSessionStarted},
		msgEvent(model.UserText("go")),
		msgEvent(assistantCalls(c1, c2, c3, c4)),
		callEvent(c1), decisionEvent("c1", "allow"), // finished: result committed
		callEvent(c2), decisionEvent("c2", "allow"), // running when killed
		callEvent(c3), decisionEvent("c3", "deny"), // denied, never ran
		// c4 was never started
		resultEvent("c1", "marked 1"),
	)
	// The process dies here: no tool message, no session.completed.
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	snap, err := s.Load(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]model.ToolCall{c2, c3}, snap.InFlight); diff != "" {
		t.Errorf("in flight (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]model.ToolCall{c1, c2, c3, c4}, snap.Unanswered); diff != "" {
		t.Errorf("unanswered (-want +got):\n%s", diff)
	}
	if snap.Info.Status != session.StatusRunning {
		t.Errorf("status %q, want running", snap.Info.Status)
	}

	res, err := session.Resume(ctx, s, info.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantTool := model.ToolResults(
		model.ToolResult{CallID: "c1", Name: "mark", Content: "marked 1"},
		model.ToolResult{CallID: "c2", Name: "mark", Content: session.InterruptedRunning, IsError: true},
		model.ToolResult{CallID: "c3", Name: "mark", Content: session.InterruptedNotRun, IsError: true},
		model.ToolResult{CallID: "c4", Name: "mark", Content: session.InterruptedNotRun, IsError: true},
	)
	msgs := res.Conversation.Messages()
	if diff := cmp.Diff(wantTool, msgs[len(msgs)-1]); diff != "" {
		t.Errorf("resume's tool message (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]model.ToolCall{c2}, res.Interrupted); diff != "" {
		t.Errorf("interrupted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]model.ToolCall{c1}, res.Recovered); diff != "" {
		t.Errorf("recovered (-want +got):\n%s", diff)
	}
	if !res.AwaitsModel() || res.Conversation.ID() != info.ID {
		t.Errorf("AwaitsModel %v, id %q; want true, %q", res.AwaitsModel(), res.Conversation.ID(), info.ID)
	}
	res.Journal.Close()

	// The answers were journaled: a second crash right now loses nothing
	// and a second resume adds nothing.
	again, err := session.Resume(ctx, s, info.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Journal.Close()
	if diff := cmp.Diff(res.Conversation.Messages(), again.Conversation.Messages()); diff != "" {
		t.Errorf("second resume changed the conversation (-first +second):\n%s", diff)
	}
	if len(again.Snapshot.InFlight) != 0 || len(again.Snapshot.Unanswered) != 0 {
		t.Errorf("after resume: in flight %v, unanswered %v; want none", again.Snapshot.InFlight, again.Snapshot.Unanswered)
	}
}

// TestResumeContinuesTheRun resumes a session killed mid-tool and runs it
// on with an empty input: the model is told about the interruption and
// the finished call does not run again.
func TestResumeContinuesTheRun(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := call("c1", "1"), call("c2", "2")
	appendAll(t, j, info.ID,
		agent.Event{Type: agent.EventSessionStarted},
		msgEvent(model.UserText("mark 1 and 2")),
		msgEvent(assistantCalls(c1, c2)),
		callEvent(c1), decisionEvent("c1", "allow"),
		callEvent(c2), decisionEvent("c2", "allow"),
	)
	j.Close()

	res, err := session.Resume(ctx, s, info.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &marker{path: filepath.Join(t.TempDir(), "marks")}
	p := scripted(modeltest.ToolCalls(call("c3", "2-retry")), modeltest.Text("all marked"))
	_, out := runAll(t, newAgent(t, p, m, res.Journal), res.Conversation, "")
	res.Journal.Close()
	if out == nil || out.Kind != agent.Complete {
		t.Fatalf("outcome %+v", out)
	}
	first := p.Requests()[0].Messages
	last := first[len(first)-1]
	if last.Role != model.RoleTool || len(last.Parts) != 2 || last.Parts[1].ToolResult.Content != session.InterruptedRunning {
		t.Errorf("first request after resume ends with %+v; want the interrupted results", last)
	}
	if diff := cmp.Diff([]string{"2-retry"}, m.calls); diff != "" {
		t.Errorf("calls after resume (-want +got):\n%s", diff)
	}
	snap, err := s.Load(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Info.Status != "complete" || len(snap.InFlight) != 0 {
		t.Errorf("after the resumed run: status %q, in flight %v", snap.Info.Status, snap.InFlight)
	}
}

func TestJournalCommitsBarriersAndBatchesTheRest(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, func(c *session.Config) { c.BatchSize = 3; c.StoreDeltas = true })
	info := create(t, s, "/w")
	// A second store on the same file sees only committed events.
	other, err := session.Open(ctx, session.Config{Path: s.Path()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	committed := func() int64 {
		in, err := other.Get(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		return in.Events
	}
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	steps := []struct {
		ev   agent.Event
		want int64
	}{
		{agent.Event{Type: agent.EventSessionStarted}, 0},
		{msgEvent(model.UserText("hi")), 2}, // barrier
		{agent.Event{Type: agent.EventTextDelta, Text: "a"}, 2},
		{agent.Event{Type: agent.EventUsage, Usage: &model.Usage{InputTokens: 1}}, 2},
		{agent.Event{Type: agent.EventTextDelta, Text: "b"}, 5}, // batch full
		{agent.Event{Type: agent.EventToolDecision, Decision: &agent.Decision{CallID: "x", Action: "allow"}}, 5},
		{callEvent(call("x", "1")), 7}, // barrier: before the tool runs
		{resultEvent("x", "ok"), 7},
	}
	for i, st := range steps {
		appendAll(t, j, info.ID, st.ev)
		if got := committed(); got != st.want {
			t.Errorf("after event %d (%s): %d committed, want %d", i, st.ev.Type, got, st.want)
		}
	}
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := committed(); got != 8 {
		t.Errorf("after Flush: %d committed, want 8", got)
	}
}

func TestJournalRefusesForeignRunsAndSecondWriters(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Append(ctx, agent.Event{Type: agent.EventUsage, RunID: "other"}); err == nil {
		t.Error("Append of another run's event succeeded")
	}
	if _, err := s.Journal(ctx, info.ID); err == nil {
		t.Error("second Journal in one store succeeded")
	}
	// Another process (here: another store on the same file) is refused
	// at once, by the session lock.
	other, err := session.Open(ctx, session.Config{Path: s.Path()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Journal(ctx, info.ID); !errors.Is(err, session.ErrConcurrentWriter) {
		t.Errorf("Journal from a second store: %v, want ErrConcurrentWriter", err)
	}
	if _, err := session.Resume(ctx, other, info.ID, nil); !errors.Is(err, session.ErrConcurrentWriter) {
		t.Errorf("Resume from a second store: %v, want ErrConcurrentWriter", err)
	}
	if err := other.Delete(ctx, info.ID); !errors.Is(err, session.ErrConcurrentWriter) {
		t.Errorf("Delete from a second store: %v, want ErrConcurrentWriter", err)
	}
}

func TestJournalFailureIsSticky(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Delete the row behind the journal's back (as a second process
	// could after the lock check): the next commit fails, and so does
	// every append after it.
	other, err := session.Open(ctx, session.Config{Path: s.Path()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := deleteRow(other, info.ID); err != nil {
		t.Fatal(err)
	}
	err = j.Append(ctx, agent.Event{Type: agent.EventMessage, RunID: info.ID, Message: &model.Message{Role: model.RoleUser}})
	if !errors.Is(err, session.ErrNotFound) || !strings.Contains(err.Error(), "deleted") {
		t.Errorf("append to a deleted session: %v", err)
	}
	if err2 := j.Append(ctx, agent.Event{Type: agent.EventUsage, RunID: info.ID}); err2 == nil {
		t.Error("append after a failed commit succeeded")
	}
	j.Close()
}

func TestEventsRoundTripTheirPayload(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	c := model.ToolCall{ID: "k", Name: "mark", Args: json.RawMessage(`{"n":"1","nested":{"z":1,"a":[true,null]}}`)}
	in := []agent.Event{
		{Type: agent.EventToolCall, ToolCall: &c, IdempotencyKey: "idem_1", Step: 3},
		{Type: agent.EventCompaction, Compaction: &agent.CompactionInfo{Strategy: "window", OmittedMessages: 4, KeptMessages: 9, EstimatedTokens: 1200}},
		{Type: agent.EventError, Err: "boom"},
		{Type: agent.EventSessionCompleted, Outcome: &agent.Outcome{Kind: agent.Failed, Steps: 3, Err: "boom", Usage: model.Usage{InputTokens: 7}}},
	}
	appendAll(t, j, info.ID, in...)
	j.Close()
	var got []agent.Event
	for r, err := range s.Events(ctx, info.ID) {
		if err != nil {
			t.Fatal(err)
		}
		r.Event.Time = r.Event.Time.UTC()
		got = append(got, r.Event)
	}
	clock := &testClock{}
	for i := range in {
		in[i].RunID = info.ID
		in[i].Time = clock.Now()
	}
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("events (-appended +read):\n%s", diff)
	}
}
