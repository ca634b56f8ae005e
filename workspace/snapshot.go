package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"
)

// The bound on detecting a command's own file writes. Before and after
// every Exec the workspace is scanned by metadata (size, mtime, mode) —
// the first snapshotMaxFiles regular files in lexical walk order, leaving
// out .git and dependency trees (snapshotSkip) — and a file whose
// metadata changed is journaled as a change of the call, so diff and undo
// cover it; at most snapshotMaxChanges per command (an install or a build
// writing thousands of files is not worth a journal entry each). Contents
// are kept (for undo's before-image) for files up to snapshotMaxFileBytes,
// snapshotMaxBytes in all; a file over those is journaled with an unknown
// before-content, which undo refuses by name. Files past the count are
// not looked at.
const (
	snapshotMaxFiles     = 20000
	snapshotMaxChanges   = 500
	snapshotMaxFileBytes = 1 << 20
	snapshotMaxBytes     = 64 << 20
)

// snapshotSkip are directories whose files are not the project's own.
var snapshotSkip = map[string]bool{".git": true, "node_modules": true, ".venv": true, "__pycache__": true}

// snapEntry is what a scan saw of one file.
type snapEntry struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
	data  []byte // the content when kept
	kept  bool
}

func (e snapEntry) same(o snapEntry) bool {
	return e.size == o.size && e.mtime.Equal(o.mtime) && e.mode == o.mode
}

// snapCache is the last scan, whose kept contents are the before-images
// of the next command.
type snapCache struct {
	mu    sync.Mutex
	files map[string]snapEntry
}

// scan walks the workspace, reusing the contents of files whose metadata
// did not change since prev.
func (w *Workspace) scan(prev map[string]snapEntry, budget *int64) map[string]snapEntry {
	out := map[string]snapEntry{}
	stop := errors.New("enough")
	filepath.WalkDir(w.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && snapshotSkip[d.Name()] {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if len(out) >= snapshotMaxFiles {
			return stop
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(w.dir, path)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		e := snapEntry{size: info.Size(), mtime: info.ModTime(), mode: info.Mode().Perm()}
		if p, ok := prev[rel]; ok && p.same(e) {
			e.data, e.kept = p.data, p.kept
		} else if e.size <= snapshotMaxFileBytes && *budget >= e.size {
			if data, err := os.ReadFile(path); err == nil && int64(len(data)) == e.size {
				e.data, e.kept = data, true
			}
		}
		if e.kept {
			*budget -= int64(len(e.data))
		}
		out[rel] = e
		return nil
	})
	return out
}

// beforeExec returns the snapshot a command's writes are found against and
// the journal's next sequence number (changes from it on were journaled
// by tools while the command ran, and are theirs).
func (w *Workspace) beforeExec() (map[string]snapEntry, int64) {
	w.snap.mu.Lock()
	defer w.snap.mu.Unlock()
	budget := int64(snapshotMaxBytes)
	w.snap.files = w.scan(w.snap.files, &budget)
	w.mu.Lock()
	seq := w.journal.nextSeq
	w.mu.Unlock()
	return w.snap.files, seq
}

// afterExec journals, as changes of callID, the files the command
// created, modified or removed since before.
func (w *Workspace) afterExec(callID string, before map[string]snapEntry, seq int64) {
	w.snap.mu.Lock()
	defer w.snap.mu.Unlock()
	budget := int64(snapshotMaxBytes)
	after := w.scan(before, &budget)
	w.snap.files = after
	w.mu.Lock()
	defer w.mu.Unlock()
	byTools := map[string]bool{}
	for _, c := range w.journal.changes {
		if c.Seq >= seq {
			byTools[c.Path] = true
		}
	}
	var paths []string
	for p := range before {
		paths = append(paths, p)
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	now := w.opts.Now()
	var changes []Change
	for _, p := range paths {
		b, hadB := before[p]
		a, hasA := after[p]
		if byTools[p] || (hadB && hasA && b.same(a)) {
			continue
		}
		c := Change{Path: p, CallID: callID, Time: now, Before: w.snapState(hadB, b), After: w.snapState(hasA, a)}
		if c.Before.Exists && c.After.Exists && c.Before.Hash == c.After.Hash && c.Before.Mode == c.After.Mode {
			continue // touched, not changed
		}
		if len(changes) == snapshotMaxChanges {
			w.opts.Logger.Warn(fmt.Sprintf("rein: the command changed more than %d files; only the first %d (by name) are journaled for diff and undo", snapshotMaxChanges, snapshotMaxChanges))
			break
		}
		changes = append(changes, c)
	}
	w.journal.add(changes...)
}

// snapState is the journal state of a scanned file; content not kept gets
// a hash no content has, so undo finds no image and refuses.
func (w *Workspace) snapState(exists bool, e snapEntry) State {
	if !exists {
		return State{}
	}
	if e.kept {
		return w.journal.state(true, e.data, e.mode)
	}
	return State{Exists: true, Mode: e.mode, Size: e.size, Hash: "unknown-" + strconv.FormatInt(e.size, 10) + "-" + strconv.FormatInt(e.mtime.UnixNano(), 10)}
}
