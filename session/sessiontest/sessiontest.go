// Package sessiontest is a conformance suite for session.Store
// implementations: it checks what the documentation of session.Store,
// session.Journal and the package session promise, and nothing a
// particular store merely happens to do.
//
// A store's tests call Run with a function that opens a fresh, empty
// store:
//
//	func TestConformance(t *testing.T) {
//		sessiontest.Run(t, func(t *testing.T) session.Store {
//			s, err := session.Open(context.Background(), session.Config{Path: filepath.Join(t.TempDir(), "sessions.db")})
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
// open is called once per subtest; the store it returns must not be shared
// with other subtests, and open must close it at cleanup (the suite closes
// the journals it opens, and closes the store itself only in the subtest
// about closing, so Close must tolerate a second call).
package sessiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// Run runs the conformance suite against the stores open makes.
func Run(t *testing.T, open func(t *testing.T) session.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s session.Store)
	}{
		{"CreateMintsIDs", testCreateMintsIDs},
		{"CreateKeepsGivenID", testCreateKeepsGivenID},
		{"CreateRefuses", testCreateRefuses},
		{"GetByPrefix", testGetByPrefix},
		{"ListOrderAndFilter", testListOrderAndFilter},
		{"ListLimits", testListLimits},
		{"Latest", testLatest},
		{"UnknownIDs", testUnknownIDs},
		{"EventsRoundTrip", testEventsRoundTrip},
		{"InfoFollowsJournal", testInfoFollowsJournal},
		{"SecretsRedacted", testSecretsRedacted},
		{"Flush", testFlush},
		{"ReopenJournalAppendsOn", testReopenJournalAppendsOn},
		{"OneWriterPerSession", testOneWriterPerSession},
		{"JournalClosed", testJournalClosed},
		{"LoadSnapshot", testLoadSnapshot},
		{"Fork", testFork},
		{"Delete", testDelete},
		{"ConcurrentSessions", testConcurrentSessions},
		{"ConcurrentAppendsOneJournal", testConcurrentAppendsOneJournal},
		{"StoreClosed", testStoreClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, open(t))
		})
	}
}

// ctx bounds every operation of a subtest.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// workspace is an absolute workspace path; the suite never touches it.
func workspace(name string) string { return "/sessiontest/" + name }

func create(t *testing.T, s session.Store, info session.Info) session.Info {
	t.Helper()
	if info.Workspace == "" {
		info.Workspace = workspace("w")
	}
	got, err := s.Create(ctx(t), info)
	if err != nil {
		t.Fatalf("Create(%+v): %v", info, err)
	}
	return got
}

func journal(t *testing.T, s session.Store, id string) session.Journal {
	t.Helper()
	j, err := s.Journal(ctx(t), id)
	if err != nil {
		t.Fatalf("Journal(%s): %v", id, err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func appendAll(t *testing.T, j session.Journal, evs ...agent.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := j.Append(ctx(t), ev); err != nil {
			t.Fatalf("Append(%s): %v", ev.Type, err)
		}
	}
}

func closeJournal(t *testing.T, j session.Journal) {
	t.Helper()
	if err := j.Close(); err != nil {
		t.Fatalf("closing the journal of %s: %v", j.SessionID(), err)
	}
}

// records reads every stored event of id.
func records(t *testing.T, s session.Store, id string) []session.Record {
	t.Helper()
	var out []session.Record
	for r, err := range s.Events(ctx(t), id) {
		if err != nil {
			t.Fatalf("Events(%s): %v", id, err)
		}
		out = append(out, r)
	}
	return out
}

// checkSeqs fails unless recs are numbered 1..n without gaps.
func checkSeqs(t *testing.T, recs []session.Record) {
	t.Helper()
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Fatalf("record %d has Seq %d; Seq numbers events from 1 without gaps", i, r.Seq)
		}
	}
}

func get(t *testing.T, s session.Store, id string) session.Info {
	t.Helper()
	info, err := s.Get(ctx(t), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return info
}

// events builders. Every event carries the time it happened, like the
// agent's; the session id is set by stamp.
var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Millisecond) }

func started(id string) agent.Event {
	return agent.Event{Type: agent.EventSessionStarted, RunID: id, Time: at(0)}
}

func message(id string, step int, m model.Message) agent.Event {
	return agent.Event{Type: agent.EventMessage, RunID: id, Step: step, Time: at(step), Message: &m}
}

func toolCall(callID, name, args string) model.ToolCall {
	return model.ToolCall{ID: callID, Name: name, Args: json.RawMessage(args)}
}

func assistantCalls(calls ...model.ToolCall) model.Message {
	m := model.Message{Role: model.RoleAssistant}
	for _, c := range calls {
		m.Parts = append(m.Parts, model.ToolCallPart(c))
	}
	return m
}

func callEvent(id string, step int, c model.ToolCall) agent.Event {
	return agent.Event{Type: agent.EventToolCall, RunID: id, Step: step, Time: at(step), ToolCall: &c}
}

func decisionEvent(id string, step int, callID, action string) agent.Event {
	return agent.Event{Type: agent.EventToolDecision, RunID: id, Step: step, Time: at(step),
		Decision: &agent.Decision{CallID: callID, Tool: "t", Action: action, Reason: "suite"}}
}

func resultEvent(id string, step int, callID, content string) agent.Event {
	return agent.Event{Type: agent.EventToolResult, RunID: id, Step: step, Time: at(step),
		ToolResult: &model.ToolResult{CallID: callID, Name: "t", Content: content}}
}

func usageEvent(id string, step, in, out int) agent.Event {
	return agent.Event{Type: agent.EventUsage, RunID: id, Step: step, Time: at(step), Usage: &model.Usage{InputTokens: in, OutputTokens: out}}
}

func completed(id string, step int, kind agent.OutcomeKind) agent.Event {
	return agent.Event{Type: agent.EventSessionCompleted, RunID: id, Step: step, Time: at(step),
		Outcome: &agent.Outcome{Kind: kind, Text: "done", Steps: step}}
}

// mustFail fails unless err matches target.
func mustFail(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want one matching %v", what, err, target)
	}
}

func ids(infos []session.Info) []string {
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = in.ID
	}
	return out
}

func describe(infos []session.Info) string {
	return fmt.Sprint(ids(infos))
}
