package sessiontest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/telemetry/redact"
)

// richRun is a run exercising every part of an event a store keeps.
func richRun(id string) []agent.Event {
	c1 := toolCall("c1", "run_command", `{"command":"go test ./... 2>&1 | tail -n 5"}`)
	c2 := toolCall("c2", "read_file", `{"path":"ünï/cödé.go"}`)
	assistant := assistantCalls(c1, c2)
	assistant.Parts = append([]model.Part{model.ReasoningPart("let me think", "sig==")}, assistant.Parts...)
	call1 := callEvent(id, 2, c1)
	call1.IdempotencyKey = "idem-c1"
	sub := message(id, 3, model.UserText("sub-agent prompt"))
	sub.AgentPath, sub.ParentCallID, sub.Depth, sub.Agent = "task:c9/reviewer", "c9", 1, "reviewer"
	return []agent.Event{
		started(id),
		message(id, 1, model.UserText("fix the <b>bug</b> & run the tests")),
		message(id, 2, assistant),
		usageEvent(id, 2, 120, 30),
		call1,
		decisionEvent(id, 2, "c1", "allow"),
		callEvent(id, 2, c2),
		decisionEvent(id, 2, "c2", "allow"),
		resultEvent(id, 2, "c2", "package main\n"),
		resultEvent(id, 2, "c1", "ok  \texample.com/x\t0.01s"),
		message(id, 2, model.ToolResults(
			model.ToolResult{CallID: "c1", Name: "run_command", Content: "ok  \texample.com/x\t0.01s"},
			model.ToolResult{CallID: "c2", Name: "read_file", Content: "package main\n", IsError: true},
		)),
		sub,
		{Type: agent.EventPlanUpdated, RunID: id, Step: 3, Time: at(3), Plan: []agent.PlanItem{{Content: "fix it", Status: "in_progress", ActiveForm: "Fixing it"}}},
		{Type: agent.EventError, RunID: id, Step: 3, Time: at(3), Err: "a transient failure"},
		message(id, 4, model.AssistantText("Fixed; the tests pass.")),
		usageEvent(id, 4, 200, 12),
		completed(id, 4, agent.Complete),
	}
}

// Events yields what was appended, in order, numbered from 1 without
// gaps, every field intact (events carry no secrets here, so redaction
// changes nothing) and RunID the session's id.
func testEventsRoundTrip(t *testing.T, s session.Store) {
	info := create(t, s, session.Info{})
	want := richRun(info.ID)
	j := journal(t, s, info.ID)
	if j.SessionID() != info.ID {
		t.Errorf("SessionID() = %q, want %q", j.SessionID(), info.ID)
	}
	appendAll(t, j, want...)
	closeJournal(t, j)
	recs := records(t, s, info.ID)
	checkSeqs(t, recs)
	got := make([]agent.Event, len(recs))
	for i, r := range recs {
		got[i] = r.Event
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored events (-appended +read back):\n%s", diff)
	}
	// Breaking out of Events stops it.
	n := 0
	for range s.Events(ctx(t), info.ID) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("Events went on after the consumer stopped: %d items", n)
	}
}

// The session's Info follows its journal: status running once a run
// started and the outcome's kind once it completed, the first user prompt
// as title, the event count and the summed usage.
func testInfoFollowsJournal(t *testing.T, s session.Store) {
	info := create(t, s, session.Info{})
	j := journal(t, s, info.ID)
	appendAll(t, j, started(info.ID), message(info.ID, 1, model.UserText("  the first\nprompt  ")))
	if err := j.Flush(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, info.ID); got.Status != session.StatusRunning {
		t.Errorf("status after session.started = %q, want %q", got.Status, session.StatusRunning)
	}
	appendAll(t, j, usageEvent(info.ID, 1, 10, 3), message(info.ID, 2, model.UserText("a later prompt")),
		usageEvent(info.ID, 2, 20, 5), completed(info.ID, 3, agent.StepLimit))
	closeJournal(t, j)
	got := get(t, s, info.ID)
	if got.Status != string(agent.StepLimit) {
		t.Errorf("status after the run = %q, want %q", got.Status, agent.StepLimit)
	}
	if got.Title != "the first prompt" && got.Title != "  the first\nprompt  " {
		t.Errorf("title %q, want the first user prompt", got.Title)
	}
	if got.Events != 6 {
		t.Errorf("Events = %d, want 6", got.Events)
	}
	if got.Usage.InputTokens != 30 || got.Usage.OutputTokens != 8 {
		t.Errorf("usage %+v, want 30 in and 8 out", got.Usage)
	}
	if got.Updated.Before(got.Created) {
		t.Errorf("updated %v before created %v", got.Updated, got.Created)
	}
}

// Registered secret values and secret-shaped text never come back out of
// the store: not in events, not in the title, not in a snapshot.
func testSecretsRedacted(t *testing.T, s session.Store) {
	registered := "reg1stered-sessiontest-value-9f8e7d"
	redact.Register(registered)
	shaped := "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
	info := create(t, s, session.Info{})
	c := toolCall("c1", "fetch", fmt.Sprintf(`{"url":"https://x.example/?q=%s"}`, registered))
	j := journal(t, s, info.ID)
	appendAll(t, j, started(info.ID),
		message(info.ID, 1, model.UserText("use the key "+shaped)),
		message(info.ID, 2, assistantCalls(c)), callEvent(info.ID, 2, c),
		resultEvent(info.ID, 2, "c1", "the token is "+registered),
		agent.Event{Type: agent.EventError, RunID: info.ID, Time: at(3), Err: "auth failed for " + shaped})
	closeJournal(t, j)

	var all strings.Builder
	for _, r := range records(t, s, info.ID) {
		b, err := json.Marshal(r.Event)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	snap, err := s.Load(ctx(t), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(snap)
	all.Write(b)
	all.WriteString(get(t, s, info.ID).Title)
	titled := create(t, s, session.Info{Title: "deploy with " + shaped})
	all.WriteString(titled.Title + get(t, s, titled.ID).Title)
	for _, secret := range []string{registered, shaped} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("the store gave back the secret %q", secret)
		}
	}
	if !strings.Contains(all.String(), redact.Marker) {
		t.Errorf("no %s marker where the secrets were", redact.Marker)
	}
	if !json.Valid(snap.Messages[1].Parts[0].ToolCall.Args) {
		t.Errorf("redacted arguments are not JSON: %s", snap.Messages[1].Parts[0].ToolCall.Args)
	}
}

// Flush commits what Append batched: afterwards every event is stored.
func testFlush(t *testing.T, s session.Store) {
	info := create(t, s, session.Info{})
	j := journal(t, s, info.ID)
	if err := j.Flush(ctx(t)); err != nil {
		t.Errorf("Flush with nothing appended: %v", err)
	}
	// Usage and decisions are the events a journal may batch.
	appendAll(t, j, started(info.ID), usageEvent(info.ID, 1, 1, 1), decisionEvent(info.ID, 1, "c1", "deny"), usageEvent(info.ID, 1, 2, 2))
	if err := j.Flush(ctx(t)); err != nil {
		t.Fatal(err)
	}
	recs := records(t, s, info.ID)
	checkSeqs(t, recs)
	if len(recs) != 4 {
		t.Errorf("after Flush %d events are stored, want 4", len(recs))
	}
	if got := get(t, s, info.ID); got.Events != 4 || got.Usage.InputTokens != 3 {
		t.Errorf("after Flush Info = %+v, want 4 events and 3 input tokens", got)
	}
	// The journal stays usable after a Flush.
	appendAll(t, j, message(info.ID, 2, model.AssistantText("on")))
	closeJournal(t, j)
	if n := len(records(t, s, info.ID)); n != 5 {
		t.Errorf("%d events after Close, want 5", n)
	}
}

// A session's next run opens a new journal that appends after the last
// event: a resumed session keeps one gap-free sequence.
func testReopenJournalAppendsOn(t *testing.T, s session.Store) {
	info := create(t, s, session.Info{})
	for run := range 3 {
		j := journal(t, s, info.ID)
		appendAll(t, j, started(info.ID), message(info.ID, run, model.UserText(fmt.Sprintf("run %d", run))))
		closeJournal(t, j)
	}
	recs := records(t, s, info.ID)
	checkSeqs(t, recs)
	if len(recs) != 6 {
		t.Fatalf("%d events after three runs of two, want 6", len(recs))
	}
	for run := range 3 {
		if m := recs[2*run+1].Event.Message; m == nil || m.Text() != fmt.Sprintf("run %d", run) {
			t.Errorf("event %d = %+v, want run %d's prompt", 2*run+2, recs[2*run+1].Event, run)
		}
	}
}

// Two journals never interleave on one session: a store either refuses
// the second Journal while the first is open, or the second to write gets
// ErrConcurrentWriter. Once the first is closed a new one opens.
func testOneWriterPerSession(t *testing.T, s session.Store) {
	info := create(t, s, session.Info{})
	j1 := journal(t, s, info.ID)
	j2, err := s.Journal(ctx(t), info.ID)
	if err == nil {
		appendAll(t, j1, message(info.ID, 1, model.UserText("from the first")))
		err = j2.Append(ctx(t), message(info.ID, 1, model.UserText("from the second")))
		if err == nil {
			err = j2.Flush(ctx(t))
		}
		j2.Close()
		mustFail(t, "the second journal's write", err, session.ErrConcurrentWriter)
	} else {
		appendAll(t, j1, message(info.ID, 1, model.UserText("from the first")))
	}
	closeJournal(t, j1)
	recs := records(t, s, info.ID)
	if len(recs) != 1 || recs[0].Event.Message.Text() != "from the first" {
		t.Errorf("stored %d events; want only the first journal's one", len(recs))
	}
	j3 := journal(t, s, info.ID)
	appendAll(t, j3, message(info.ID, 2, model.UserText("later")))
	closeJournal(t, j3)
	if n := len(records(t, s, info.ID)); n != 2 {
		t.Errorf("%d events after the next run, want 2", n)
	}
}

// A closed journal refuses to append or flush with ErrClosed; what it
// committed before stays.
func testJournalClosed(t *testing.T, s session.Store) {
	info := create(t, s, session.Info{})
	j := journal(t, s, info.ID)
	appendAll(t, j, started(info.ID), usageEvent(info.ID, 1, 1, 1)) // the usage may be batched: Close commits it
	closeJournal(t, j)
	mustFail(t, "Append after Close", j.Append(ctx(t), message(info.ID, 1, model.UserText("late"))), session.ErrClosed)
	mustFail(t, "Flush after Close", j.Flush(ctx(t)), session.ErrClosed)
	if n := len(records(t, s, info.ID)); n != 2 {
		t.Errorf("%d events stored, want the 2 appended before Close", n)
	}
}

// Every goroutine may use the store: concurrent runs on different sessions
// each end with exactly their own events, in order.
func testConcurrentSessions(t *testing.T, s session.Store) {
	const sessions, perRun = 6, 20
	infos := make([]session.Info, sessions)
	var wg sync.WaitGroup
	errs := make(chan error, sessions*(perRun+3))
	var mu sync.Mutex
	for i := range sessions {
		wg.Go(func() {
			info, err := s.Create(ctx(t), session.Info{Workspace: workspace("c")})
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			infos[i] = info
			mu.Unlock()
			j, err := s.Journal(ctx(t), info.ID)
			if err != nil {
				errs <- err
				return
			}
			defer j.Close()
			for k := range perRun {
				if err := j.Append(ctx(t), message(info.ID, k, model.UserText(fmt.Sprintf("%s/%d", info.ID, k)))); err != nil {
					errs <- err
					return
				}
			}
			errs <- j.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, info := range infos {
		recs := records(t, s, info.ID)
		checkSeqs(t, recs)
		if len(recs) != perRun {
			t.Errorf("session %s has %d events, want %d", info.ID, len(recs), perRun)
			continue
		}
		for k, r := range recs {
			if want := fmt.Sprintf("%s/%d", info.ID, k); r.Event.Message == nil || r.Event.Message.Text() != want {
				t.Errorf("session %s event %d is not %q", info.ID, k+1, want)
			}
		}
	}
}

// A Journal is safe for concurrent use: appends from several goroutines
// are all stored, numbered without gaps, each goroutine's in its order.
func testConcurrentAppendsOneJournal(t *testing.T, s session.Store) {
	const writers, each = 4, 25
	info := create(t, s, session.Info{})
	j := journal(t, s, info.ID)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for k := range each {
				ev := message(info.ID, k, model.UserText(fmt.Sprintf("w%d/%03d", w, k)))
				if k%3 == 0 {
					ev = usageEvent(info.ID, k, w, k) // batched events between the barriers
				}
				if err := j.Append(ctx(t), ev); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	closeJournal(t, j)
	recs := records(t, s, info.ID)
	checkSeqs(t, recs)
	if len(recs) != writers*each {
		t.Fatalf("%d events stored, want %d", len(recs), writers*each)
	}
	last := map[string]string{}
	for _, r := range recs {
		if r.Event.Message == nil {
			continue
		}
		text := r.Event.Message.Text()
		w, _, _ := strings.Cut(text, "/")
		if text <= last[w] {
			t.Errorf("writer %s's %q stored after %q", w, text, last[w])
		}
		last[w] = text
	}
}

// A closed store refuses every operation with ErrClosed.
func testStoreClosed(t *testing.T, s session.Store) {
	info := create(t, s, session.Info{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Create(ctx(t), session.Info{Workspace: workspace("w")})
	mustFail(t, "Create after Close", err, session.ErrClosed)
	_, err = s.Get(ctx(t), info.ID)
	mustFail(t, "Get after Close", err, session.ErrClosed)
	_, err = s.List(ctx(t), session.Filter{})
	mustFail(t, "List after Close", err, session.ErrClosed)
	_, err = s.Latest(ctx(t), info.Workspace)
	mustFail(t, "Latest after Close", err, session.ErrClosed)
	_, err = s.Journal(ctx(t), info.ID)
	mustFail(t, "Journal after Close", err, session.ErrClosed)
	_, err = s.Load(ctx(t), info.ID)
	mustFail(t, "Load after Close", err, session.ErrClosed)
	var evErr error
	for _, err := range s.Events(ctx(t), info.ID) {
		evErr = err
	}
	mustFail(t, "Events after Close", evErr, session.ErrClosed)
	_, err = s.Fork(ctx(t), info.ID)
	mustFail(t, "Fork after Close", err, session.ErrClosed)
	mustFail(t, "Delete after Close", s.Delete(ctx(t), info.ID), session.ErrClosed)
	if err := s.Close(); err != nil && !errors.Is(err, session.ErrClosed) {
		t.Errorf("a second Close: %v", err)
	}
}
