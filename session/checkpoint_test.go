package session_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// variedHistory is a session that exercises every part of the state a
// checkpoint holds: denied and reused call ids, a recorded result without
// its tool message, a summary, a plan, a sub-agent's calls, secrets and
// HTML-ish arguments, and a last turn left in flight.
func variedHistory() []agent.Event {
	args := func(s string) model.ToolCall {
		return model.ToolCall{ID: "call_0", Name: "mark", Args: []byte(`{"cmd":"` + s + ` 2>&1 <x>"}`)}
	}
	task := model.ToolCall{ID: "task_1", Name: "task", Args: []byte(`{}`)}
	sub := model.ToolCall{ID: "sub_1", Name: "mark", Args: []byte(`{}`)}
	var evs []agent.Event
	evs = append(evs, agent.Event{Type: agent.EventSessionStarted}, msgEvent(model.UserText("hello, token sk-ant-api03-"+fmt.Sprint(1234567890123456789)+"abcdefabcdef")))
	for i := 0; i < 6; i++ {
		c := args(fmt.Sprint("step ", i)) // every turn names its call call_0
		evs = append(evs,
			agent.Event{Type: agent.EventUsage, Usage: &model.Usage{InputTokens: 10, OutputTokens: 1}},
			msgEvent(model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.ReasoningPart("hm", "sig"), model.TextPart("go"), model.ToolCallPart(c)}}),
			callEvent(c), decisionEvent(c.ID, map[bool]string{true: "deny", false: "allow"}[i == 2]),
			resultEvent(c.ID, fmt.Sprint("result ", i)),
			msgEvent(model.ToolResults(model.ToolResult{CallID: c.ID, Name: "mark", Content: fmt.Sprint("result ", i), IsError: i == 2})),
		)
		if i == 3 {
			evs = append(evs,
				agent.Event{Type: agent.EventCompaction, Compaction: &agent.CompactionInfo{Strategy: "summarize", Summary: "so far", Summarized: 4}},
				agent.Event{Type: agent.EventPlanUpdated, Plan: []agent.PlanItem{{Content: "a", Status: "in_progress"}, {Content: "b", Status: "pending"}}},
			)
		}
	}
	evs = append(evs,
		msgEvent(assistantCalls(task, model.ToolCall{ID: "call_9", Name: "mark", Args: []byte(`{}`)})),
		callEvent(task),
		agent.Event{Type: agent.EventToolCall, AgentPath: "task:task_1/general", ToolCall: &sub},
		agent.Event{Type: agent.EventToolResult, AgentPath: "task:task_1/general", ToolResult: &model.ToolResult{CallID: "sub_1", Name: "mark", Content: "sub done"}},
		resultEvent("call_9", "recorded, no message"),
	)
	return evs
}

// writeSession journals evs into a new session of s.
func writeSession(t *testing.T, s *session.SQLite, evs []agent.Event) session.Info {
	t.Helper()
	info := create(t, s, "/w")
	j, err := s.Journal(context.Background(), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, j, info.ID, evs...)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return info
}

// fullReplay loads session id with its checkpoints removed: the events
// alone.
func fullReplay(t *testing.T, s *session.SQLite, id string) *session.Snapshot {
	t.Helper()
	if err := session.Exec(s, `DELETE FROM checkpoints WHERE session_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatalf("Load without checkpoints: %v", err)
	}
	return snap
}

func checkpoints(t *testing.T, s *session.SQLite, id string) int {
	t.Helper()
	var n int
	if err := session.QueryInt(s, `SELECT COUNT(*) FROM checkpoints WHERE session_id = '`+id+`'`, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCheckpointResumesAsTheEvents: with checkpoints taken at every
// cadence from each commit to every seventh event (so at every place of a
// turn), Load resumes from the newest and gives exactly what the events
// alone give — nil apart from empty included.
func TestCheckpointResumesAsTheEvents(t *testing.T) {
	evs := variedHistory()
	for _, every := range []int{1, 2, 3, 5, 7} {
		t.Run(fmt.Sprint("every=", every), func(t *testing.T) {
			s := openStore(t, func(c *session.Config) { c.CheckpointEvery = every })
			info := writeSession(t, s, evs)
			used, err := session.CheckpointUsed(s, info.ID)
			if err != nil || used == 0 {
				t.Fatalf("CheckpointUsed = %d, %v; want a checkpoint", used, err)
			}
			if n := checkpoints(t, s, info.ID); n != 1 {
				t.Errorf("%d checkpoints kept, want the newest only", n)
			}
			got, err := s.Load(context.Background(), info.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := fullReplay(t, s, info.ID)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("resumed from checkpoint %d, the snapshot differs from the events' (-events +checkpoint):\n%s", used, diff)
			}
			if len(got.Unanswered) != 2 || len(got.Summaries) != 1 || len(got.Plan) != 2 || len(got.Children["task_1"]) != 1 {
				t.Errorf("the history's state is not all there: %+v", got)
			}
		})
	}
}

// TestCheckpointCadence: a journal checkpoints at the commit that crosses
// CheckpointEvery events since the last checkpoint, none when negative.
func TestCheckpointCadence(t *testing.T) {
	evs := variedHistory()
	for _, tc := range []struct {
		every int
		want  int64
	}{{10, 40}, {1 << 20, 0}, {-1, 0}} {
		s := openStore(t, func(c *session.Config) { c.CheckpointEvery = tc.every })
		info := writeSession(t, s, evs)
		used, err := session.CheckpointUsed(s, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		// Barriers commit at once, so the marks fall on commits: the
		// last one past 40 of the 47 events is a message at 41 or a
		// call at 40 (see variedHistory).
		if tc.want == 0 && used != 0 || tc.want != 0 && (used < tc.want || used > tc.want+1) {
			t.Errorf("CheckpointEvery %d: checkpoint at event %d, want about %d", tc.every, used, tc.want)
		}
	}
}

// checkpointDamages are ways a checkpoint record goes bad.
var checkpointDamages = []struct {
	name string
	sql  string
}{
	{"flipped byte", `UPDATE checkpoints SET data = substr(data, 1, 40) || X'FF' || substr(data, 42) WHERE session_id = ?`},
	{"truncated", `UPDATE checkpoints SET data = substr(data, 1, length(data) - 5) WHERE session_id = ?`},
	{"empty", `UPDATE checkpoints SET data = X'' WHERE session_id = ?`},
	{"renumbered", `UPDATE checkpoints SET seq = seq - 1 WHERE session_id = ?`},
	{"not a record", `UPDATE checkpoints SET data = CAST('{"messages":[]}' AS BLOB) WHERE session_id = ?`},
}

// TestDamagedCheckpointIsIgnored: a record that is damaged, truncated or
// renumbered is not used, and Load gives what the events give.
func TestDamagedCheckpointIsIgnored(t *testing.T) {
	for _, d := range checkpointDamages {
		t.Run(d.name, func(t *testing.T) {
			s := openStore(t, func(c *session.Config) { c.CheckpointEvery = 4 })
			info := writeSession(t, s, variedHistory())
			if err := session.Exec(s, d.sql, info.ID); err != nil {
				t.Fatal(err)
			}
			if used, err := session.CheckpointUsed(s, info.ID); used != 0 || err != nil {
				t.Fatalf("CheckpointUsed = %d, %v; want the damaged record ignored", used, err)
			}
			got, err := s.Load(context.Background(), info.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fullReplay(t, s, info.ID), got); diff != "" {
				t.Errorf("(-events +loaded):\n%s", diff)
			}
		})
	}
}

// TestCheckpointOfAnotherHistoryIsIgnored: a record moved to a session
// with another history is not trusted, while a fork, which shares its
// parent's history, resumes from the parent's.
func TestCheckpointOfAnotherHistoryIsIgnored(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, func(c *session.Config) { c.CheckpointEvery = 4 })
	a := writeSession(t, s, variedHistory())
	other := variedHistory()
	other[1] = msgEvent(model.UserText("another prompt"))
	b := writeSession(t, s, other)
	if err := session.Exec(s, `DELETE FROM checkpoints WHERE session_id = ?`, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := session.Exec(s, `INSERT INTO checkpoints (session_id, seq, data) SELECT ?, seq, data FROM checkpoints WHERE session_id = ?`, b.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if used, err := session.CheckpointUsed(s, b.ID); used != 0 || err != nil {
		t.Fatalf("CheckpointUsed = %d, %v; want another history's record ignored", used, err)
	}
	got, err := s.Load(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Messages[0].Text() != "another prompt" {
		t.Errorf("resumed with %q, the other session's prompt", got.Messages[0].Text())
	}

	fork, err := s.Fork(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	parentAt, _ := session.CheckpointUsed(s, a.ID)
	if used, err := session.CheckpointUsed(s, fork); used != parentAt || err != nil {
		t.Errorf("the fork resumes from checkpoint %d (%v), want its parent's %d", used, err, parentAt)
	}
	forked, err := s.Load(ctx, fork)
	if err != nil {
		t.Fatal(err)
	}
	parent, _ := s.Load(ctx, a.ID)
	if diff := cmp.Diff(parent.Messages, forked.Messages); diff != "" {
		t.Errorf("fork's conversation (-parent +fork):\n%s", diff)
	}
	if err := s.Delete(ctx, fork); err != nil {
		t.Fatal(err)
	}
	if n := checkpoints(t, s, fork); n != 0 {
		t.Errorf("%d checkpoints of a deleted session remain", n)
	}
}

// TestCheckpointAheadOfTheEvents: a verified record past the session's
// last event proves events were lost; Load refuses the session as it
// refuses one shorter than its head.
func TestCheckpointAheadOfTheEvents(t *testing.T) {
	s := openStore(t, func(c *session.Config) { c.CheckpointEvery = 4 })
	info := writeSession(t, s, variedHistory())
	at, _ := session.CheckpointUsed(s, info.ID)
	if err := session.Exec(s, `DELETE FROM events WHERE session_id = ? AND seq >= ?`, info.ID, at-2); err != nil {
		t.Fatal(err)
	}
	_, err := s.Load(context.Background(), info.ID)
	if !errors.Is(err, session.ErrCorrupt) {
		t.Fatalf("Load of a session that lost its checkpointed events: %v, want ErrCorrupt", err)
	}
}

// TestDamageAroundACheckpointIsRefused: a damaged link at the
// checkpoint's event makes Load fall back to the events, which refuse the
// store; a damaged event after the checkpoint is refused directly.
func TestDamageAroundACheckpointIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		offset    int64
	}{
		{"link at the checkpoint", `UPDATE events SET chain = zeroblob(16) WHERE session_id = ? AND seq = ?`, 0},
		{"payload after it", `UPDATE events SET payload = CAST('{"type":"message"}' AS BLOB) WHERE session_id = ? AND seq = ?`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, func(c *session.Config) { c.CheckpointEvery = 10 })
			info := writeSession(t, s, variedHistory())
			at, _ := session.CheckpointUsed(s, info.ID)
			if last := int64(len(variedHistory())); at == 0 || at+tc.offset > last {
				t.Fatalf("checkpoint at %d of %d events: nothing to damage", at, last)
			}
			if err := session.Exec(s, tc.sql, info.ID, at+tc.offset); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load(context.Background(), info.ID)
			if !errors.Is(err, session.ErrCorrupt) {
				t.Fatalf("Load: %v, want ErrCorrupt", err)
			}
		})
	}
}
