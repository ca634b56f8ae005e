package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"

	"github.com/reinharness/rein/model"
)

// ErrScriptExhausted is returned (wrapped) by a Scripted provider asked for
// more turns than its script holds.
var ErrScriptExhausted = errors.New("scripted provider ran out of turns")

// Turn is one scripted model answer: the events one Stream call yields, or
// an error it fails with. Build turns with Text, ToolCalls, Events, Fail and
// Hang; the zero Turn yields nothing and therefore an incomplete stream.
type Turn struct {
	events []model.Event
	// err, when set, is yielded after events.
	err error
	// hang makes the turn block until the request's context ends.
	hang bool
}

// Text returns a turn that answers with the text s and stops with end_turn.
func Text(s string) Turn {
	return Turn{events: []model.Event{
		{Kind: model.EventTextDelta, Text: s},
		{Kind: model.EventStop, StopReason: model.StopEndTurn},
	}}
}

// ToolCalls returns a turn that requests the given tool calls and stops with
// tool_use. Calls with nil Args get "{}" so that every call carries the
// complete JSON object providers guarantee.
func ToolCalls(calls ...model.ToolCall) Turn {
	evs := make([]model.Event, 0, len(calls)+1)
	for _, c := range calls {
		if c.Args == nil {
			c.Args = json.RawMessage(`{}`)
		}
		evs = append(evs, model.Event{Kind: model.EventToolCall, ToolCall: &c})
	}
	evs = append(evs, model.Event{Kind: model.EventStop, StopReason: model.StopToolUse})
	return Turn{events: evs}
}

// Events returns a turn that yields evs verbatim. No stop event is added, so
// a script can model streams that end early.
func Events(evs ...model.Event) Turn {
	return Turn{events: slices.Clone(evs)}
}

// Fail returns a turn whose stream fails at once with err, as a provider
// does after its own retries gave up.
func Fail(err error) Turn { return Turn{err: err} }

// Hang returns a turn whose stream yields nothing until the request's
// context ends, then fails with the context's error: a model that never
// answers, for deadline and cancellation tests.
func Hang() Turn { return Turn{hang: true} }

// WithUsage returns a copy of t that reports u just before its stop event
// (or at the end when it has none).
func (t Turn) WithUsage(u model.Usage) Turn {
	ev := model.Event{Kind: model.EventUsage, Usage: &u}
	evs := slices.Clone(t.events)
	at := len(evs)
	if at > 0 && evs[at-1].Kind == model.EventStop {
		at--
	}
	t.events = slices.Insert(evs, at, ev)
	return t
}

// ThenFail returns a copy of t that yields err after its events, dropping
// its stop event: a stream that broke part-way.
func (t Turn) ThenFail(err error) Turn {
	evs := slices.Clone(t.events)
	if n := len(evs); n > 0 && evs[n-1].Kind == model.EventStop {
		evs = evs[:n-1]
	}
	t.events = evs
	t.err = err
	return t
}

// Scripted is a model.Provider that plays a script of turns, one per Stream
// call, and records the requests it received. It is safe for concurrent use:
// concurrent Stream calls take successive turns.
type Scripted struct {
	mu       sync.Mutex
	turns    []Turn
	next     int
	calls    int
	repeat   bool
	noRecord bool
	window   int
	requests []*model.Request
}

// NewScripted returns a provider that plays turns in order.
func NewScripted(turns ...Turn) *Scripted {
	return &Scripted{turns: slices.Clone(turns)}
}

// Add appends turns to the script.
func (s *Scripted) Add(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Repeat makes the script start over after its last turn instead of failing,
// so benchmarks can run it any number of times. It returns s.
func (s *Scripted) Repeat() *Scripted {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repeat = true
	return s
}

// WithoutRecording stops Requests from keeping copies of requests. Recording
// deep-copies the whole history on every call, which would dominate a
// benchmark of the agent loop. It returns s.
func (s *Scripted) WithoutRecording() *Scripted {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noRecord = true
	return s
}

// WithContextWindow makes ContextWindow report n tokens. It returns s.
func (s *Scripted) WithContextWindow(n int) *Scripted {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.window = n
	return s
}

// ContextWindow implements model.ContextWindower: it reports the size set
// with WithContextWindow, or 0 (unknown).
func (s *Scripted) ContextWindow(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.window, nil
}

// Requests returns deep copies of the requests received so far, in the
// order the Stream calls were made.
func (s *Scripted) Requests() []*model.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*model.Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = scriptCloneRequest(r)
	}
	return out
}

// Calls returns how many Stream calls were made.
func (s *Scripted) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Remaining returns how many turns are left before the script runs out
// (always the script length once Repeat was called and it wrapped).
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) - s.next
}

// take records req and claims the next turn.
func (s *Scripted) take(req *model.Request) (Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if !s.noRecord {
		s.requests = append(s.requests, scriptCloneRequest(req))
	}
	if s.next >= len(s.turns) && s.repeat && len(s.turns) > 0 {
		s.next = 0
	}
	if s.next >= len(s.turns) {
		return Turn{}, fmt.Errorf("modeltest: call %d has no scripted turn (the script holds %d); add turns to the script: %w",
			s.calls, len(s.turns), ErrScriptExhausted)
	}
	t := s.turns[s.next]
	s.next++
	return t, nil
}

// Stream implements model.Provider. It yields the next turn's events,
// stopping early with the context's error once ctx is done.
func (s *Scripted) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		t, err := s.take(req)
		if err != nil {
			yield(model.Event{}, err)
			return
		}
		for _, ev := range t.events {
			if ctx.Err() != nil {
				yield(model.Event{}, ctx.Err())
				return
			}
			if !yield(scriptCloneEvent(ev), nil) {
				return
			}
		}
		if t.hang {
			<-ctx.Done()
			yield(model.Event{}, ctx.Err())
			return
		}
		if t.err != nil {
			yield(model.Event{}, t.err)
		}
	}
}

// scriptCloneEvent copies the pointed-to parts of ev so that a consumer
// that keeps or changes them cannot alter the script when it repeats.
func scriptCloneEvent(ev model.Event) model.Event {
	if ev.ToolCall != nil {
		c := *ev.ToolCall
		c.Args = slices.Clone(c.Args)
		ev.ToolCall = &c
	}
	if ev.Usage != nil {
		u := *ev.Usage
		ev.Usage = &u
	}
	return ev
}

// scriptCloneRequest deep-copies r, so recorded requests do not change when
// the caller reuses or appends to its history. Extra is copied one level
// deep: its values are treated as immutable.
func scriptCloneRequest(r *model.Request) *model.Request {
	if r == nil {
		return nil
	}
	c := *r
	c.Messages = make([]model.Message, len(r.Messages))
	for i, m := range r.Messages {
		c.Messages[i] = scriptCloneMessage(m)
	}
	if r.Tools != nil {
		c.Tools = make([]model.ToolSpec, len(r.Tools))
		for i, t := range r.Tools {
			t.InputSchema = slices.Clone(t.InputSchema)
			c.Tools[i] = t
		}
	}
	c.Stop = slices.Clone(r.Stop)
	c.ResponseFormat = slices.Clone(r.ResponseFormat)
	c.Extra = maps.Clone(r.Extra)
	if r.Temperature != nil {
		v := *r.Temperature
		c.Temperature = &v
	}
	if r.TopP != nil {
		v := *r.TopP
		c.TopP = &v
	}
	if r.Seed != nil {
		v := *r.Seed
		c.Seed = &v
	}
	return &c
}

func scriptCloneMessage(m model.Message) model.Message {
	parts := make([]model.Part, len(m.Parts))
	for i, p := range m.Parts {
		if p.ToolCall != nil {
			tc := *p.ToolCall
			tc.Args = slices.Clone(tc.Args)
			p.ToolCall = &tc
		}
		if p.ToolResult != nil {
			tr := *p.ToolResult
			p.ToolResult = &tr
		}
		parts[i] = p
	}
	return model.Message{Role: m.Role, Parts: parts}
}
