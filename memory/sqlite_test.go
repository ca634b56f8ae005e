package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/memory"
	"github.com/reinharness/rein/memory/memorytest"
)

func openSQLite(noFTS bool) memorytest.Open {
	return func(t *testing.T, l memory.Limits) memory.Store {
		s, err := memory.OpenSQLite(context.Background(), memory.Config{Path: filepath.Join(t.TempDir(), "memory.db"), Limits: l, NoFTS: noFTS})
		if err != nil {
			t.Fatal(err)
		}
		if s.FullText() == noFTS {
			t.Fatalf("FullText() = %v with NoFTS %v: this modernc build should have FTS5", s.FullText(), noFTS)
		}
		return s
	}
}

func TestSQLiteConformance(t *testing.T)      { memorytest.Run(t, openSQLite(false)) }
func TestSQLitePlainConformance(t *testing.T) { memorytest.Run(t, openSQLite(true)) }

// TestFTSIndexRebuiltAfterPlainWrites: entries written while FTS5 was off
// (NoFTS, or a build without it) are searchable once it is back.
func TestFTSIndexRebuiltAfterPlainWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	plain, err := memory.OpenSQLite(ctx, memory.Config{Path: path, NoFTS: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Put(ctx, memory.Entry{Scope: memory.ScopeUser, Text: "written without the index"}); err != nil {
		t.Fatal(err)
	}
	plain.Close()
	s, err := memory.OpenSQLite(ctx, memory.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if hits, err := s.Search(ctx, "without", memory.Filter{}); err != nil || len(hits) != 1 {
		t.Fatalf("after reopening with FTS5: %v, %v", hits, err)
	}
}
