package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// A checkpoint is the rebuilder's state (see load.go) as of event seq of
// a session, so that Load decodes one record and replays only the events
// after it instead of every event since the first. It is derived data:
// the events stay the record, and a checkpoint that fails any check is
// ignored and the session replayed in full.
//
// A record is
//
//	magic ‖ uvarint(seq) ‖ chain(seq) ‖ uvarint(len(meta)) ‖ meta ‖ messages ‖ SHA-256(all before)
//
// The digest catches a damaged or truncated record; the chain link binds
// it to one history — Load uses it only when the stored event seq carries
// that link, so a record of another history (another session's, or one
// this session no longer has) is never trusted. The chain does not name
// the session, so a fork shares its parent's checkpoints as it shares
// its events. meta is JSON (the small parts of the state); the messages,
// nearly all of its bytes, are in the binary form of encodeMessages,
// which decodes 4-15 times faster than json/v2 decodes them as JSON.

// checkpointMagic starts every record. Its last byte is the version of
// the rules the rebuilder folds events by: a change to what a Snapshot
// holds or how it is derived must bump it, so that records written by
// the old rules are ignored rather than resumed from.
const checkpointMagic = "rein-ckpt\x00\x01"

// DefaultCheckpointEvery is how many events a journal commits between two
// checkpoints unless Config.CheckpointEvery says otherwise.
const DefaultCheckpointEvery = 4096

// checkpointMeta is the state of a rebuilder apart from its messages.
type checkpointMeta struct {
	Finished  []string                    `json:"finished"`
	InFlight  []model.ToolCall            `json:"in_flight"`
	Summaries []agent.CompactionInfo      `json:"summaries"`
	Plan      []agent.PlanItem            `json:"plan"`
	Children  map[string][]ChildCall      `json:"children"`
	Order     []model.ToolCall            `json:"order"`
	Started   map[string]bool             `json:"started"`
	Results   map[string]model.ToolResult `json:"results"`
	Answered  map[string]bool             `json:"answered"`
	Denied    map[string]bool             `json:"denied"`
}

// checkpoint is a decoded record.
type checkpoint struct {
	seq   int64
	chain []byte
	state *rebuilder
}

// errCheckpoint is a record that does not decode or verify.
var errCheckpoint = errors.New("unusable checkpoint")

// encodeCheckpoint encodes b's state as of event seq, whose link is chain.
func encodeCheckpoint(b *rebuilder, seq int64, chain []byte) ([]byte, error) {
	s, t := b.snap, b.turn
	meta := checkpointMeta{
		Finished: s.Finished, InFlight: s.InFlight, Summaries: s.Summaries, Plan: s.Plan, Children: s.Children,
		Order: t.order, Started: t.started, Results: t.results, Answered: t.answered, Denied: t.denied,
	}
	var mb bytes.Buffer
	enc := json.NewEncoder(&mb)
	enc.SetEscapeHTML(false) // as encodeEvent: the bytes the events held
	if err := enc.Encode(meta); err != nil {
		return nil, fmt.Errorf("encoding a checkpoint: %w", err)
	}
	out := make([]byte, 0, 4096+mb.Len())
	out = append(out, checkpointMagic...)
	out = binary.AppendUvarint(out, uint64(seq))
	out = append(out, chain...)
	out = binary.AppendUvarint(out, uint64(mb.Len()))
	out = append(out, mb.Bytes()...)
	out = encodeMessages(out, s.Messages)
	sum := sha256.Sum256(out)
	return append(out, sum[:]...), nil
}

// decodeCheckpoint decodes and verifies a record; the state it returns
// belongs to a session with info. Any fault is errCheckpoint: the caller
// replays the session instead.
func decodeCheckpoint(data []byte, info Info) (*checkpoint, error) {
	if len(data) < len(checkpointMagic)+sha256.Size || string(data[:len(checkpointMagic)]) != checkpointMagic {
		return nil, errCheckpoint
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if want := sha256.Sum256(body); !bytes.Equal(want[:], sum) {
		return nil, errCheckpoint
	}
	r := reader{b: body[len(checkpointMagic):]}
	seq := r.uvarint()
	chain := r.bytes(chainSize)
	meta := r.bytes(r.uvarint())
	if r.err != nil || seq < 1 || seq > 1<<62 {
		return nil, errCheckpoint
	}
	var m checkpointMeta
	if err := jsonv2.Unmarshal(meta, &m, decodeOptions); err != nil {
		return nil, errCheckpoint
	}
	msgs, err := decodeMessages(r.b)
	if err != nil {
		return nil, errCheckpoint
	}
	b := newRebuilder(info)
	b.snap.Messages, b.snap.Finished, b.snap.InFlight = msgs, m.Finished, m.InFlight
	b.snap.Summaries, b.snap.Plan, b.snap.Children = m.Summaries, m.Plan, m.Children
	b.turn = turnCalls{order: m.Order, started: orEmpty(m.Started), results: orEmpty(m.Results),
		answered: orEmpty(m.Answered), denied: orEmpty(m.Denied)}
	return &checkpoint{seq: int64(seq), chain: append([]byte(nil), chain...), state: b}, nil
}

// orEmpty makes a nil map an empty one, as newTurn starts them.
func orEmpty[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

// latestCheckpoint returns the newest checkpoint of session info that
// decodes and verifies, or nil. A verified checkpoint past the session's
// last event proves the store lost events it once held (the record is
// written after them, and only Delete removes either): that is refused
// like a session shorter than its head.
func (s *SQLite) latestCheckpoint(ctx context.Context, q queryer, info Info) (*checkpoint, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, data FROM checkpoints WHERE session_id = ? ORDER BY seq DESC LIMIT 1`, info.ID)
	if err != nil {
		return nil, describe(s.path, "loading session "+info.ID, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, describe(s.path, "loading session "+info.ID, rows.Err())
	}
	var (
		seq int64
		// The record is decoded before the next row, and decodeMessages
		// copies what it keeps: RawBytes spares a copy of megabytes.
		data sql.RawBytes
	)
	if err := rows.Scan(&seq, &data); err != nil {
		return nil, describe(s.path, "loading session "+info.ID, err)
	}
	ck, err := decodeCheckpoint(data, info)
	if err != nil || ck.seq != seq {
		return nil, nil
	}
	if ck.seq > info.Events {
		return nil, corruptSession(s.path, info.ID, fmt.Sprintf("ends at event %d but was checkpointed at event %d: the latest events were lost (a damaged WAL or data page)", info.Events, ck.seq))
	}
	return ck, nil
}

// writeCheckpoint records the state of session id as of its last event,
// seq with link chain, read on conn (the journal's, whose lock keeps
// other writers out), and drops the older checkpoints. It replays from the
// previous checkpoint, so it costs about what a resume does.
func (s *SQLite) writeCheckpoint(ctx context.Context, conn *sql.Conn, id string, seq int64, chain []byte) error {
	info := Info{ID: id, Events: seq}
	b, last, err := s.replay(ctx, conn, info)
	if err != nil {
		return err
	}
	if !bytes.Equal(last, chain) {
		return fmt.Errorf("session: %s changed while it was checkpointed", id)
	}
	data, err := encodeCheckpoint(b, seq, chain)
	if err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO checkpoints (session_id, seq, data) VALUES (?, ?, ?)`, id, seq, data); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE session_id = ? AND seq < ?`, id, seq); err != nil {
		return err
	}
	return tx.Commit()
}
