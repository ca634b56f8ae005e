package session_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// validDB returns the bytes of a real, closed session database holding one
// session with a few events.
func validDB(t *testing.T) []byte {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "good.db")
	s, err := session.Open(ctx, session.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		appendAll(t, j, info.ID, msgEvent(model.UserText(strings.Repeat("x", 200))))
	}
	j.Close()
	s.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestUnusableDatabaseIsRefusedUntouched: every kind of bad file gives one
// clear error naming the file and the fix, and stays byte for byte as it
// was.
func TestUnusableDatabaseIsRefusedUntouched(t *testing.T) {
	good := validDB(t)
	damaged := bytes.Clone(good)
	// Overwrite the sqlite_master page's body (page 1 after the header)
	// with garbage.
	for i := 100; i < 4096 && i < len(damaged); i++ {
		damaged[i] = byte(i * 7)
	}
	foreign := func(t *testing.T) []byte {
		path := filepath.Join(t.TempDir(), "foreign.db")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE contacts (name TEXT)`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}(t)
	tests := []struct {
		name     string
		data     []byte
		want     error
		mentions string
	}{
		{"text file", []byte("these are my notes, not a database\n"), session.ErrCorrupt, "not a SQLite database"},
		{"random bytes", bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 4096), session.ErrCorrupt, "not a SQLite database"},
		{"header only", good[:100], session.ErrCorrupt, "move it aside"},
		{"truncated", good[:len(good)/3], session.ErrCorrupt, "move it aside"},
		{"damaged schema page", damaged, session.ErrCorrupt, "move it aside"},
		{"foreign database", foreign, session.ErrCorrupt, "not a rein session store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), session.DatabaseFile)
			if err := os.WriteFile(path, tt.data, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := session.Open(context.Background(), session.Config{Path: path})
			if err == nil {
				// Some damage only shows when the data is read.
				_, err = s.List(context.Background(), session.Filter{})
				s.Close()
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || !strings.Contains(msg, tt.mentions) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %s and %q", msg, path, tt.mentions)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, tt.data) {
				t.Errorf("the file changed: %d bytes before, %d after", len(tt.data), len(after))
			}
		})
	}
}

func TestNewerSchemaIsRefusedUntouched(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	create(t, s, "/w")
	if err := session.Exec(s, `UPDATE schema_version SET version = ?`, session.SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()
	// Closed cleanly (no WAL), and with a WAL and -shm as a crash or a
	// running rein leaves them: the examination must not create, change
	// or remove any of the files (a plain read-only open of SQLite
	// created -wal and -shm and left them).
	before := readSet(t, filepath.Dir(path))
	_, err := session.Open(ctx, session.Config{Path: path})
	if !errors.Is(err, session.ErrNewerSchema) || !strings.Contains(err.Error(), "upgrade rein") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open of a newer schema: %v; want ErrNewerSchema naming the file and the fix", err)
	}
	if diff := before.diff(readSet(t, filepath.Dir(path))); diff != "" {
		t.Errorf("refusing a closed store: %s", diff)
	}
	live, err := sql.Open("sqlite", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if _, err := live.Exec(`UPDATE sessions SET title = 'changed'`); err != nil {
		t.Fatal(err)
	}
	before = readSet(t, filepath.Dir(path))
	if before[session.DatabaseFile+"-wal"] == nil || before[session.DatabaseFile+"-shm"] == nil {
		t.Fatal("the live connection left no WAL and -shm")
	}
	if _, err := session.Open(ctx, session.Config{Path: path}); !errors.Is(err, session.ErrNewerSchema) {
		t.Fatalf("Open of a newer schema with a WAL: %v", err)
	}
	// The -shm is left out here: within one process SQLite shares a live
	// connection's writable mapping of it with every other connection,
	// which records its read marks there. (Another process maps it
	// read-only; TestDamagedStoreRefusedByEveryCommand compares it too.)
	after := readSet(t, filepath.Dir(path))
	delete(before, session.DatabaseFile+"-shm")
	delete(after, session.DatabaseFile+"-shm")
	if diff := before.diff(after); diff != "" {
		t.Errorf("refusing a store with a WAL: %s", diff)
	}
}

func TestPathThatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	_, err := session.Open(context.Background(), session.Config{Path: dir})
	if !errors.Is(err, session.ErrCorrupt) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("Open(directory) = %v; want ErrCorrupt saying it is a directory", err)
	}
}

func TestEmptyFileBecomesAStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), session.DatabaseFile)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(context.Background(), session.Config{Path: path})
	if err != nil {
		t.Fatalf("Open(empty file): %v", err)
	}
	defer s.Close()
	create(t, s, "/w")
}

// TestLockedDatabase holds the write lock from another connection: a write
// waits for the busy timeout and then fails with one clear error.
func TestLockedDatabase(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, func(c *session.Config) { c.BusyTimeout = 200 * time.Millisecond })
	info := create(t, s, "/w")
	locker, err := sql.Open("sqlite", "file:"+s.Path()+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	tx, err := locker.BeginTx(ctx, nil) // holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	start := time.Now()
	_, err = s.Create(ctx, session.Info{Workspace: "/w"})
	waited := time.Since(start)
	if !errors.Is(err, session.ErrLocked) || !strings.Contains(err.Error(), "locked by another process") {
		t.Fatalf("Create under a held lock: %v; want ErrLocked", err)
	}
	if waited < 150*time.Millisecond {
		t.Errorf("gave up after %v, before the busy timeout", waited)
	}
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	err = j.Append(ctx, agent.Event{Type: agent.EventMessage, RunID: info.ID, Message: &model.Message{Role: model.RoleUser}})
	if !errors.Is(err, session.ErrLocked) {
		t.Errorf("Append under a held lock: %v; want ErrLocked", err)
	}
	j.Close()
	// Reads go on: WAL readers do not wait for the writer.
	if _, err := s.List(ctx, session.Filter{}); err != nil {
		t.Errorf("List under a held write lock: %v", err)
	}
}
