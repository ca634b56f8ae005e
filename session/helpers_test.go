package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/tool"
)

// testClock is a deterministic clock: each reading is a millisecond after
// the previous one.
type testClock struct{ n atomic.Int64 }

func (c *testClock) Now() time.Time {
	return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(c.n.Add(1)) * time.Millisecond)
}

// testIDs mints predictable session ids.
type testIDs struct{ n atomic.Int64 }

func (g *testIDs) next() string { return fmt.Sprintf("s%04d", g.n.Add(1)) }

// openStore opens a store in a fresh directory with deterministic ids and
// time, closed at cleanup.
func openStore(t testing.TB, mutate ...func(*session.Config)) *session.SQLite {
	t.Helper()
	clock := &testClock{}
	ids := &testIDs{}
	cfg := session.Config{Path: filepath.Join(t.TempDir(), "state", session.DatabaseFile), Now: clock.Now, NewID: ids.next}
	for _, m := range mutate {
		m(&cfg)
	}
	s, err := session.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// create makes a session in workspace ws.
func create(t testing.TB, s session.Store, ws string) session.Info {
	t.Helper()
	info, err := s.Create(context.Background(), session.Info{Workspace: ws, Model: "test-model"})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return info
}

// marker is a tool that appends its "n" argument to a file, counting
// calls: the observable side effect the durability tests check.
type marker struct {
	path  string
	mu    sync.Mutex
	calls []string
}

type markIn struct {
	N string `json:"n"`
}

func (m *marker) tool() tool.Tool {
	return tool.Func("mark", "append a line to the marker file", func(ctx context.Context, in markIn) (string, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.calls = append(m.calls, in.N)
		f, err := os.OpenFile(m.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := fmt.Fprintln(f, in.N); err != nil {
			return "", err
		}
		return "marked " + in.N, nil
	}, tool.WithEffects(tool.Effects{WritesFiles: true}))
}

func call(id, n string) model.ToolCall {
	return model.ToolCall{ID: id, Name: "mark", Args: json.RawMessage(`{"n":"` + n + `"}`)}
}

// newAgent builds an agent on a scripted provider with the marker tool and
// the journal.
func newAgent(t testing.TB, p model.Provider, m *marker, j agent.Journal, hooks ...agent.Hook) *agent.Agent {
	t.Helper()
	set, err := tool.NewSet(m.tool())
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{
		Provider: p, Tools: set, Journal: j, Hooks: hooks,
		Clock: &testClock{}, FanOut: agent.Sequential{}, ContextWindow: 100000,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runAll runs the agent to its end and returns the events it yielded.
func runAll(t testing.TB, a *agent.Agent, c *agent.Conversation, input string) ([]agent.Event, *agent.Outcome) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []agent.Event
	var out *agent.Outcome
	for ev, err := range a.Run(ctx, c, input) {
		_ = err
		evs = append(evs, ev)
		if ev.Type == agent.EventSessionCompleted {
			out = ev.Outcome
		}
	}
	return evs, out
}

// appendAll appends events to j, stamping them for session id.
func appendAll(t testing.TB, j agent.Journal, id string, evs ...agent.Event) {
	t.Helper()
	clock := &testClock{}
	for _, ev := range evs {
		ev.RunID = id
		ev.Time = clock.Now()
		if err := j.Append(context.Background(), ev); err != nil {
			t.Fatalf("Append(%s): %v", ev.Type, err)
		}
	}
}

func msgEvent(m model.Message) agent.Event {
	return agent.Event{Type: agent.EventMessage, Message: &m}
}

func callEvent(c model.ToolCall) agent.Event {
	return agent.Event{Type: agent.EventToolCall, ToolCall: &c}
}

func decisionEvent(id, action string) agent.Event {
	return agent.Event{Type: agent.EventToolDecision, Decision: &agent.Decision{CallID: id, Tool: "mark", Action: action}}
}

func resultEvent(id, content string) agent.Event {
	return agent.Event{Type: agent.EventToolResult, ToolResult: &model.ToolResult{CallID: id, Name: "mark", Content: content}}
}

func assistantCalls(calls ...model.ToolCall) model.Message {
	m := model.Message{Role: model.RoleAssistant}
	for _, c := range calls {
		m.Parts = append(m.Parts, model.ToolCallPart(c))
	}
	return m
}

// scripted is shorthand for a provider playing turns.
func scripted(turns ...modeltest.Turn) *modeltest.Scripted { return modeltest.NewScripted(turns...) }

func deleteRow(s *session.SQLite, id string) error { return session.DeleteRow(s, id) }
