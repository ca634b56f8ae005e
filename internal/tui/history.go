package tui

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// History limits: entries kept, and the size of one entry stored.
const (
	maxHistory      = 1000
	maxHistoryEntry = 64 << 10
)

// History is the input history of one workspace, persisted in a file
// (one JSON string per line, so entries may span lines). A nil *History
// keeps nothing. It is safe for concurrent use.
type History struct {
	path    string
	mu      sync.Mutex
	entries []string
	err     error // the first failure to store an entry
}

// Err reports the first failure to store the history since it was
// opened (the entries stay in memory for the session), or nil.
func (h *History) Err() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// failed records a storage failure, keeping the first.
func (h *History) failed(err error) {
	if err != nil && h.err == nil {
		h.err = fmt.Errorf("input history %s: %w", h.path, err)
	}
}

// OpenHistory loads the history at path; a missing file is an empty
// history, lines that do not decode are skipped (a history is a
// convenience: a damaged one must not stop the chat).
func OpenHistory(path string) (*History, error) {
	h := &History{path: path}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4*maxHistoryEntry)
	for sc.Scan() {
		var e string
		if json.Unmarshal(sc.Bytes(), &e) == nil && e != "" {
			h.entries = append(h.entries, e)
		}
	}
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	return h, nil
}

// Len is the number of entries.
func (h *History) Len() int {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

// At returns entry i, oldest first.
func (h *History) At(i int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.entries[i]
}

// Add appends an entry (not a repeat of the last one) and stores it. The
// file is rewritten when it holds far more than maxHistory entries.
func (h *History) Add(e string) {
	if h == nil || strings.TrimSpace(e) == "" || len(e) > maxHistoryEntry {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.entries); n > 0 && h.entries[n-1] == e {
		return
	}
	h.entries = append(h.entries, e)
	if h.path == "" {
		return
	}
	if len(h.entries) > 2*maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
		h.failed(h.rewrite())
		return
	}
	h.failed(h.append(e))
}

// append stores one entry at the end of the file.
func (h *History) append(e string) error {
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	line, _ := json.Marshal(e) // a string always marshals
	_, err = f.Write(append(line, '\n'))
	return errors.Join(err, f.Close())
}

// rewrite stores the entries kept, replacing the file; a failed rewrite
// leaves the old file and no temporary one.
func (h *History) rewrite() error {
	var b strings.Builder
	for _, e := range h.entries {
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp := h.path + ".tmp"
	err := os.WriteFile(tmp, []byte(b.String()), 0o600)
	if err == nil {
		err = os.Rename(tmp, h.path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
