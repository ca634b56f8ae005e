package session

import (
	"context"
	"database/sql"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/telemetry/redact"
)

// DeleteRow deletes a session row directly, as another process could,
// for tests of the journal's conflict detection.
func DeleteRow(s *SQLite, id string) error {
	_, err := s.db.ExecContext(context.Background(), `DELETE FROM sessions WHERE id = ?`, id)
	return err
}

// Exec runs a statement on the store's database, for tests that set up
// states the API never produces (a newer schema version).
func Exec(s *SQLite, query string, args ...any) error {
	_, err := s.db.ExecContext(context.Background(), query, args...)
	return err
}

// Rebuild decodes stored payloads as Load does and folds them into a
// Snapshot, for the fuzz target of the decoder and the rebuild.
func Rebuild(payloads [][]byte) (*Snapshot, error) {
	b := newRebuilder(Info{ID: "fuzz"})
	for i, p := range payloads {
		ev, err := decodeState(p)
		if err != nil {
			return nil, corruptEvent("fuzz.db", "fuzz", int64(i+1), err)
		}
		b.add(ev)
	}
	return b.finish(), nil
}

// QueryInt reads one integer from the store's database, for tests.
func QueryInt(s *SQLite, query string, dst *int) error {
	return s.db.QueryRowContext(context.Background(), query).Scan(dst)
}

// CreateLegacy makes a store at path as schema version v of this package
// made it (the migrations are append-only, so the first v of them are
// exactly what that version ran), for tests of the migration.
func CreateLegacy(path string, v int) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_journal_mode=WAL&_txlock=immediate")
	if err != nil {
		return err
	}
	defer db.Close()
	for i := 0; i < v; i++ {
		if _, err := db.Exec(migrations[i]); err != nil {
			return err
		}
	}
	_, err = db.Exec(`UPDATE schema_version SET version = ?`, v)
	return err
}

// InsertLegacy appends events to a legacy store as the journal of schema
// version 2 did: no chain column.
func InsertLegacy(path, id, workspace string, evs []agent.Event) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO sessions (id, workspace, created, updated, status) VALUES (?, ?, 1, 1, 'running')`, id, workspace); err != nil {
		return err
	}
	var memo redact.Memo
	for i, ev := range evs {
		e, err := encodeEvent(&memo, ev)
		if err != nil {
			return err
		}
		if _, err := db.Exec(`INSERT INTO events (session_id, seq, type, time, payload, idempotency_key, call_id) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			id, i+1, e.typ, e.time, e.payload, nullable(e.idem), nullable(e.callID)); err != nil {
			return err
		}
	}
	return nil
}

// ParseHead and HeadLine expose the head file's codec to its fuzz target.
func ParseHead(data []byte) (string, int64, []byte, error) {
	store, h, err := parseHead(data)
	return store, h.seq, h.chain, err
}

func HeadLine(store string, seq int64, chain []byte) []byte {
	return headLine(store, head{seq: seq, chain: chain})
}

// CheckpointUsed reports the event of the checkpoint Load of session id
// would resume from, 0 for none (there is none, or it fails a check).
func CheckpointUsed(s *SQLite, id string) (int64, error) {
	ctx := context.Background()
	info, err := s.Get(ctx, id)
	if err != nil {
		return 0, err
	}
	ck, err := s.latestCheckpoint(ctx, s.db, info)
	if err != nil || ck == nil {
		return 0, err
	}
	seq := ck.seq
	if _, _, ok, err := s.fold(ctx, s.db, info, ck); !ok || err != nil {
		return 0, err
	}
	return seq, nil
}
