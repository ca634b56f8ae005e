package session_test

import (
	"context"
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
	deadline := time.Now().Add(3 * time.Second)
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
