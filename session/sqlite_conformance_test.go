package session_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/session/sessiontest"
)

// TestSQLiteConformance runs the Store conformance suite against the
// SQLite store, each subtest on a database of its own.
func TestSQLiteConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store {
		s, err := session.Open(context.Background(), session.Config{Path: filepath.Join(t.TempDir(), session.DatabaseFile)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
