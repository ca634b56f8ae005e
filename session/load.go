package session

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"iter"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// Load implements Store. It reads only the events that shape the
// conversation and the state of its tool calls.
func (s *SQLite) Load(ctx context.Context, id string) (*Snapshot, error) {
	snap, err := s.load(ctx, id)
	return snap, s.seen(err)
}

func (s *SQLite) load(ctx context.Context, id string) (*Snapshot, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	full, err := s.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.Flush(ctx, full); err != nil {
		return nil, err
	}
	info, err := s.Get(ctx, full)
	if err != nil {
		return nil, err
	}
	b, _, err := s.replay(ctx, s.db, info)
	if err != nil {
		return nil, err
	}
	snap := b.finish()
	snap.LastSeq = info.Events
	return snap, nil
}

// replay rebuilds the state of session info from its newest usable
// checkpoint and the events after it, or from every event when there is
// none; it returns the state and the link of the last event. The events
// it reads are verified against the chain and only those that shape the
// conversation are decoded.
func (s *SQLite) replay(ctx context.Context, q queryer, info Info) (*rebuilder, []byte, error) {
	ck, err := s.latestCheckpoint(ctx, q, info)
	if err != nil {
		return nil, nil, err
	}
	if ck != nil {
		b, chain, ok, err := s.fold(ctx, q, info, ck)
		if ok || err != nil {
			return b, chain, err
		}
		// The history has no event ck.seq with ck's link: the record is
		// not this history's. The events decide.
	}
	b, chain, _, err := s.fold(ctx, q, info, nil)
	return b, chain, err
}

// fold folds the events of session info into a rebuilder: those after
// ck, starting from its state, or all of them when ck is nil. ok is
// false, with no error, when the session's event ck.seq does not carry
// ck's link.
func (s *SQLite) fold(ctx context.Context, q queryer, info Info, ck *checkpoint) (b *rebuilder, chain []byte, ok bool, err error) {
	id := info.ID
	from := int64(1)
	var v chainVerifier
	b = newRebuilder(info)
	if ck != nil {
		from, b = ck.seq, ck.state
		v.seq, v.prev = ck.seq, ck.chain
	}
	rows, err := q.QueryContext(ctx, `SELECT seq, type, time, payload, chain FROM events
		WHERE session_id = ? AND seq >= ? ORDER BY seq`, id, from)
	if err != nil {
		return nil, nil, false, describe(s.path, "loading session "+id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seq, t int64
			typ    sql.RawBytes
			// RawBytes points into the driver's buffer: no copy, and
			// decoding copies what it keeps before the next row.
			payload, link sql.RawBytes
		)
		if err := rows.Scan(&seq, &typ, &t, &payload, &link); err != nil {
			return nil, nil, false, describe(s.path, "loading session "+id, err)
		}
		if ck != nil && seq <= ck.seq {
			// The checkpoint's own event: its link must be the one the
			// checkpoint was taken at.
			if seq != ck.seq || !bytes.Equal(link, ck.chain) {
				return nil, nil, false, nil
			}
			ck = nil
			continue
		}
		if ck != nil {
			return nil, nil, false, nil // no event ck.seq
		}
		if problem := v.next(seq, typ, t, payload, link); problem != "" {
			return nil, nil, false, corruptSession(s.path, id, problem)
		}
		if !stateType(string(typ)) { // compiled without a copy
			continue
		}
		ev, err := decodeState(payload)
		if err != nil {
			return nil, nil, false, corruptEvent(s.path, id, seq, err)
		}
		b.add(ev)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, false, describe(s.path, "loading session "+id, err)
	}
	if ck != nil {
		return nil, nil, false, nil // no event ck.seq
	}
	return b, v.prev, true, nil
}

// stateType reports the event types that shape a Snapshot.
func stateType(typ string) bool {
	switch agent.EventType(typ) {
	case agent.EventMessage, agent.EventToolCall, agent.EventToolDecision, agent.EventToolResult,
		agent.EventCompaction, agent.EventPlanUpdated:
		return true
	}
	return false
}

// corruptEvent reports a stored event that does not decode.
func corruptEvent(path, id string, seq int64, err error) error {
	return fmt.Errorf("%w: %s: event %d of session %s does not decode (%v); fork the session or delete it (rein sessions rm %s)",
		ErrCorrupt, path, seq, id, err, id)
}

// Events implements Store.
func (s *SQLite) Events(ctx context.Context, id string) iter.Seq2[Record, error] {
	return func(yield0 func(Record, error) bool) {
		yield := func(r Record, err error) bool { return yield0(r, s.seen(err)) }
		if err := s.checkOpen(); err != nil {
			yield(Record{}, err)
			return
		}
		full, err := s.resolve(ctx, id)
		if err == nil {
			err = s.Flush(ctx, full)
		}
		if err != nil {
			yield(Record{}, err)
			return
		}
		rows, err := s.db.QueryContext(ctx, `SELECT seq, type, time, payload, chain FROM events WHERE session_id = ? ORDER BY seq`, full)
		if err != nil {
			yield(Record{}, describe(s.path, "reading session "+full, err))
			return
		}
		defer rows.Close()
		var v chainVerifier
		for rows.Next() {
			var (
				r       Record
				typ     sql.RawBytes
				t       int64
				payload []byte
				chain   sql.RawBytes
			)
			if err := rows.Scan(&r.Seq, &typ, &t, &payload, &chain); err != nil {
				yield(Record{}, describe(s.path, "reading session "+full, err))
				return
			}
			if problem := v.next(r.Seq, typ, t, payload, chain); problem != "" {
				yield(Record{}, corruptSession(s.path, full, problem))
				return
			}
			if r.Event, err = decodeEvent(full, payload); err != nil {
				yield(Record{}, corruptEvent(s.path, full, r.Seq, err))
				return
			}
			if !yield(r, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(Record{}, describe(s.path, "reading session "+full, err))
		}
	}
}

// rebuilder folds a session's events into a Snapshot.
//
// A call's identity in the journal is the assistant message that made it
// and its id within that message, never its id alone: servers that name
// every call call_0 each turn (llama.cpp's templates do) reuse ids across
// turns, and the agent makes ids unique only within one message
// (sanitizeAssistant). The journal's order gives that identity for free —
// every tool.call, tool.decision and tool.result event follows the
// assistant message of its call and precedes the next one — so the
// rebuilder keeps the state of one message's calls at a time (a turn) and
// starts afresh at each assistant message. Stores written before this
// rule resume the same way: nothing in the schema changed.
type rebuilder struct {
	snap *Snapshot
	turn turnCalls
}

// turnCalls is the state of the calls of one assistant message.
type turnCalls struct {
	order    []model.ToolCall // started calls, in order
	started  map[string]bool
	results  map[string]model.ToolResult
	answered map[string]bool // has a result part in a tool message
	denied   map[string]bool
}

func newTurn() turnCalls {
	return turnCalls{
		started:  map[string]bool{},
		results:  map[string]model.ToolResult{},
		answered: map[string]bool{},
		denied:   map[string]bool{},
	}
}

func newRebuilder(info Info) *rebuilder {
	return &rebuilder{
		snap: &Snapshot{Info: info, Results: map[string]model.ToolResult{}, Denied: map[string]bool{}},
		turn: newTurn(),
	}
}

// add folds one event in. Events of other types are ignored, and so are
// sub-agents' events for the conversation: they go to Children instead.
func (b *rebuilder) add(ev agent.Event) {
	s := b.snap
	if ev.AgentPath != "" {
		b.addChild(ev)
		return
	}
	t := &b.turn
	switch ev.Type {
	case agent.EventMessage:
		if ev.Message == nil {
			return
		}
		s.Messages = append(s.Messages, *ev.Message)
		switch ev.Message.Role {
		case model.RoleAssistant:
			b.closeTurn()
		case model.RoleTool:
			for _, r := range ev.Message.ToolResultParts() {
				t.answered[r.CallID] = true
			}
		}
	case agent.EventToolCall:
		if c := ev.ToolCall; c != nil && !t.started[c.ID] {
			t.started[c.ID] = true
			t.order = append(t.order, *c)
			// A task call reusing an earlier turn's id starts a new
			// sub-agent tree: the old tree's calls are not this one's.
			delete(s.Children, c.ID)
		}
	case agent.EventToolDecision:
		if ev.Decision != nil && ev.Decision.Action == "deny" {
			t.denied[ev.Decision.CallID] = true
		}
	case agent.EventCompaction:
		if ev.Compaction != nil && ev.Compaction.Summary != "" {
			s.Summaries = append(s.Summaries, *ev.Compaction)
		}
	case agent.EventPlanUpdated:
		// The last plan wins; an empty one (no "plan" field) clears it.
		s.Plan = ev.Plan
	case agent.EventToolResult:
		if r := ev.ToolResult; r != nil {
			if _, dup := t.results[r.CallID]; !dup {
				s.Finished = append(s.Finished, r.CallID)
			}
			t.results[r.CallID] = *r
		}
	}
}

// closeTurn ends the current assistant message's calls: those started
// without a result are in flight (they may have run), and the next
// message's calls start from nothing.
func (b *rebuilder) closeTurn() {
	t := &b.turn
	for _, c := range t.order {
		if _, done := t.results[c.ID]; !done && !t.answered[c.ID] {
			b.snap.InFlight = append(b.snap.InFlight, c)
		}
	}
	b.turn = newTurn()
}

// finish computes the calls in flight and those the conversation still
// owes a result. Only the last assistant message can owe any: an earlier
// one was followed by its tool message (the agent records one whatever
// happened, and Resume adds it after a crash).
func (b *rebuilder) finish() *Snapshot {
	s := b.snap
	t := b.turn
	s.Started = t.started
	for _, c := range t.order {
		if _, done := t.results[c.ID]; !done && !t.answered[c.ID] {
			s.InFlight = append(s.InFlight, c)
		}
	}
	if n := len(s.Messages); n > 0 && s.Messages[n-1].Role == model.RoleAssistant {
		for _, c := range s.Messages[n-1].ToolCalls() {
			if t.answered[c.ID] {
				continue
			}
			s.Unanswered = append(s.Unanswered, c)
			if r, ok := t.results[c.ID]; ok {
				s.Results[c.ID] = r
			}
			if t.denied[c.ID] {
				s.Denied[c.ID] = true
			}
		}
	}
	return s
}
