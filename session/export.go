package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/internal/textclip"
)

// Export reads session id (or a unique prefix of it) from the database at
// path without Open's refusal of a damaged store, and without writing to
// the file or its -wal and -shm: it is the way to save what is readable
// before a damaged store is moved aside. Each event that verifies (chain.go)
// is passed to emit in order; at the first one that does not, or where the
// history ends short of its head, Export stops and returns ErrCorrupt
// saying how many events were saved. It returns the number of events
// emitted. It is safe to call while other processes use the store.
func Export(ctx context.Context, path, id string, emit func(Record) error) (int64, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrNotFound, path, err)
	}
	if err := checkHeader(path); err != nil {
		return 0, err
	}
	// The heads before the copy (see examineOnce): read after it, a live
	// writer's newer head would pass for lost events.
	heads, _ := readHeadFiles(path)
	dsn, cleanup, err := examineDSN(path, DefaultBusyTimeout, true)
	if err != nil {
		return 0, describe(path, "reading the session database", err)
	}
	defer cleanup()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return 0, describe(path, "reading the session database", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	version, err := readVersion(ctx, db)
	if err != nil {
		return 0, unreadable(path, id, err)
	}
	full, err := exportID(ctx, db, path, id)
	if err != nil {
		return 0, unreadable(path, id, err)
	}
	n, err := exportEvents(ctx, db, path, full, version >= chainVersion, emit)
	if err != nil {
		return n, err
	}
	// The head: events committed durably that the file no longer holds.
	if store, err := readStoreID(ctx, db); err == nil {
		if h := heads.of(store)[full]; h.seq > n {
			return n, exportDamage(path, full, fmt.Sprintf("ends at event %d but %d of its events were committed", n, h.seq), n)
		}
	}
	return n, nil
}

// exportID resolves id, exactly or as a unique prefix.
func exportID(ctx context.Context, db *sql.DB, path, id string) (string, error) {
	if err := validID(id); err != nil || id == "" {
		return "", fmt.Errorf("%w: %q is not a session id; rein sessions list shows them", ErrNotFound, id)
	}
	pattern := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(id) + "%"
	rows, err := db.QueryContext(ctx, `SELECT id FROM sessions WHERE id = ? OR id LIKE ? ESCAPE '\' LIMIT 3`, id, pattern)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return "", err
		}
		if m == id {
			return m, nil
		}
		ids = append(ids, m)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", notFound(id)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%w: %q matches %s and others; give more of the id", ErrAmbiguous, id, ids[0])
}

// exportEvents emits the session's events up to the first that does not
// verify or decode.
func exportEvents(ctx context.Context, db *sql.DB, path, id string, chained bool, emit func(Record) error) (int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT seq, type, time, payload, chain FROM events WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return 0, examineError(path, err)
	}
	defer rows.Close()
	var (
		v chainVerifier
		n int64
	)
	for rows.Next() {
		var (
			seq, t         int64
			typ            sql.RawBytes
			payload, chain []byte
		)
		if err := rows.Scan(&seq, &typ, &t, &payload, &chain); err != nil {
			return n, exportDamage(path, id, "could not be read further ("+secret.Redact(textclip.OneLine(err.Error()))+")", n)
		}
		if chained {
			if problem := v.next(seq, typ, t, payload, chain); problem != "" {
				return n, exportDamage(path, id, problem, n)
			}
		}
		ev, err := decodeEvent(id, payload)
		if err != nil {
			return n, exportDamage(path, id, fmt.Sprintf("has an event %d that does not decode (%v)", seq, err), n)
		}
		if err := emit(Record{Seq: seq, Event: ev}); err != nil {
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, exportDamage(path, id, "could not be read further ("+secret.Redact(textclip.OneLine(err.Error()))+")", n)
	}
	return n, nil
}

// unreadable is an export that could not begin: a store too damaged to
// find the session in says so in export's terms; not found, ambiguous and
// cancellation pass.
func unreadable(path, id string, err error) error {
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrAmbiguous) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return exportDamage(path, id, "could not be read ("+secret.Redact(textclip.OneLine(err.Error()))+")", 0)
}

// exportDamage is ErrCorrupt for an export that stopped at damage, saying
// how much it saved.
func exportDamage(path, id, problem string, n int64) error {
	return fmt.Errorf("%w: %s: session %s %s; the %d events before it were exported (the file was not changed)",
		ErrCorrupt, path, id, problem, n)
}
