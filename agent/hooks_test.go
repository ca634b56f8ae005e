package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

// memJournal records events and fails the append of the failAt-th event
// (1-based; 0 never fails).
type memJournal struct {
	mu     sync.Mutex
	events []Event
	failAt int
	calls  int
}

func (j *memJournal) Append(_ context.Context, ev Event) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls++
	if j.calls == j.failAt {
		return errors.New("disk full")
	}
	j.events = append(j.events, ev)
	return nil
}

func (j *memJournal) types() []EventType {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]EventType, len(j.events))
	for i, ev := range j.events {
		out[i] = ev.Type
	}
	return out
}

func TestHooksCannotBreakARun(t *testing.T) {
	var seen []EventType
	recorder := HookFunc(func(_ context.Context, ev Event) { seen = append(seen, ev.Type) })
	panicky := HookFunc(func(context.Context, Event) { panic("hook bug") })
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "echo", `{}`)), modeltest.Text("ok"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool()), Hooks: []Hook{panicky, recorder, panicky}})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome = %+v", r.outcome)
	}
	if diff := cmp.Diff(r.types(), seen); diff != "" {
		t.Errorf("hook saw (-events +hook):\n%s", diff)
	}
	if got, want := a.HookPanics(), int64(2*len(r.events)); got != want {
		t.Errorf("HookPanics = %d, want %d", got, want)
	}
}

// TestJournalOrder checks that a tool.call is journaled before its tool
// runs and hooks only see what the journal accepted.
func TestJournalOrder(t *testing.T) {
	j := &memJournal{}
	var journaledBeforeRun bool
	probe := newTool("probe", func(context.Context, json.RawMessage) (*tool.Result, error) {
		types := j.types()
		journaledBeforeRun = types[len(types)-1] == EventToolDecision && slices.Contains(types, EventToolCall)
		return &tool.Result{Content: "ok"}, nil
	})
	var hookSaw int
	hook := HookFunc(func(context.Context, Event) { hookSaw++ })
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "probe", `{}`)), modeltest.Text("ok"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, probe), Journal: j, Hooks: []Hook{hook}})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if !journaledBeforeRun {
		t.Error("the tool ran before its tool.call and tool.decision were journaled")
	}
	if diff := cmp.Diff(r.types(), j.types()); diff != "" {
		t.Errorf("journal (-events +journal):\n%s", diff)
	}
	if hookSaw != len(r.events) {
		t.Errorf("hook saw %d events, want %d", hookSaw, len(r.events))
	}
}

// TestJournalFailure fails the journal at each event of a run in turn: the
// run must end Failed with ErrJournal, never run a tool whose call was not
// journaled, and leave a valid history.
func TestJournalFailure(t *testing.T) {
	// A clean run: session.started, message(user), message(assistant),
	// tool.call, tool.decision, tool.result, message(tool), text.delta,
	// message(assistant), session.completed.
	const events = 10
	for failAt := 1; failAt <= events; failAt++ {
		j := &memJournal{failAt: failAt}
		ran := false
		probe := newTool("probe", func(context.Context, json.RawMessage) (*tool.Result, error) {
			ran = true
			return &tool.Result{Content: "ok"}, nil
		})
		p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "probe", `{}`)), modeltest.Text("ok"))
		var hooked []EventType
		hook := HookFunc(func(_ context.Context, ev Event) { hooked = append(hooked, ev.Type) })
		a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, probe), Journal: j, Hooks: []Hook{hook}})
		c := NewConversation("")
		r := collect(t, a, context.Background(), c, "go")
		if r.outcome.Kind != Failed || !errors.Is(r.err, ErrJournal) || !strings.Contains(r.err.Error(), "disk full") {
			t.Fatalf("failAt %d: outcome %v, err %v", failAt, r.outcome.Kind, r.err)
		}
		journaled := j.types()
		if ran && !slices.Contains(journaled, EventToolDecision) {
			t.Errorf("failAt %d: the tool ran although its call was not journaled", failAt)
		}
		if len(journaled) != failAt-1 {
			t.Errorf("failAt %d: journal holds %d events after the failure", failAt, len(journaled))
		}
		if diff := cmp.Diff(r.types(), hooked); diff != "" {
			t.Errorf("failAt %d: hooks (-events +hooks):\n%s", failAt, diff)
		}
		if last := r.types()[len(r.events)-2:]; !slices.Equal(last, []EventType{EventError, EventSessionCompleted}) {
			t.Errorf("failAt %d: run ended with %v", failAt, last)
		}
		checkHistory(t, c.Messages())
	}
}

// TestEventsAreJSON checks the stream-json shape of a few events.
func TestEventsAreJSON(t *testing.T) {
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "echo", `{"a":1}`)), modeltest.Text("ok"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool())})
	r := collect(t, a, context.Background(), NewConversation("s-1"), "go")
	var got []string
	for _, ev := range r.events {
		if ev.Type != EventToolCall && ev.Type != EventToolDecision && ev.Type != EventSessionCompleted {
			continue
		}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "time")
		b, _ = json.Marshal(m)
		got = append(got, string(b))
	}
	want := []string{
		`{"session_id":"s-1","step":1,"tool_call":{"args":{"a":1},"id":"1","name":"echo"},"type":"tool.call"}`,
		`{"decision":{"action":"allow","by":"default","call_id":"1","tool":"echo"},"session_id":"s-1","step":1,"type":"tool.decision"}`,
		`{"outcome":{"kind":"complete","steps":2,"text":"ok","tool_calls":1,"usage":{"input_tokens":0,"output_tokens":0}},"session_id":"s-1","step":2,"type":"session.completed"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	_ = model.Usage{}
}

// ctxJournal refuses appends whose context is done, as a store honouring
// ctx would.
type ctxJournal struct{ memJournal }

func (j *ctxJournal) Append(ctx context.Context, ev Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return j.memJournal.Append(ctx, ev)
}

// TestCancelledRunIsStillJournaled cancels a run mid-tool: the journal
// must still receive the interrupted results and the closing events.
func TestCancelledRunIsStillJournaled(t *testing.T) {
	j := &ctxJournal{}
	ctx, cancel := context.WithCancel(context.Background())
	block := newTool("block", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	})
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "block", `{}`)), modeltest.Text("never"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, block), Journal: j})
	r := collect(t, a, ctx, NewConversation(""), "go")
	if r.outcome.Kind != Cancelled {
		t.Fatalf("outcome %v, err %v", r.outcome.Kind, r.err)
	}
	if diff := cmp.Diff(r.types(), j.types()); diff != "" {
		t.Errorf("journal (-events +journal):\n%s", diff)
	}
	if res := r.ofType(EventToolResult); len(res) != 1 || res[0].ToolResult.Content != "interrupted: run cancelled" {
		t.Errorf("tool.result events = %+v", res)
	}
}

// TestJournalResultBeforeSiblingFinishes checks that a call's result is
// journaled as soon as it finishes, not when the whole turn is done: a
// crash while a slow sibling runs must not lose a result that exists (a
// resume would otherwise report the finished call as interrupted).
func TestJournalResultBeforeSiblingFinishes(t *testing.T) {
	j := &memJournal{}
	fastDone := make(chan struct{})
	var journaledFast bool
	fast := newTool("fast", func(context.Context, json.RawMessage) (*tool.Result, error) {
		defer close(fastDone)
		return &tool.Result{Content: "fast result"}, nil
	})
	slow := newTool("slow", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		<-fastDone
		// Give the fast call's goroutine time to journal, bounded.
		for range 200 {
			j.mu.Lock()
			for _, ev := range j.events {
				if ev.Type == EventToolResult && ev.ToolResult.Content == "fast result" {
					journaledFast = true
				}
			}
			j.mu.Unlock()
			if journaledFast {
				break
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
		return &tool.Result{Content: "slow result"}, nil
	})
	p := modeltest.NewScripted(modeltest.ToolCalls(call("1", "slow", `{}`), call("2", "fast", `{}`)), modeltest.Text("ok"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, slow, fast), Journal: j})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome = %+v", r.outcome)
	}
	if !journaledFast {
		t.Fatal("the fast call's result was not journaled while its slow sibling was still running")
	}
	// Hooks and the consumer still see results in call order.
	var order []string
	for _, ev := range r.events {
		if ev.Type == EventToolResult {
			order = append(order, ev.ToolResult.CallID)
		}
	}
	if diff := cmp.Diff([]string{"1", "2"}, order); diff != "" {
		t.Errorf("tool.result events (-want +got):\n%s", diff)
	}
	// The journal holds each result exactly once.
	n := 0
	for _, ev := range j.events {
		if ev.Type == EventToolResult {
			n++
		}
	}
	if n != 2 {
		t.Errorf("journal holds %d tool.result events, want 2", n)
	}
}
