package session

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations[i] takes the schema from version i to version i+1. Entries
// are append-only: a released migration is never edited, a change is a
// new entry. SchemaVersion is len(migrations).
var migrations = []string{
	// 1: sessions, their events and the version table.
	`CREATE TABLE schema_version (version INTEGER NOT NULL);
	INSERT INTO schema_version (version) VALUES (0);
	CREATE TABLE sessions (
		id            TEXT PRIMARY KEY,
		workspace     TEXT NOT NULL,
		created       INTEGER NOT NULL, -- unix nanoseconds
		updated       INTEGER NOT NULL,
		title         TEXT NOT NULL DEFAULT '',
		model         TEXT NOT NULL DEFAULT '',
		parent_id     TEXT,
		status        TEXT NOT NULL DEFAULT 'new',
		input_tokens  INTEGER NOT NULL DEFAULT 0,
		output_tokens INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX sessions_updated ON sessions (updated DESC);
	CREATE INDEX sessions_workspace ON sessions (workspace, updated DESC);
	CREATE TABLE events (
		session_id      TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
		seq             INTEGER NOT NULL,
		type            TEXT NOT NULL,
		time            INTEGER NOT NULL, -- unix nanoseconds
		payload         BLOB NOT NULL,    -- the redacted agent.Event as JSON
		idempotency_key TEXT,
		call_id         TEXT,
		PRIMARY KEY (session_id, seq)
	) WITHOUT ROWID;`,
	// 2: content-addressed before-images of changed files, shared between
	// sessions, and the tool calls whose changes were undone.
	`CREATE TABLE blobs (
		hash TEXT PRIMARY KEY, -- hex SHA-256 of data
		data BLOB NOT NULL
	);
	CREATE TABLE images (
		session_id TEXT NOT NULL,
		hash       TEXT NOT NULL,
		size       INTEGER NOT NULL,
		PRIMARY KEY (session_id, hash)
	) WITHOUT ROWID;
	CREATE INDEX images_hash ON images (hash);
	CREATE TABLE undone (
		session_id TEXT NOT NULL,
		call_key   TEXT NOT NULL,
		time       INTEGER NOT NULL, -- unix nanoseconds
		PRIMARY KEY (session_id, call_key)
	) WITHOUT ROWID;`,
	// 3: every event's link of its session's event chain (chain.go), and
	// the store's own id, which the head files outside the database name.
	// migrate fills both for the events stored before.
	`ALTER TABLE events ADD COLUMN chain BLOB;
	CREATE TABLE store (id TEXT NOT NULL);`,
	// 4: checkpoints of the state Load rebuilds (checkpoint.go), derived
	// from the events and verified against their chain before use.
	`CREATE TABLE checkpoints (
		session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
		seq        INTEGER NOT NULL,
		data       BLOB NOT NULL,
		PRIMARY KEY (session_id, seq)
	); -- not WITHOUT ROWID: a record is large`,
}

// chainVersion is the first schema version with event chains.
const chainVersion = 3

// SchemaVersion is the schema version this build writes and understands.
// A database with a higher version is refused untouched.
var SchemaVersion = len(migrations)

// migrate brings the schema up to SchemaVersion in one transaction. The
// version is read again under the write lock, so two processes opening a
// new store at once migrate it once.
func migrate(ctx context.Context, db *sql.DB, path string) (err error) {
	tx, err := db.BeginTx(ctx, nil) // _txlock=immediate: the write lock now
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	v, err := readVersion(ctx, tx)
	if err != nil {
		return err
	}
	if v > SchemaVersion {
		return errNewer(v)
	}
	for ; v < SchemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrating the schema to version %d: %w", v+1, err)
		}
		if v+1 == chainVersion {
			if err := removeHeads(path); err != nil {
				return fmt.Errorf("removing the heads of an earlier store: %w", err)
			}
			if err := startChains(ctx, tx); err != nil {
				return fmt.Errorf("migrating the schema to version %d: %w", v+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, v+1); err != nil {
			return fmt.Errorf("recording schema version %d: %w", v+1, err)
		}
	}
	return tx.Commit()
}

// startChains gives the store its id and links the events stored before
// schema version 3 into their sessions' chains.
func startChains(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO store (id) VALUES (?)`, NewID()); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT session_id, seq, type, time, payload FROM events ORDER BY session_id, seq`)
	if err != nil {
		return err
	}
	type linked struct {
		session string
		seq     int64
		chain   []byte
	}
	var (
		links []linked
		prev  []byte
		last  string
	)
	for rows.Next() {
		var (
			l       linked
			typ     string
			t       int64
			payload []byte
		)
		if err := rows.Scan(&l.session, &l.seq, &typ, &t, &payload); err != nil {
			rows.Close()
			return err
		}
		if l.session != last {
			prev, last = nil, l.session
		}
		l.chain = link(prev, l.seq, typ, t, payload)
		prev = l.chain
		links = append(links, l)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	st, err := tx.PrepareContext(ctx, `UPDATE events SET chain = ? WHERE session_id = ? AND seq = ?`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, l := range links {
		if _, err := st.ExecContext(ctx, l.chain, l.session, l.seq); err != nil {
			return err
		}
	}
	return nil
}

// queryer is what readVersion needs from a *sql.DB or *sql.Tx.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readVersion returns the schema version: 0 for an empty database,
// errForeign for a database holding tables that are not a session store.
func readVersion(ctx context.Context, q queryer) (int, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return 0, err
	}
	tables := 0
	hasVersion := false
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return 0, err
		}
		tables++
		hasVersion = hasVersion || name == "schema_version"
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	switch {
	case tables == 0:
		return 0, nil
	case !hasVersion:
		return 0, errForeign
	}
	var v int
	if err := q.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil {
		if err == sql.ErrNoRows {
			return 0, errForeign
		}
		return 0, err
	}
	return v, nil
}
