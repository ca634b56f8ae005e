package memory_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/memory"
	"github.com/reinharness/rein/memory/memorytest"
)

// TestLazyConformance: the lazily opened store is a Store like any other.
func TestLazyConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T, l memory.Limits) memory.Store {
		return memory.Lazy(memory.Config{Path: filepath.Join(t.TempDir(), "memory.db"), Limits: l})
	})
}

// TestLazyCreatesOnFirstWrite: reads of a store that was never written
// create no file and find nothing; the first Put creates it, and a new
// Lazy store over the same path reads what the first wrote.
func TestLazyCreatesOnFirstWrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state", "memory.db")
	s := memory.Lazy(memory.Config{Path: path})
	if es, err := s.List(ctx, memory.Filter{}); err != nil || len(es) != 0 {
		t.Fatalf("List of an empty lazy store: %v, %v", es, err)
	}
	if hs, err := s.Search(ctx, "anything", memory.Filter{}); err != nil || len(hs) != 0 {
		t.Fatalf("Search: %v, %v", hs, err)
	}
	if _, err := s.Get(ctx, "m-1"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("Get: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "m-1"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("Delete: %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reads created the state directory (%v)", err)
	}
	e, err := s.Put(ctx, memory.Entry{Scope: memory.ScopeUser, Text: "prefers tabs", Source: memory.Source{Kind: memory.SourceUser}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("Put did not create the database: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, memory.Filter{}); err == nil {
		t.Error("List after Close succeeded")
	}
	again := memory.Lazy(memory.Config{Path: path})
	defer again.Close()
	got, err := again.Get(ctx, e.ID)
	if err != nil || got.Text != "prefers tabs" {
		t.Fatalf("reopened: %+v, %v", got, err)
	}
}
