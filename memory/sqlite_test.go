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
