package session

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/reinharness/rein/internal/secret"
)

// Sync chooses how hard a commit tries to reach the disk.
type Sync int

const (
	// SyncNormal (the default) makes journal commits wait for fsync
	// (they record what tools did) and the store's other writes not.
	SyncNormal Sync = iota
	// SyncFull waits for fsync on every commit.
	SyncFull
	// SyncUnsafeBulk makes no commit wait for fsync and writes no heads:
	// for building large test fixtures or importing sessions in bulk,
	// where the store is closed before anything depends on it. A run
	// journaled this way can lose acknowledged tool calls to a power cut,
	// and Open cannot tell; never use it for real runs.
	SyncUnsafeBulk
)

// Defaults applied by Open to zero Config fields.
const (
	DefaultBusyTimeout = 5 * time.Second
	DefaultBatchSize   = 256
)

// Config configures Open. Only Path is required.
type Config struct {
	// Path is the database file, typically StateDir()/sessions.db. Its
	// directory is created (mode 0700) when missing.
	Path string
	// BusyTimeout is how long an operation waits for another process's
	// lock before failing with ErrLocked (default 5s).
	BusyTimeout time.Duration
	// Sync trades commit latency for power-loss safety (default
	// SyncNormal).
	Sync Sync
	// BatchSize caps the events a journal holds before committing them
	// (default 256). Events the resume logic depends on are committed at
	// once regardless.
	BatchSize int
	// CheckpointEvery is how many events a journal commits between two
	// checkpoints of the session's state (checkpoint.go), which spare a
	// resume the replay of every event before the last one (default
	// DefaultCheckpointEvery; negative: none). A checkpoint costs about
	// what a resume does, on the Append that crosses the mark.
	CheckpointEvery int
	// StoreDeltas keeps text and reasoning deltas. They are dropped by
	// default: the message event that follows holds the same text, and
	// deltas would multiply the size of the store.
	StoreDeltas bool
	// MaxImageBytes caps one before-image kept for undo (default
	// DefaultMaxImageBytes); MaxSessionImageBytes caps the images one
	// session keeps (default DefaultMaxSessionImageBytes). Larger files
	// are recorded by hash only and cannot be undone.
	MaxImageBytes        int64
	MaxSessionImageBytes int64
	// Now and NewID are determinism seams for tests; nil means the system
	// clock and random ids.
	Now   func() time.Time
	NewID func() string
}

// SQLite is the Store on a SQLite database (modernc.org/sqlite, pure Go)
// in WAL mode. It is safe for concurrent use by goroutines and processes.
type SQLite struct {
	db   *sql.DB
	path string
	cfg  Config
	// storeID is the store's own id (schema version 3), which its head
	// files name.
	storeID string

	// damaged is set once a read or write met ErrCorrupt: Close then
	// leaves no clean-shutdown marker, so the next Open runs every check.
	damaged atomic.Bool

	mu       sync.Mutex
	closed   bool
	journals map[string]*journal // open journals by session id
}

var _ Store = (*SQLite)(nil)

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// Open opens the session database at cfg.Path, creating it when the file
// does not exist. An existing file is first examined read-only (check.go):
// a file that is not a SQLite database, is damaged, lost committed events,
// belongs to another program or was written by a newer rein is refused
// with ErrCorrupt or ErrNewerSchema, and it and its -wal and -shm are left
// byte for byte as they were.
func Open(ctx context.Context, cfg Config) (*SQLite, error) {
	if cfg.Path == "" {
		return nil, errors.New("session: Config.Path is required; use StateDir to find the state directory")
	}
	path, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("session: %s: %w", cfg.Path, err)
	}
	cfg.Path = path
	if cfg.BusyTimeout <= 0 {
		cfg.BusyTimeout = DefaultBusyTimeout
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.CheckpointEvery == 0 {
		cfg.CheckpointEvery = DefaultCheckpointEvery
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxImageBytes <= 0 {
		cfg.MaxImageBytes = DefaultMaxImageBytes
	}
	if cfg.MaxSessionImageBytes <= 0 {
		cfg.MaxSessionImageBytes = DefaultMaxSessionImageBytes
	}
	if cfg.NewID == nil {
		cfg.NewID = NewID
	}
	version, exists, err := preflight(ctx, path, cfg.BusyTimeout)
	if err != nil {
		return nil, describe(path, "opening the session database", err)
	}
	if !exists {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("session: creating the state directory: %w; pass --state-dir to use another", err)
		}
	}
	db, err := sql.Open("sqlite", dsn(path, cfg, !exists))
	if err != nil {
		return nil, describe(path, "opening the session database", err)
	}
	// A few connections let a reader (listing, loading) proceed while a
	// journal writes; every write transaction takes the lock up front
	// (_txlock=immediate) so none can deadlock upgrading a read lock.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, describe(path, "opening the session database", err)
	}
	if version < SchemaVersion {
		if err := migrate(ctx, db, path); err != nil {
			db.Close()
			return nil, describe(path, "preparing the session database", err)
		}
	}
	store, err := readStoreID(ctx, db)
	if err != nil {
		db.Close()
		return nil, describe(path, "opening the session database", err)
	}
	return &SQLite{db: db, path: path, cfg: cfg, storeID: store, journals: map[string]*journal{}}, nil
}

// Path returns the database file.
func (s *SQLite) Path() string { return s.path }

// Close closes the database. It fails if a journal is still open.
func (s *SQLite) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if n := len(s.journals); n > 0 {
		return fmt.Errorf("session: closing the store with %d journal(s) still open; close them first", n)
	}
	s.closed = true
	if err := s.db.Close(); err != nil {
		return err
	}
	if !s.damaged.Load() {
		markClean(s.path)
	}
	return nil
}

// seen passes err on, noting damage (see SQLite.damaged).
func (s *SQLite) seen(err error) error {
	if errors.Is(err, ErrCorrupt) {
		s.damaged.Store(true)
	}
	return err
}

// dsn builds the connection string. Pragmas are set on every connection
// the pool opens.
func dsn(path string, cfg Config, create bool) string {
	mode := "rw"
	if create {
		mode = "rwc"
	}
	sync := "NORMAL"
	if cfg.Sync == SyncFull {
		sync = "FULL"
	}
	q := url.Values{}
	q.Set("mode", mode)
	q.Set("_busy_timeout", strconv.FormatInt(cfg.BusyTimeout.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", sync)
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// preflight examines an existing database read-only and returns its
// schema version. exists is false when there is no file yet. Nothing here
// writes to the file: a damaged or foreign file must stay exactly as it is.
func preflight(ctx context.Context, path string, busy time.Duration) (version int, exists bool, err error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	case fi.IsDir():
		return 0, true, corruptError(path, "it is a directory")
	case !fi.Mode().IsRegular():
		return 0, true, corruptError(path, "it is not a regular file")
	case fi.Size() == 0:
		// SQLite itself treats an empty file as an empty database;
		// there is nothing in it to lose.
		return 0, true, nil
	}
	if err := checkHeader(path); err != nil {
		return 0, true, err
	}
	v, err := examineOnce(ctx, path, busy, false)
	if err != nil && walAppeared(path) && !errors.Is(err, ErrNewerSchema) && !errors.As(err, new(*newerSchema)) &&
		ctx.Err() == nil {
		// Only a refusal of the file as a whole counts: read as it lay on
		// the disk (no WAL), a rein that started writing meanwhile may
		// have checkpointed into it under the read; read through a -shm a
		// crash left, SQLite may fail without a way to rebuild it. So
		// with a WAL there now, a copy of the database and its WAL is
		// examined again and decides.
		v, err = examineOnce(ctx, path, busy, true)
	}
	return v, true, err
}

// examineOnce is one read-only examination of path (see check.go); it
// returns the schema version.
func examineOnce(ctx context.Context, path string, busy time.Duration, copied bool) (int, error) {
	clean := wasClean(path) && !copied
	// The heads are read before anything of the database is: a journal
	// writes its head after the commit, so the database read (or copied)
	// a moment later holds at least that much. Read after a copy, a live
	// writer's newer heads would pass for lost events.
	heads, err := readHeadFiles(path)
	if err != nil {
		return 0, err
	}
	dsn, cleanup, err := examineDSN(path, busy, copied)
	if err != nil {
		return 0, err
	}
	defer cleanup()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	v, err := readVersion(ctx, db)
	if err != nil {
		return 0, examineError(path, err)
	}
	if v > SchemaVersion {
		return v, errNewer(v)
	}
	return v, examine(ctx, path, db, v, clean, heads)
}

// walAppeared reports a WAL beside path now.
func walAppeared(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return err == nil && fi.Size() > 0
}

// examine runs the checks of check.go on the read-only connection db.
func examine(ctx context.Context, path string, db *sql.DB, version int, clean bool, files headFiles) error {
	if !clean {
		if err := quickCheck(ctx, path, db, version); err != nil {
			return err
		}
	}
	if version < chainVersion {
		// Heads are written only by a store of version 3 or later, and a
		// new one removes those of any store before it: a head here means
		// the file lost the history a journal committed (a damaged WAL
		// can take a young store back to empty).
		if lost := anyHead(path); lost != "" {
			return corruptSession(path, lost, "is missing from the store although its events were committed: the store lost its history (a damaged WAL or data page)")
		}
		return nil
	}
	store, err := readStoreID(ctx, db)
	if err != nil {
		return examineError(path, err)
	}
	if err := checkHeads(ctx, path, db, files.of(store)); err != nil {
		return err
	}
	if !clean {
		return checkChains(ctx, path, db)
	}
	return nil
}

// examineError classifies an error met while examining an existing file
// read-only. Anything but a lock, an access problem, an I/O error or
// cancellation means SQLite cannot use the file ("unsupported file
// format", a malformed schema, …): for rein it is damaged.
func examineError(path string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errForeign) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM,
			sqlite3.SQLITE_READONLY, sqlite3.SQLITE_AUTH, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_INTERRUPT:
			return err
		}
	}
	return corruptError(path, secret.Redact(err.Error()))
}

// checkHeader refuses files that do not start with the SQLite magic.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 100) // the database header
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if n < len(head) || !bytes.Equal(head[:len(sqliteMagic)], sqliteMagic) {
		return corruptError(path, "it is not a SQLite database")
	}
	return nil
}

// NewID mints a session id: "s" and 20 random hex digits. Short enough
// to type, and any unique prefix of it is accepted. Sessions kept
// elsewhere (a Temporal workflow) take their ids from it too.
func NewID() string {
	var b [10]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "s" + hex.EncodeToString(b[:])
}
