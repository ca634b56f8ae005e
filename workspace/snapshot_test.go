//go:build linux

package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExecJournalsItsOwnWrites: a command's creations, edits, removals
// and mode changes are journaled as changes of its call (not .git or
// node_modules, not a file it only touched); a file over the per-file
// content bound is journaled but cannot be undone.
func TestExecJournalsItsOwnWrites(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	big := bytes.Repeat([]byte("x"), snapshotMaxFileBytes+1)
	for name, data := range map[string][]byte{"edit.txt": []byte("one\n"), "gone.txt": []byte("bye\n"), "touch.txt": []byte("same\n"), "run.sh": []byte("#!/bin/sh\n"), "big.bin": big} {
		mustWrite(t, filepath.Join(dir, name), data)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := WithCallID(context.Background(), "call-1")
	cmd := "echo two >> edit.txt && rm gone.txt && mkdir -p d && echo n > d/new.txt && touch touch.txt && chmod +x run.sh && echo y >> big.bin && echo g > .git/HEAD && mkdir -p node_modules/x && echo m > node_modules/x/i.js"
	if res, err := ws.Exec(ctx, ExecOptions{Command: cmd}); err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %v %+v", err, res)
	}
	got := map[string]Change{}
	for _, c := range ws.Changes() {
		if c.CallID != "call-1" {
			t.Errorf("%s journaled under %q", c.Path, c.CallID)
		}
		got[c.Path] = c
	}
	want := map[string]string{"edit.txt": "modify", "gone.txt": "delete", "d/new.txt": "create", "run.sh": "modify", "big.bin": "modify"}
	for p, kind := range want {
		if c, ok := got[p]; !ok || c.Kind() != kind {
			t.Errorf("%s: journaled %v (%s), want %s", p, ok, c.Kind(), kind)
		}
	}
	if len(got) != len(want) {
		t.Errorf("journaled %d changes, want %d: %v", len(got), len(want), got)
	}
	if string(got["edit.txt"].Before.Data) != "one\n" || string(got["edit.txt"].After.Data) != "one\ntwo\n" {
		t.Errorf("edit.txt before/after = %q/%q", got["edit.txt"].Before.Data, got["edit.txt"].After.Data)
	}
	if got["big.bin"].Undoable() {
		t.Error("big.bin's before-content was over the bound, yet the change is undoable")
	}
	if _, err := ws.UndoCalls(1); err == nil || !strings.Contains(err.Error(), "big.bin") {
		t.Errorf("undoing a call with an unkept before-content: %v; want a refusal naming big.bin", err)
	}
}

// TestExecUndoesItsOwnWrites: the command's writes, journaled, are undone
// like a file tool's.
func TestExecUndoesItsOwnWrites(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	mustWrite(t, filepath.Join(dir, "a.txt"), []byte("a\n"))
	ctx := WithCallID(context.Background(), "call-2")
	if res, err := ws.Exec(ctx, ExecOptions{Command: "echo b > a.txt && echo c > c.txt"}); err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %v %+v", err, res)
	}
	if n, err := ws.UndoCalls(1); err != nil || n != 2 {
		t.Fatalf("undo: %d, %v", n, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "a\n" {
		t.Errorf("a.txt = %q after undo", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt survived the undo: %v", err)
	}
}

// TestExecScanCost measures the scan around a command on a 5,000-file
// tree: the first (which reads the contents) and a later one (metadata
// only), and bounds the later one loosely.
func TestExecScanCost(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	for i := range 5000 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("f%04d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, p, []byte(strings.Repeat("package x\n", 200)))
	}
	start := time.Now()
	before, _ := ws.beforeExec()
	first := time.Since(start)
	start = time.Now()
	ws.afterExec("c", before, 1<<62)
	later := time.Since(start)
	t.Logf("scan of %d files: first %s (reads contents), later %s (metadata)", len(before), first, later)
	if later > 5*time.Second {
		t.Errorf("a metadata scan of 5,000 files took %s", later)
	}
}
