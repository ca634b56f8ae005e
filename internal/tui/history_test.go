package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryReportsStorageFailures checks that an entry that cannot be
// stored is kept for the session and the failure reported by Err (it was
// dropped silently), and that a failed rewrite leaves no temporary file.
func TestHistoryReportsStorageFailures(t *testing.T) {
	dir := t.TempDir()
	// The history's path is a directory: it opens (as empty), but
	// nothing can be stored.
	blocker := filepath.Join(dir, "history.jsonl")
	if err := os.Mkdir(blocker, 0o700); err != nil {
		t.Fatal(err)
	}
	h, err := OpenHistory(blocker)
	if err != nil {
		t.Fatal(err)
	}
	h.Add("first message")
	h.Add("second message")
	if h.Len() != 2 || h.At(1) != "second message" {
		t.Errorf("entries kept in memory: %d", h.Len())
	}
	if err := h.Err(); err == nil || !strings.Contains(err.Error(), "history.jsonl") {
		t.Errorf("Err = %v; want the storage failure naming the file", err)
	}

	// A rewrite that cannot rename leaves no temporary file behind: the
	// history's path is a non-empty directory.
	path := filepath.Join(dir, "hist")
	if err := os.MkdirAll(filepath.Join(path, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	h2 := &History{path: path}
	for i := range 2*maxHistory + 1 {
		h2.entries = append(h2.entries, strings.Repeat("e", i%7+1)+string(rune('a'+i%26)))
	}
	h2.Add("the one that forces a rewrite")
	if h2.Err() == nil {
		t.Error("a failed rewrite was not reported")
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}

	// A healthy history reports nothing.
	ok, _ := OpenHistory(filepath.Join(dir, "fine", "history.jsonl"))
	ok.Add("hello")
	if err := ok.Err(); err != nil {
		t.Errorf("Err of a working history = %v", err)
	}
	var none *History
	if none.Err() != nil {
		t.Error("a nil history reports an error")
	}
}
