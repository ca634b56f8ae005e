package tui

import (
	"bufio"
	"encoding/json"
	"errors"
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
		h.rewrite()
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	line, _ := json.Marshal(e)
	f.Write(append(line, '\n'))
}

// rewrite stores the entries kept, replacing the file.
func (h *History) rewrite() {
	var b strings.Builder
	for _, e := range h.entries {
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp := h.path + ".tmp"
	if os.WriteFile(tmp, []byte(b.String()), 0o600) == nil {
		os.Rename(tmp, h.path)
	}
}
