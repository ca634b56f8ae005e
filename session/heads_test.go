package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// TestHeadsNeverRaiseFalseAlarms: the states a store legitimately gets
// into open without a refusal — a deleted session, a store moved aside
// and replaced by a new one, a head file torn by a power cut — while a
// head ahead of its session is refused.
func TestHeadsNeverRaiseFalseAlarms(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, session.DatabaseFile)
	open := func() (*session.SQLite, error) { return session.Open(ctx, session.Config{Path: path}) }
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	keep, gone := create(t, s, "/w"), create(t, s, "/w")
	for _, info := range []session.Info{keep, gone} {
		j, err := s.Journal(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		appendAll(t, j, info.ID, msgEvent(model.UserText("hello")), msgEvent(model.AssistantText("hi")))
		j.Close()
	}
	if err := s.Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	s.Close()
	os.Remove(path + ".clean") // the full checks too
	if s, err = open(); err != nil {
		t.Fatalf("after a delete: %v", err)
	}
	s.Close()

	// A torn head (a power cut mid-write) is no evidence.
	head := filepath.Join(dir, "locks", keep.ID+".head")
	good, err := os.ReadFile(head)
	if err != nil {
		t.Fatal(err)
	}
	torn := append([]byte{}, good...)
	torn[len(torn)/2] ^= 0x20
	os.WriteFile(head, torn, 0o600)
	if s, err = open(); err != nil {
		t.Fatalf("with a torn head: %v", err)
	}
	s.Close()

	// A head ahead of the store (its last events lost) is refused.
	ahead := session.HeadLine(storeIDOf(t, good), 3, make([]byte, 16))
	os.WriteFile(head, ahead, 0o600)
	if _, err := open(); !errors.Is(err, session.ErrCorrupt) {
		t.Fatalf("a session short of its head opened: %v", err)
	}
	os.WriteFile(head, good, 0o600)

	// The store moved aside: the new one ignores the old heads.
	if err := os.Rename(path, path+".bad"); err != nil {
		t.Fatal(err)
	}
	if s, err = open(); err != nil {
		t.Fatalf("a new store beside the old one's heads: %v", err)
	}
	s.Close()
	if s, err = open(); err != nil {
		t.Fatalf("reopening the new store: %v", err)
	}
	s.Close()
}

func storeIDOf(t *testing.T, head []byte) string {
	t.Helper()
	store, _, _, err := session.ParseHead(head)
	if err != nil {
		t.Fatal(err)
	}
	return store
}
