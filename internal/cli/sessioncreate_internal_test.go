package cli

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/session"
)

// failingJournal is a real SQLite store whose journals cannot be opened.
type failingJournal struct{ *session.SQLite }

func (failingJournal) Journal(context.Context, string) (session.Journal, error) {
	return nil, errors.New("the journal is unavailable")
}

// TestCreateSessionRemovesWhatItCannotJournal checks that a session whose
// journal cannot be opened is deleted again (it stayed listed, empty),
// and that the failure is returned.
func TestCreateSessionRemovesWhatItCannotJournal(t *testing.T) {
	ctx := context.Background()
	st, err := session.Open(ctx, session.Config{Path: filepath.Join(t.TempDir(), session.DatabaseFile)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := createSession(ctx, failingJournal{st}, session.Info{Workspace: "/w"}); err == nil || err.Error() != "the journal is unavailable" {
		t.Fatalf("createSession = %v; want the journal's failure", err)
	}
	if got, err := st.List(ctx, session.Filter{}); err != nil || len(got) != 0 {
		t.Errorf("sessions left: %v, %v; want none", got, err)
	}
	// A working store keeps the session and hands its journal over.
	info, j, err := createSession(ctx, st, session.Info{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got, _ := st.List(ctx, session.Filter{}); len(got) != 1 || got[0].ID != info.ID {
		t.Errorf("sessions = %v; want the one created", got)
	}
}
