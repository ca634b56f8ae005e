package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DatabaseFile is the memory database's name inside rein's state
// directory (beside the session store's sessions.db: its own file, so
// wiping sessions never loses memories and the reverse).
const DatabaseFile = "memory.db"

// Config configures OpenSQLite. Only Path is required.
type Config struct {
	// Path is the database file; its directory is created (0700).
	Path string
	// Limits are the entry and store caps.
	Limits Limits
	// BusyTimeout is how long a write waits for another process (5s).
	BusyTimeout time.Duration
	// NoFTS uses the plain term scorer even when SQLite has FTS5: for
	// tests of the fallback.
	NoFTS bool
	// Now and NewID are determinism seams; nil means the clock and NewID.
	Now   func() time.Time
	NewID func() string
}

// SQLite is the Store on a SQLite database (modernc.org/sqlite, pure Go).
// It is safe for concurrent use by goroutines and processes.
type SQLite struct {
	db  *sql.DB
	cfg Config
	fts bool
}

var _ Store = (*SQLite)(nil)

const schema = `
CREATE TABLE IF NOT EXISTS entries (
	id TEXT PRIMARY KEY,
	scope TEXT NOT NULL,
	workspace TEXT NOT NULL,
	text TEXT NOT NULL,
	tags TEXT NOT NULL,
	source_kind TEXT NOT NULL,
	session_id TEXT NOT NULL,
	created INTEGER NOT NULL,
	updated INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_place ON entries(scope, workspace, updated);
`

// ftsSchema is the full-text index, a standalone FTS5 table kept in step
// with entries inside the same transactions.
const ftsSchema = `CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(id UNINDEXED, text, tags)`

// OpenSQLite opens (creating when missing) the memory database.
func OpenSQLite(ctx context.Context, cfg Config) (*SQLite, error) {
	if cfg.Path == "" {
		return nil, errors.New("memory: Config.Path is required")
	}
	path, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("memory: %s: %w", cfg.Path, err)
	}
	cfg.Path, cfg.Limits = path, cfg.Limits.WithDefaults()
	if cfg.BusyTimeout <= 0 {
		cfg.BusyTimeout = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = NewID
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("memory: creating the state directory: %w; pass --state-dir to use another", err)
	}
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(cfg.BusyTimeout.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("memory: opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("memory: opening %s: %w (move the file aside if it is not rein's memory database)", path, err)
	}
	s := &SQLite{db: db, cfg: cfg}
	if !cfg.NoFTS {
		// Builds without FTS5 fail here; the plain scorer takes over.
		_, err := db.ExecContext(ctx, ftsSchema)
		s.fts = err == nil
	}
	if !s.fts {
		// A database written with FTS5 and now opened without keeps a
		// stale index; drop it so a later FTS open rebuilds it.
		_, _ = db.ExecContext(ctx, `DROP TABLE IF EXISTS entries_fts`)
	} else if err := s.syncFTS(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// syncFTS rebuilds the full-text index when it does not hold exactly the
// entries (a database last written by a build without FTS5).
func (s *SQLite) syncFTS(ctx context.Context) error {
	var a, b int
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM entries), (SELECT count(*) FROM entries_fts)`).Scan(&a, &b); err != nil {
		return fmt.Errorf("memory: reading the search index: %w", err)
	}
	if a == b {
		return nil
	}
	_, err := s.db.ExecContext(ctx, `DELETE FROM entries_fts; INSERT INTO entries_fts(id, text, tags) SELECT id, text, replace(tags, char(31), ' ') FROM entries`)
	if err != nil {
		return fmt.Errorf("memory: rebuilding the search index: %w", err)
	}
	return nil
}

// FullText reports whether searches use FTS5.
func (s *SQLite) FullText() bool { return s.fts }

// Path returns the database file.
func (s *SQLite) Path() string { return s.cfg.Path }

// Close implements Store.
func (s *SQLite) Close() error { return s.db.Close() }

// Put implements Store.
func (s *SQLite) Put(ctx context.Context, e Entry) (Entry, error) {
	if e.ID != "" && !ValidID(e.ID) {
		return Entry{}, fmt.Errorf("%w: %q", ErrNotFound, clip(e.ID, 40))
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Entry{}, fmt.Errorf("memory: %w", err)
	}
	defer tx.Rollback()
	now := s.cfg.Now().UTC().Truncate(time.Microsecond)
	var old Entry
	if e.ID != "" {
		if old, err = scanEntry(tx.QueryRowContext(ctx, selectEntry+` WHERE e.id = ?`, e.ID)); err != nil {
			return Entry{}, err
		}
		e.Scope, e.Workspace, e.Created = old.Scope, old.Workspace, old.Created
	}
	if e, err = Prepare(e, s.cfg.Limits); err != nil {
		return Entry{}, err
	}
	var total int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(length(CAST(text AS BLOB)) + length(CAST(tags AS BLOB))), 0) FROM entries WHERE id != ?`, e.ID).Scan(&total); err != nil {
		return Entry{}, fmt.Errorf("memory: %w", err)
	}
	tags := JoinTags(e.Tags)
	if size := int64(len(e.Text) + len(tags)); total+size > s.cfg.Limits.MaxTotalBytes {
		return Entry{}, fmt.Errorf("%w: %d of %d bytes used; remove memories with `rein memory rm ID` (see `rein memory list`)", ErrFull, total, s.cfg.Limits.MaxTotalBytes)
	}
	if e.ID == "" {
		e.ID, e.Created = s.cfg.NewID(), now
	}
	e.Updated = now
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO entries(id, scope, workspace, text, tags, source_kind, session_id, created, updated) VALUES (?,?,?,?,?,?,?,?,?)`,
		e.ID, string(e.Scope), e.Workspace, e.Text, tags, string(e.Source.Kind), e.Source.SessionID, e.Created.UnixMicro(), e.Updated.UnixMicro())
	if err == nil && s.fts {
		if _, err = tx.ExecContext(ctx, `DELETE FROM entries_fts WHERE id = ?`, e.ID); err == nil {
			_, err = tx.ExecContext(ctx, `INSERT INTO entries_fts(id, text, tags) VALUES (?,?,?)`, e.ID, e.Text, stringsJoin(e.Tags))
		}
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return Entry{}, fmt.Errorf("memory: storing: %w", err)
	}
	return e, nil
}

// Get implements Store.
func (s *SQLite) Get(ctx context.Context, id string) (Entry, error) {
	if !ValidID(id) {
		return Entry{}, fmt.Errorf("%w: %q", ErrNotFound, clip(id, 40))
	}
	return scanEntry(s.db.QueryRowContext(ctx, selectEntry+` WHERE e.id = ?`, id))
}

// Delete implements Store.
func (s *SQLite) Delete(ctx context.Context, id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%w: %q", ErrNotFound, clip(id, 40))
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("memory: deleting: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if s.fts {
		if _, err := tx.ExecContext(ctx, `DELETE FROM entries_fts WHERE id = ?`, id); err != nil {
			return fmt.Errorf("memory: deleting: %w", err)
		}
	}
	return tx.Commit()
}
