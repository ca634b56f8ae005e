package session_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// TestLegacyStoreMigratesAndResumes: a store of schema version 2 (what
// rein wrote before event chains) holding a session killed mid-call, with
// the call_0 ids of a llama.cpp-style server, opens with this build, gets
// its events linked, verifies, and resumes with the interrupted call
// answered.
func TestLegacyStoreMigratesAndResumes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), session.DatabaseFile)
	if err := session.CreateLegacy(path, 2); err != nil {
		t.Fatal(err)
	}
	first, second := call("call_0", "1"), call("call_0", "2")
	evs := []agent.Event{
		{Type: agent.EventSessionStarted},
		msgEvent(model.UserText("go")),
		msgEvent(assistantCalls(first)), callEvent(first), decisionEvent("call_0", "allow"), resultEvent("call_0", "marked 1"),
		msgEvent(model.ToolResults(model.ToolResult{CallID: "call_0", Name: "mark", Content: "marked 1"})),
		msgEvent(assistantCalls(second)), callEvent(second), decisionEvent("call_0", "allow"),
	}
	if err := session.InsertLegacy(path, "slegacy", "/w", evs); err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(ctx, session.Config{Path: path})
	if err != nil {
		t.Fatalf("opening a version 2 store: %v", err)
	}
	defer s.Close()
	var v int
	if err := session.QueryInt(s, `SELECT version FROM schema_version`, &v); err != nil || v != session.SchemaVersion {
		t.Fatalf("schema version %d (%v), want %d", v, err, session.SchemaVersion)
	}
	res, err := session.Resume(ctx, s, "slegacy", nil)
	if err != nil {
		t.Fatalf("resuming the migrated session: %v", err)
	}
	msgs := res.Conversation.Messages()
	want := []model.ToolResult{{CallID: "call_0", Name: "mark", Content: session.InterruptedRunning, IsError: true}}
	if diff := cmp.Diff(want, msgs[len(msgs)-1].ToolResultParts()); diff != "" {
		t.Errorf("the answer to the interrupted call (-want +got):\n%s", diff)
	}
	if !res.AwaitsModel() {
		t.Error("the resumed session does not await the model")
	}
	if err := res.Journal.Close(); err != nil {
		t.Fatal(err)
	}
	// The old events and the new ones form one chain: a reopen with the
	// full checks (no clean-shutdown marker) verifies it.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path + ".clean"); err != nil {
		t.Fatalf("the clean close left no marker: %v", err)
	}
	s2, err := session.Open(ctx, session.Config{Path: path})
	if err != nil {
		t.Fatalf("reopening: %v", err)
	}
	defer s2.Close()
	n := 0
	for _, err := range s2.Events(ctx, "slegacy") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(evs)+2 {
		t.Errorf("%d events after the resume, want %d", n, len(evs)+2)
	}
}
