package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"
)

// State is one side (before or after) of a journaled change.
type State struct {
	// Exists is false when the file was absent.
	Exists bool
	// Mode is the file's permission bits.
	Mode fs.FileMode
	// Size is the content length in bytes.
	Size int64
	// Hash is the hex SHA-256 of the content ("" when absent).
	Hash string
	// Data is the content when it was small enough to keep; nil otherwise
	// (see Stored). Callers must not modify it.
	Data []byte
	// Stored reports whether Data holds the content. A change whose
	// before-state existed but was not stored cannot be undone.
	Stored bool
}

// Change is one journaled file change: the state a write replaced and the
// state it left, the tool call that made it, and when.
type Change struct {
	// Seq increases by one per change over the life of the workspace.
	Seq int64
	// Path is the canonical workspace-relative path (symlinks resolved).
	Path string
	// CallID is the id of the tool call that made the change.
	CallID string
	// Time is when the change was committed.
	Time time.Time
	// Before is the state the change replaced; After the state it left.
	Before State
	After  State

	// createdDirs are the parent directories the change created, deepest
	// last, so that undo can remove them again when they are empty.
	createdDirs []string
}

// Kind describes a change as "create", "delete" or "modify".
func (c Change) Kind() string {
	switch {
	case !c.Before.Exists:
		return "create"
	case !c.After.Exists:
		return "delete"
	default:
		return "modify"
	}
}

// Undoable reports whether the change's before-state can be restored.
func (c Change) Undoable() bool { return !c.Before.Exists || c.Before.Stored }

// journal is the ordered change list. It is guarded by Workspace.mu.
type journal struct {
	changes   []Change
	nextSeq   int64
	stored    int64 // bytes held in Data across all changes
	fileCap   int64
	totalCap  int64
	dropFloor int // changes[:dropFloor] hold no Data any more
}

func (j *journal) init(o Options) {
	j.nextSeq = 1
	j.fileCap = o.JournalFileBytes
	j.totalCap = o.JournalTotalBytes
}

// state builds a State for content data (exists) keeping the bytes only
// under the per-file cap.
func (j *journal) state(exists bool, data []byte, mode fs.FileMode) State {
	if !exists {
		return State{}
	}
	sum := sha256.Sum256(data)
	s := State{Exists: true, Mode: mode.Perm(), Size: int64(len(data)), Hash: hex.EncodeToString(sum[:])}
	if int64(len(data)) <= j.fileCap {
		s.Data = append([]byte(nil), data...)
		s.Stored = true
	}
	return s
}

// add appends changes and enforces the total cap by dropping the oldest
// stored contents to hashes (the newest changes, the ones an undo reaches
// first, keep their bytes longest).
func (j *journal) add(cs ...Change) {
	for _, c := range cs {
		c.Seq = j.nextSeq
		j.nextSeq++
		j.stored += int64(len(c.Before.Data) + len(c.After.Data))
		j.changes = append(j.changes, c)
	}
	for j.stored > j.totalCap && j.dropFloor < len(j.changes) {
		c := &j.changes[j.dropFloor]
		j.stored -= int64(len(c.Before.Data) + len(c.After.Data))
		c.Before.Data, c.Before.Stored = nil, false
		c.After.Data, c.After.Stored = nil, false
		j.dropFloor++
	}
}

// pop removes the newest change.
func (j *journal) pop() {
	c := j.changes[len(j.changes)-1]
	j.stored -= int64(len(c.Before.Data) + len(c.After.Data))
	j.changes = j.changes[:len(j.changes)-1]
	if j.dropFloor > len(j.changes) {
		j.dropFloor = len(j.changes)
	}
}

// Changes returns the journal, oldest first. The returned slice is a copy;
// the Data it references must not be modified.
func (w *Workspace) Changes() []Change {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Change(nil), w.journal.changes...)
}

// ChangesSince returns the journaled changes with Seq > seq, oldest first:
// what happened since a caller last looked, without copying the rest.
func (w *Workspace) ChangesSince(seq int64) []Change {
	w.mu.Lock()
	defer w.mu.Unlock()
	cs := w.journal.changes
	i := sort.Search(len(cs), func(i int) bool { return cs[i].Seq > seq })
	return append([]Change(nil), cs[i:]...)
}

// UndoAll undoes every journaled change, newest first. See Undo.
func (w *Workspace) UndoAll() (int, error) {
	w.mu.Lock()
	n := len(w.journal.changes)
	w.mu.Unlock()
	return w.Undo(n)
}

// UndoCalls undoes every change made by the newest n tool calls (a patch
// touching three files is one call and three changes), newest first, and
// returns how many changes it undid. It stops like Undo on a change it
// cannot undo.
func (w *Workspace) UndoCalls(n int) (int, error) {
	w.mu.Lock()
	changes := 0
	calls := 0
	last := ""
	for i := len(w.journal.changes) - 1; i >= 0; i-- {
		id := w.journal.changes[i].CallID
		if changes == 0 || id != last {
			if calls == n {
				break
			}
			calls++
			last = id
		}
		changes++
	}
	w.mu.Unlock()
	return w.Undo(changes)
}

// Undo restores the before-states of the newest n changes, newest first,
// and removes them from the journal: created files are deleted (with the
// directories the change created, when empty), modified and deleted files
// get their old bytes and mode back. It stops at the first change it
// cannot undo — contents too large to have been kept (ErrNotUndoable) or a
// file that changed after the journaled change (ErrConflict) — leaving that
// change and older ones in place, and returns how many were undone.
func (w *Workspace) Undo(n int) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, ErrClosed
	}
	done := 0
	for done < n && len(w.journal.changes) > 0 {
		c := w.journal.changes[len(w.journal.changes)-1]
		if err := w.undoOne(c); err != nil {
			return done, err
		}
		w.journal.pop()
		done++
	}
	return done, nil
}

func (w *Workspace) undoOne(c Change) error {
	if !c.Undoable() {
		return fmt.Errorf("%w: %s (change %d): its previous content (%d bytes) was over the %d-byte journal limit, only its hash was kept",
			ErrNotUndoable, c.Path, c.Seq, c.Before.Size, w.journal.fileCap)
	}
	cur, err := w.currentHash(c.Path)
	if err != nil {
		return fmt.Errorf("undo %s: %w", c.Path, err)
	}
	if cur != c.After.Hash {
		return fmt.Errorf("%w: cannot undo change %d to %s: the file was changed after it (by a command or another tool); it was left as it is",
			ErrConflict, c.Seq, c.Path)
	}
	if !c.Before.Exists {
		if err := w.root.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return w.wrap("undo: remove", c.Path, err)
		}
		w.removeDirs(c.createdDirs)
		return nil
	}
	if _, err := w.writeAtomic(c.Path, c.Before.Data, c.Before.Mode); err != nil {
		return fmt.Errorf("undo %s: %w", c.Path, err)
	}
	return nil
}

// removeDirs removes directories a change created, deepest first, ignoring
// ones that are no longer empty.
func (w *Workspace) removeDirs(dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = w.root.Remove(dirs[i]) // fails harmlessly when not empty
	}
}

// currentHash returns the hex SHA-256 of the file at rel, or "" when it
// does not exist.
func (w *Workspace) currentHash(rel string) (string, error) {
	f, err := w.root.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", w.wrap("open", rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", w.wrap("stat", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is no longer a regular file", rel)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", w.wrap("read", rel, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Diff returns the net effect of the journaled changes as a git-style
// unified diff, one section per file in the order files were first
// changed. A file changed several times shows once, from its first
// before-state to its last after-state; files whose net effect is nil are
// omitted. Contents the journal could not keep are described by size and
// hash instead of lines.
func (w *Workspace) Diff() string {
	w.mu.Lock()
	changes := append([]Change(nil), w.journal.changes...)
	w.mu.Unlock()
	type net struct{ before, after State }
	byPath := map[string]*net{}
	var order []string
	for _, c := range changes {
		if n, ok := byPath[c.Path]; ok {
			n.after = c.After
			continue
		}
		byPath[c.Path] = &net{c.Before, c.After}
		order = append(order, c.Path)
	}
	var sb strings.Builder
	for _, p := range order {
		n := byPath[p]
		writeFileDiff(&sb, p, n.before, n.after)
	}
	return sb.String()
}

func writeFileDiff(sb *strings.Builder, p string, before, after State) {
	if before.Exists == after.Exists && before.Hash == after.Hash && gitMode(before.Mode) == gitMode(after.Mode) {
		return
	}
	fmt.Fprintf(sb, "diff --git a/%s b/%s\n", p, p)
	oldName, newName := "a/"+p, "b/"+p
	switch {
	case !before.Exists:
		fmt.Fprintf(sb, "new file mode %s\n", gitMode(after.Mode))
		oldName = "/dev/null"
	case !after.Exists:
		fmt.Fprintf(sb, "deleted file mode %s\n", gitMode(before.Mode))
		newName = "/dev/null"
	case gitMode(before.Mode) != gitMode(after.Mode):
		fmt.Fprintf(sb, "old mode %s\nnew mode %s\n", gitMode(before.Mode), gitMode(after.Mode))
	}
	if before.Hash == after.Hash {
		return // mode change only
	}
	if (before.Exists && !before.Stored) || (after.Exists && !after.Stored) {
		fmt.Fprintf(sb, "Files %s and %s differ (contents over the journal limit: %s, %s)\n",
			oldName, newName, describeState(before), describeState(after))
		return
	}
	if IsBinary(before.Data) || IsBinary(after.Data) {
		fmt.Fprintf(sb, "Binary files %s and %s differ\n", oldName, newName)
		return
	}
	sb.WriteString(UnifiedDiff(oldName, newName, before.Data, after.Data))
}

func describeState(s State) string {
	if !s.Exists {
		return "absent"
	}
	return fmt.Sprintf("%d bytes sha256:%s", s.Size, s.Hash)
}

// gitMode renders permission bits as git's regular-file mode: 100755 when
// any execute bit is set, 100644 otherwise.
func gitMode(m fs.FileMode) string {
	if m&0o111 != 0 {
		return "100755"
	}
	return "100644"
}
