package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/telemetry/redact"
)

// sessionColumns are the columns scanInfo reads, in order.
// The event count is the last sequence number, read from the events
// primary key rather than kept in the row: updating the row (and its
// indexes) on every commit would double the pages a commit writes.
const sessionColumns = `id, workspace, created, updated, title, model, parent_id, status,
	(SELECT COALESCE(MAX(seq), 0) FROM events WHERE events.session_id = sessions.id), input_tokens, output_tokens`

type rowScanner interface{ Scan(dest ...any) error }

func scanInfo(r rowScanner) (Info, error) {
	var (
		in               Info
		created, updated int64
		parent           sql.NullString
	)
	err := r.Scan(&in.ID, &in.Workspace, &created, &updated, &in.Title, &in.Model, &parent,
		&in.Status, &in.Events, &in.Usage.InputTokens, &in.Usage.OutputTokens)
	if err != nil {
		return Info{}, err
	}
	in.Created, in.Updated = time.Unix(0, created), time.Unix(0, updated)
	in.Parent = parent.String
	return in, nil
}

func (s *SQLite) checkOpen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

// Create implements Store.
func (s *SQLite) Create(ctx context.Context, info Info) (Info, error) {
	if err := s.checkOpen(); err != nil {
		return Info{}, err
	}
	if info.Workspace == "" || !filepath.IsAbs(info.Workspace) {
		return Info{}, fmt.Errorf("session: creating a session needs an absolute workspace path, got %q", info.Workspace)
	}
	if info.ID == "" {
		info.ID = s.cfg.NewID()
	}
	if err := validID(info.ID); err != nil {
		return Info{}, err
	}
	now := s.cfg.Now()
	info.Created, info.Updated = now, now
	info.Title = clipTitle(redact.String(info.Title))
	if info.Status == "" {
		info.Status = StatusNew
	}
	info.Events, info.Usage = 0, model.Usage{}
	var parent any
	if info.Parent != "" {
		parent = info.Parent
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO sessions (id, workspace, created, updated, title, model, parent_id, status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		info.ID, info.Workspace, now.UnixNano(), now.UnixNano(), info.Title, info.Model, parent, info.Status)
	if err != nil {
		if isConstraint(err) {
			return Info{}, fmt.Errorf("session: a session with id %s already exists; resume it with --session or pick another id", info.ID)
		}
		return Info{}, describe(s.path, "creating a session", err)
	}
	return info, nil
}

// validID refuses ids that would be awkward on a command line or in a
// file name (the event log is logs/<id>.jsonl).
func validID(id string) error {
	if len(id) > 128 {
		return fmt.Errorf("session: id %.20q… is longer than 128 bytes", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') || id[0] == '.' {
			return fmt.Errorf("session: id %q may only hold letters, digits, '-', '_' and '.', and must not start with '.'", id)
		}
	}
	return nil
}

// Get implements Store.
func (s *SQLite) Get(ctx context.Context, id string) (Info, error) {
	if err := s.checkOpen(); err != nil {
		return Info{}, err
	}
	full, err := s.resolve(ctx, id)
	if err != nil {
		return Info{}, err
	}
	row := s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, full)
	info, err := scanInfo(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Info{}, notFound(id)
	}
	return info, s.seen(describe(s.path, "reading a session", err))
}

// resolve returns the full id for id or a unique prefix of one.
func (s *SQLite) resolve(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("%w: no session id given", ErrNotFound)
	}
	var exact string
	err := s.db.QueryRowContext(ctx, `SELECT id FROM sessions WHERE id = ?`, id).Scan(&exact)
	if err == nil {
		return exact, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", describe(s.path, "finding a session", err)
	}
	// A prefix: ids hold no LIKE wildcards ('%', '_' is escaped below).
	pattern := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(id) + "%"
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\' LIMIT 2`, pattern)
	if err != nil {
		return "", describe(s.path, "finding a session", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return "", describe(s.path, "finding a session", err)
		}
		ids = append(ids, m)
	}
	if err := rows.Err(); err != nil {
		return "", describe(s.path, "finding a session", err)
	}
	switch len(ids) {
	case 0:
		return "", notFound(id)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%w: %q matches %s and others; give more of the id (rein sessions list shows them)", ErrAmbiguous, id, ids[0])
}

func notFound(id string) error {
	return fmt.Errorf("%w: no session %q; rein sessions list shows the stored ones", ErrNotFound, id)
}

// List implements Store.
func (s *SQLite) List(ctx context.Context, f Filter) ([]Info, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	limit := f.Limit
	switch {
	case limit == 0:
		limit = DefaultListLimit
	case limit < 0:
		limit = -1 // SQLite: no limit
	}
	query := `SELECT ` + sessionColumns + ` FROM sessions`
	args := []any{}
	if f.Workspace != "" {
		query += ` WHERE workspace = ?`
		args = append(args, f.Workspace)
	}
	query += ` ORDER BY updated DESC, id LIMIT ?`
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, describe(s.path, "listing sessions", err)
	}
	defer rows.Close()
	var out []Info
	for rows.Next() {
		info, err := scanInfo(rows)
		if err != nil {
			return nil, describe(s.path, "listing sessions", err)
		}
		out = append(out, info)
	}
	return out, s.seen(describe(s.path, "listing sessions", rows.Err()))
}

// Latest implements Store.
func (s *SQLite) Latest(ctx context.Context, workspace string) (Info, error) {
	if workspace == "" {
		// List reads "" as every workspace; no session has the empty
		// one, and --continue must never pick another workspace's.
		if err := s.checkOpen(); err != nil {
			return Info{}, err
		}
		return Info{}, fmt.Errorf("%w: no workspace given", ErrNotFound)
	}
	list, err := s.List(ctx, Filter{Workspace: workspace, Limit: 1})
	if err != nil {
		return Info{}, err
	}
	if len(list) == 0 {
		return Info{}, fmt.Errorf("%w: no session in %s yet; start one with rein run or rein chat", ErrNotFound, workspace)
	}
	return list[0], nil
}

// Fork implements Store. The copy shares the parent's history up to now
// and goes its own way from there; the parent is not changed.
func (s *SQLite) Fork(ctx context.Context, id string) (string, error) {
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	src, err := s.Get(ctx, id)
	if err != nil {
		return "", err
	}
	if err := s.Flush(ctx, src.ID); err != nil {
		return "", err
	}
	newID := s.cfg.NewID()
	now := s.cfg.Now().UnixNano()
	title := forkTitle(src)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, workspace, created, updated, title, model, parent_id, status, input_tokens, output_tokens)
			SELECT ?, workspace, ?, ?, ?, model, id, status, input_tokens, output_tokens FROM sessions WHERE id = ?`,
			newID, now, now, title, src.ID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO events (session_id, seq, type, time, payload, idempotency_key, call_id, chain)
			SELECT ?, seq, type, time, payload, idempotency_key, call_id, chain FROM events WHERE session_id = ?`, newID, src.ID)
		if err != nil {
			return err
		}
		// The copy's history is the parent's, and a checkpoint is bound
		// to a history, not to a session: it serves the fork as well.
		_, err = tx.ExecContext(ctx, `INSERT INTO checkpoints (session_id, seq, data)
			SELECT ?, seq, data FROM checkpoints WHERE session_id = ?`, newID, src.ID)
		if err != nil {
			return err
		}
		return forkImages(ctx, tx, src.ID, newID)
	})
	if err != nil {
		return "", describe(s.path, "forking a session", err)
	}
	return newID, nil
}

// Delete implements Store. Deleting a session with an open journal fails.
func (s *SQLite) Delete(ctx context.Context, id string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	full, err := s.resolve(ctx, id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	_, open := s.journals[full]
	s.mu.Unlock()
	if open {
		return fmt.Errorf("session: %s has an open journal; finish its run before deleting it", full)
	}
	// A session another process is running is not deleted under it.
	lock, err := lockSession(s.path, full)
	if err != nil {
		return err
	}
	// The head goes first: a crash between would otherwise leave a head
	// for a session the store no longer holds, which Open takes for lost
	// history.
	os.Remove(headPath(s.path, full))
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM events WHERE session_id = ?`, full); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE session_id = ?`, full); err != nil {
			return err
		}
		if err := deleteImages(ctx, tx, full); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, full)
		return err
	})
	if err != nil {
		lock.unlock()
		return describe(s.path, "deleting a session", err)
	}
	lock.remove()
	return nil
}

// Flush commits the pending events of id's open journal, if any, so that
// a reader sees everything appended so far.
func (s *SQLite) Flush(ctx context.Context, id string) error {
	s.mu.Lock()
	j := s.journals[id]
	s.mu.Unlock()
	if j == nil {
		return nil
	}
	return j.Flush(ctx)
}

// inTx runs fn in a write transaction.
func (s *SQLite) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// forkTitle is a fork's title: "fork of 1a2b3c4d: <the parent's title>",
// so that a list of sessions tells the copy from the original at a glance.
func forkTitle(parent Info) string {
	short := parent.ID
	if len(short) > 8 {
		short = short[:8]
	}
	if parent.Title == "" {
		return clipTitle("fork of " + short)
	}
	return clipTitle("fork of " + short + ": " + parent.Title)
}

// clipTitle makes a one-line title of at most TitleMax bytes.
func clipTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= TitleMax {
		return s
	}
	i := TitleMax - len("…")
	for i > 0 && !isRuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
