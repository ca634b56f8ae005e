package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func openTemp(t *testing.T, opts Options) (*Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	ws, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, ws.Dir()
}

func readHost(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFileCreatesParentsAndKeepsMode(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	ctx := WithCallID(context.Background(), "call-1")
	c, err := ws.WriteFile(ctx, "a/b/c.txt", []byte("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readHost(t, filepath.Join(dir, "a/b/c.txt")); got != "hello\n" {
		t.Errorf("content = %q", got)
	}
	if c.CallID != "call-1" || c.Kind() != "create" || c.Path != "a/b/c.txt" {
		t.Errorf("change = %+v", c)
	}
	if diff := cmp.Diff([]string{"a", "a/b"}, c.createdDirs); diff != "" {
		t.Errorf("created dirs (-want +got):\n%s", diff)
	}

	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(script, 0o750); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.WriteFile(ctx, "run.sh", []byte("#!/bin/sh\necho hi\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(script)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, want 0750 kept", fi.Mode().Perm())
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("stray temp file %s", e.Name())
		}
	}
}

func TestWriteFileGeneratesCallID(t *testing.T) {
	ws, _ := openTemp(t, Options{})
	c, err := ws.WriteFile(context.Background(), "x", []byte("1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.CallID, callIDPrefixForGenerated) || len(c.CallID) != len(callIDPrefixForGenerated)+16 {
		t.Errorf("generated call id = %q", c.CallID)
	}
}

func TestWriteRefusals(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	ctx := context.Background()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "f"), []byte("x"))
	tests := []struct {
		name, path, want string
	}{
		{"directory", "d", "is a directory"},
		{"workspace root", ".", "workspace directory"},
		{"parent is a file", "f/child", "is a file"},
	}
	for _, tt := range tests {
		_, err := ws.WriteFile(ctx, tt.path, []byte("y"))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: WriteFile(%q) = %v, want error containing %q", tt.name, tt.path, err, tt.want)
		}
	}
	if _, err := ws.Remove(ctx, "nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Remove(missing) = %v", err)
	}
	if n := len(ws.Changes()); n != 0 {
		t.Errorf("%d changes journaled by failed writes", n)
	}
}

func TestTransactAllOrNothing(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	ctx := context.Background()
	mustWrite(t, filepath.Join(dir, "one"), []byte("one\n"))
	mustWrite(t, filepath.Join(dir, "blocker"), []byte("a file where a directory is needed\n"))
	// The third write needs blocker/ to be a directory: it fails at commit
	// time, after "one" and "two" were already written.
	_, err := ws.Transact(ctx, func(tx *Tx) error {
		if err := tx.WriteFile("one", []byte("ONE\n"), 0); err != nil {
			return err
		}
		if err := tx.WriteFile("new/two", []byte("two\n"), 0); err != nil {
			return err
		}
		return tx.WriteFile("blocker/three", []byte("three\n"), 0)
	})
	if err == nil {
		t.Fatal("Transact succeeded; want a failure on blocker/three")
	}
	if !strings.Contains(err.Error(), "no file was changed") {
		t.Errorf("error %q does not say the rollback happened", err)
	}
	if got := readHost(t, filepath.Join(dir, "one")); got != "one\n" {
		t.Errorf("one = %q after rollback", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("new/ survives the rollback: %v", err)
	}
	if n := len(ws.Changes()); n != 0 {
		t.Errorf("%d changes journaled by a rolled-back transaction", n)
	}
}

func TestTransactStagedReadsAndRename(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	ctx := context.Background()
	mustWrite(t, filepath.Join(dir, "old.txt"), []byte("content\n"))
	if err := os.Chmod(filepath.Join(dir, "old.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	cs, err := ws.Transact(ctx, func(tx *Tx) error {
		if err := tx.Rename("old.txt", "dir/new.txt"); err != nil {
			return err
		}
		if ok, _ := tx.Exists("old.txt"); ok {
			return fmt.Errorf("old.txt still exists in the transaction")
		}
		b, err := tx.ReadFile("dir/new.txt")
		if err != nil {
			return err
		}
		return tx.WriteFile("dir/new.txt", append(b, "more\n"...), 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range cs {
		kinds = append(kinds, c.Path+":"+c.Kind())
	}
	if diff := cmp.Diff([]string{"old.txt:delete", "dir/new.txt:create"}, kinds); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if got := readHost(t, filepath.Join(dir, "dir/new.txt")); got != "content\nmore\n" {
		t.Errorf("new.txt = %q", got)
	}
	fi, _ := os.Stat(filepath.Join(dir, "dir/new.txt"))
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("renamed file mode = %v, want 0755", fi.Mode().Perm())
	}
	if _, err := ws.Transact(ctx, func(tx *Tx) error { return tx.Rename("dir/new.txt", "dir/new.txt") }); err != nil {
		t.Errorf("rename onto itself: %v", err)
	}
	_, err = ws.Transact(ctx, func(tx *Tx) error {
		if err := tx.WriteFile("a", []byte("a"), 0); err != nil {
			return err
		}
		return tx.Rename("a", "dir/new.txt")
	})
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("rename onto an existing file = %v, want ErrExist", err)
	}
}

func TestTransactHonoursContextAndFnErrors(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.WriteFile(ctx, "x", []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteFile with a cancelled ctx = %v", err)
	}
	boom := errors.New("boom")
	_, err := ws.Transact(context.Background(), func(tx *Tx) error {
		_ = tx.WriteFile("y", []byte("y"), 0)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Transact = %v, want boom", err)
	}
	for _, n := range []string{"x", "y"} {
		if _, err := os.Stat(filepath.Join(dir, n)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was written: %v", n, err)
		}
	}
}

func TestWriteRefusesNonRegular(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := ws.WriteFile(context.Background(), "pipe", []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("WriteFile(fifo) = %v", err)
	}
}

func TestConcurrentWritesJournalConsistently(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	ctx := context.Background()
	const writers, rounds = 8, 20
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				if _, err := ws.WriteFile(ctx, "shared.txt", []byte(fmt.Sprintf("%d-%d\n", i, r))); err != nil {
					t.Error(err)
					return
				}
				_ = ws.Diff()
			}
		}()
	}
	wg.Wait()
	cs := ws.Changes()
	if len(cs) != writers*rounds {
		t.Fatalf("%d changes, want %d", len(cs), writers*rounds)
	}
	// Each change's before-state is the previous change's after-state.
	for i := 1; i < len(cs); i++ {
		if cs[i].Before.Hash != cs[i-1].After.Hash {
			t.Fatalf("change %d does not start where change %d ended", cs[i].Seq, cs[i-1].Seq)
		}
	}
	if n, err := ws.UndoAll(); err != nil || n != writers*rounds {
		t.Fatalf("UndoAll = %d, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "shared.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("shared.txt survives UndoAll: %v", err)
	}
}

func TestJournalTimestampsUseTheClock(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ws, _ := openTemp(t, Options{Now: func() time.Time { return at }})
	c, err := ws.WriteFile(context.Background(), "x", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Time.Equal(at) || c.Seq != 1 {
		t.Errorf("change time/seq = %v/%d", c.Time, c.Seq)
	}
}
