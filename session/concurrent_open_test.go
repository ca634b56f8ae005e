package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// TestOpenWhileAnotherWrites: a store another rein is writing right now
// (a WAL, heads moving, checkpoints) passes every check of Open: the
// read-only examination must not take a live writer for damage.
func TestOpenWhileAnotherWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), session.DatabaseFile)
	w, err := session.Open(ctx, session.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	info := create(t, w, "/w")
	j, err := w.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var stop atomic.Bool
	done := make(chan error, 1)
	go func() {
		text := model.UserText(strings.Repeat("a line of text ", 100))
		for i := 0; !stop.Load(); i++ {
			ev := agent.Event{Type: agent.EventMessage, RunID: info.ID, Time: time.Unix(int64(i), 0), Message: &text}
			if err := j.Append(ctx, ev); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	deadline := time.Now().Add(1500 * time.Millisecond)
	opens := 0
	for time.Now().Before(deadline) {
		r, err := session.Open(ctx, session.Config{Path: path})
		if err != nil {
			t.Fatalf("open %d while another store writes: %v", opens, err)
		}
		if _, err := r.Load(ctx, info.ID); err != nil {
			t.Fatalf("load while another store writes: %v", err)
		}
		r.Close()
		opens++
	}
	stop.Store(true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d opens while the other store wrote", opens)
}

// writeForever is the crash helper's "write" mode: it appends to a new
// session until it is killed (or a minute passes), as a busy rein does.
func writeForever(ctx context.Context, store *session.SQLite, ws string) int {
	info, err := store.Create(ctx, session.Info{Workspace: ws})
	if err != nil {
		return 1
	}
	j, err := store.Journal(ctx, info.ID)
	if err != nil {
		return 1
	}
	defer j.Close()
	text := model.UserText(strings.Repeat("a line of text ", 200))
	for i := 0; ctx.Err() == nil; i++ {
		ev := agent.Event{Type: agent.EventMessage, RunID: info.ID, Time: time.Unix(int64(i), 0), Message: &text}
		if err := j.Append(ctx, ev); err != nil {
			return 1
		}
	}
	return 0
}

// TestOpenWhileAnotherProcessWrites: the same as TestOpenWhileAnotherWrites
// with the writer in another process (its -shm mapped read-only here, its
// checkpoints running under the reads): no open is refused.
func TestOpenWhileAnotherProcessWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "state", session.DatabaseFile)
	child := startHelper(t, "write", []string{"CRASH_DB=" + path, "CRASH_WORKSPACE=" + dir})
	defer func() { child.Process.Kill(); child.Wait() }()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	opens := 0
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); opens++ {
		r, err := session.Open(ctx, session.Config{Path: path})
		if err != nil {
			t.Fatalf("open %d while another process writes: %v", opens, err)
		}
		list, err := r.List(ctx, session.Filter{})
		if err == nil && len(list) > 0 {
			_, err = r.Load(ctx, list[0].ID)
		}
		r.Close()
		if err != nil {
			t.Fatalf("reading while another process writes: %v", err)
		}
	}
	t.Logf("%d opens while another process wrote", opens)
}
