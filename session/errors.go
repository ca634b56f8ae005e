package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/reinharness/rein/internal/secret"
)

// errForeign marks a SQLite database that holds tables but no session
// schema: someone else's file. It is reported as ErrCorrupt.
var errForeign = errors.New("it is a SQLite database but not a rein session store")

// newerSchema is a database version above SchemaVersion.
type newerSchema struct{ version int }

func (e *newerSchema) Error() string {
	return fmt.Sprintf("schema version %d, this rein understands up to %d", e.version, SchemaVersion)
}

func errNewer(v int) error { return &newerSchema{version: v} }

// describe turns a database error into one line naming the file, the cause
// and the fix, wrapping the sentinel that says which it is. ctx errors pass
// through unchanged, so callers can still test for cancellation.
func describe(path, op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrNotFound) || errors.Is(err, ErrAmbiguous) ||
		errors.Is(err, ErrConcurrentWriter) || errors.Is(err, ErrClosed) ||
		errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNewerSchema) || errors.Is(err, ErrLocked) {
		return err
	}
	var ns *newerSchema
	if errors.As(err, &ns) {
		return fmt.Errorf("%w: %s has %v; upgrade rein to use it (the file was not changed)", ErrNewerSchema, path, ns)
	}
	if errors.Is(err, errForeign) {
		return fmt.Errorf("%w: %s: %v; move it aside or pass --state-dir (the file was not changed)", ErrCorrupt, path, err)
	}
	cause := secret.Redact(err.Error())
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return corruptError(path, cause)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w: %s: %s stayed locked by another process past the busy timeout; wait for the other rein to finish or pass --state-dir", ErrLocked, op, path)
		case sqlite3.SQLITE_FULL:
			return fmt.Errorf("%s: %s: the disk is full; free space and resume the session", op, path)
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
			return fmt.Errorf("%s: %s cannot be opened for writing (%s); check its permissions or pass --state-dir", op, path, cause)
		}
	}
	return fmt.Errorf("%s: %s: %s", op, path, cause)
}

// corruptError is ErrCorrupt for path with the fix. When the damaged file
// is a session store whose sessions are known from their head files, the
// message names them and how to save what is readable of each.
func corruptError(path, cause string) error {
	ids := headIDs(path, 3)
	if len(ids) == 0 {
		return fmt.Errorf("%w: %s is not a usable session database (%s); move it aside (mv %s %s.bad) and rein starts a new one, or pass --state-dir DIR (the file was not changed)",
			ErrCorrupt, path, cause, path, path)
	}
	return fmt.Errorf("%w: %s is not a usable session database (%s) (the file was not changed); it holds session %s: save what is readable with `rein sessions export ID > ID.jsonl`, then move the file aside (mv %s %s.bad) or pass --state-dir DIR to start a new store",
		ErrCorrupt, path, cause, strings.Join(ids, ", session "), path, path)
}

// corruptSession is ErrCorrupt for a session whose record is damaged or
// shorter than what was committed, with the way out: export what is
// readable, then start a new store. Every command that meets it (run,
// chat, --continue, sessions list and show) refuses with this message and
// leaves the files as they were.
func corruptSession(path, id, detail string) error {
	return fmt.Errorf("%w: %s: session %s %s (the file was not changed); save what is readable with `rein sessions export %s > %s.jsonl`, then move the file aside (mv %s %s.bad) or pass --state-dir DIR to start a new store",
		ErrCorrupt, path, id, detail, id, id, path, path)
}

// isConstraint reports a uniqueness violation: a session id or an event
// sequence number that exists already.
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}
