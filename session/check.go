package session

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/reinharness/rein/internal/textclip"
)

// What Open checks before it writes (preflight, on a read-only connection
// that does not even write SQLite's shared-memory file):
//
//   - always: the header, the schema and its version, and every
//     session's head (chain.go): a session whose journal committed more
//     than the database holds lost acknowledged events. One indexed
//     lookup per session.
//   - when the last shutdown was not clean (marker.go: a crash, a power
//     cut, another program touched the file, or another rein has it open
//     now): SQLite's quick_check and every session's event chain, which
//     read the whole file.
//
// A file that fails any check is refused with ErrCorrupt and not opened
// for writing.

// examineDSN returns a connection string that reads path without writing
// to it or its -wal and -shm (a plain mode=ro open creates both and leaves
// them behind): without a WAL the main file is all there is, opened
// immutable (no locks, no -shm); with a WAL and its -shm, readonly_shm
// makes SQLite read the index without writing it. A WAL without a -shm
// cannot be read without writing one, and a -shm a crash left can make a
// read-only reader fail ("locking protocol"): with copy set, or with no
// -shm, the database and its WAL are examined as a copy, which SQLite
// indexes afresh; cleanup removes it.
func examineDSN(path string, busy time.Duration, copied bool) (dsn string, cleanup func(), err error) {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	cleanup = func() {}
	wal, werr := os.Stat(path + "-wal")
	_, serr := os.Stat(path + "-shm")
	switch {
	case errors.Is(werr, fs.ErrNotExist) || werr == nil && wal.Size() == 0 && errors.Is(serr, fs.ErrNotExist):
		q.Set("immutable", "1")
	case werr != nil:
		return "", nil, werr
	case serr == nil && !copied:
		q.Set("readonly_shm", "1")
	case serr == nil || errors.Is(serr, fs.ErrNotExist):
		dir, err := os.MkdirTemp("", "rein-examine-")
		if err != nil {
			return "", nil, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		// The WAL first: a checkpoint by a live writer between the two
		// copies then finds its frames in both, never in neither.
		copyPath := filepath.Join(dir, filepath.Base(path))
		err = copyFile(path+"-wal", copyPath+"-wal")
		if err == nil {
			err = copyFile(path, copyPath)
		}
		if err != nil {
			cleanup()
			return "", nil, err
		}
		path = copyPath
		q.Del("mode") // the copy's WAL index is written to the copy
	default:
		return "", nil, serr
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode(), cleanup, nil
}

// copyFile copies src to a new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// quickCheck runs SQLite's quick_check over the file (the b-trees and
// their pages are well formed) and the full integrity_check over the small
// tables whose indexes the commands look sessions up by: a damaged index
// page can hide a session from a lookup while a scan still lists it,
// which quick_check does not compare.
func quickCheck(ctx context.Context, path string, db *sql.DB, version int) error {
	if err := pragmaCheck(ctx, path, db, `PRAGMA quick_check(3)`); err != nil {
		return err
	}
	var tables []string // none in a store not yet created
	if version >= 1 {
		tables = append(tables, "sessions")
	}
	if version >= 2 {
		tables = append(tables, "images", "undone")
	}
	for _, table := range tables {
		if err := pragmaCheck(ctx, path, db, `PRAGMA integrity_check(`+table+`)`); err != nil {
			return err
		}
	}
	return nil
}

// pragmaCheck runs a check pragma and refuses the file on any line but
// "ok".
func pragmaCheck(ctx context.Context, path string, db *sql.DB, pragma string) error {
	rows, err := db.QueryContext(ctx, pragma)
	if err != nil {
		return examineError(path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return examineError(path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return examineError(path, err)
	}
	if len(problems) > 0 {
		return corruptError(path, "SQLite's quick_check: "+textclip.OneLine(strings.Join(problems, "; ")))
	}
	return nil
}

// chainVerifier checks one session's events in order: numbered from 1
// without gaps, each with the link its predecessor and content give.
type chainVerifier struct {
	seq  int64
	prev []byte
	l    linker
	want []byte
}

// next checks the event seq with its stored link; it says what is wrong
// in words that follow "session ID". chain may be the driver's buffer: it
// is copied.
func (v *chainVerifier) next(seq int64, typ []byte, t int64, payload, chain []byte) string {
	switch {
	case seq != v.seq+1:
		return fmt.Sprintf("is missing events %d to %d of its history", v.seq+1, seq-1)
	case len(chain) != chainSize:
		return fmt.Sprintf("has no chain link at event %d", seq)
	}
	v.want = v.l.link(v.want[:0], v.prev, seq, typ, t, payload)
	if !bytes.Equal(v.want, chain) {
		return fmt.Sprintf("has a damaged event %d (it does not match its chain link)", seq)
	}
	v.seq, v.prev = seq, append(v.prev[:0], chain...)
	return ""
}

// checkChains verifies every session's event chain.
func checkChains(ctx context.Context, path string, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT session_id, seq, type, time, payload, chain FROM events ORDER BY session_id, seq`)
	if err != nil {
		return examineError(path, err)
	}
	defer rows.Close()
	var (
		v    chainVerifier
		last string
	)
	for rows.Next() {
		var (
			id             string
			seq, t         int64
			typ            sql.RawBytes
			payload, chain sql.RawBytes
		)
		if err := rows.Scan(&id, &seq, &typ, &t, &payload, &chain); err != nil {
			return examineError(path, err)
		}
		if id != last {
			v, last = chainVerifier{}, id
		}
		if problem := v.next(seq, typ, t, payload, chain); problem != "" {
			return corruptSession(path, id, problem)
		}
	}
	return examineError(path, rows.Err())
}

// checkHeads compares every session's head (its last durable event as
// its journal recorded it) with the database.
func checkHeads(ctx context.Context, path string, db *sql.DB, heads map[string]head) error {
	for id, h := range heads {
		var chain []byte
		err := db.QueryRowContext(ctx, `SELECT chain FROM events WHERE session_id = ? AND seq = ?`, id, h.seq).Scan(&chain)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			var last int64
			var rows int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, id).Scan(&rows); err != nil {
				return examineError(path, err)
			}
			if rows == 0 {
				return corruptSession(path, id, fmt.Sprintf("is missing from the store although %d of its events were committed", h.seq))
			}
			if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = ?`, id).Scan(&last); err != nil {
				return examineError(path, err)
			}
			return corruptSession(path, id, fmt.Sprintf("ends at event %d but %d of its events were committed: the latest were lost (a damaged WAL or data page)", last, h.seq))
		case err != nil:
			return examineError(path, err)
		case !bytes.Equal(chain, h.chain):
			return corruptSession(path, id, fmt.Sprintf("has another event %d than the one committed", h.seq))
		}
	}
	return nil
}

// readStoreID returns the store's id.
func readStoreID(ctx context.Context, q queryer) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, `SELECT id FROM store`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) || err == nil && validID(id) != nil {
		return "", errors.New("the store table has no usable id")
	}
	return id, err
}
