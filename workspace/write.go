package workspace

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
)

// WriteFile atomically replaces (or creates) name with data, creating
// parent directories inside the workspace. An existing file keeps its mode;
// a new one gets 0644. The change is journaled under the call id in ctx;
// when data equals the current content nothing is written and the zero
// Change is returned.
func (w *Workspace) WriteFile(ctx context.Context, name string, data []byte) (Change, error) {
	cs, err := w.Transact(ctx, func(tx *Tx) error { return tx.WriteFile(name, data, 0) })
	if err != nil || len(cs) == 0 {
		return Change{}, err
	}
	return cs[0], nil
}

// Remove deletes the regular file name and journals the deletion.
func (w *Workspace) Remove(ctx context.Context, name string) (Change, error) {
	cs, err := w.Transact(ctx, func(tx *Tx) error { return tx.Remove(name) })
	if err != nil || len(cs) == 0 {
		return Change{}, err
	}
	return cs[0], nil
}

// Transact runs fn with a transaction that stages reads and writes, then
// commits every staged file at once: either all files change or none does
// (a failure part-way rolls back the files already written). fn runs with
// the workspace's mutation lock held, so it sees a stable tree and must be
// quick (no process execution). It returns the journaled changes, one per
// file whose content or existence changed, in first-touched order.
func (w *Workspace) Transact(ctx context.Context, fn func(tx *Tx) error) ([]Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, ErrClosed
	}
	tx := &Tx{w: w, files: map[string]*txFile{}}
	if err := fn(tx); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return tx.commit(callIDOrNew(ctx))
}

// Tx is a set of staged file changes; see Workspace.Transact. A Tx is only
// valid inside the fn passed to Transact and is not safe for concurrent use.
type Tx struct {
	w     *Workspace
	files map[string]*txFile // canonical rel path → staged state
	order []string
}

type txFile struct {
	// orig is the on-disk state when first touched.
	origExists bool
	origData   []byte
	origMode   fs.FileMode
	// cur is the staged state.
	exists bool
	data   []byte
	mode   fs.FileMode
}

// file loads (once) the state of name into the transaction.
func (tx *Tx) file(name string) (string, *txFile, error) {
	rel, err := tx.w.Rel(name)
	if err != nil {
		return "", nil, err
	}
	if rel == "." {
		return "", nil, fmt.Errorf("%s: is the workspace directory, not a file", name)
	}
	canon, err := tx.w.resolve(name, rel)
	if err != nil {
		return "", nil, err
	}
	if f, ok := tx.files[canon]; ok {
		return canon, f, nil
	}
	f := &txFile{}
	fi, err := tx.w.root.Lstat(canon)
	switch {
	case errors.Is(err, fs.ErrNotExist) || isNotDir(err):
		// absent (isNotDir: a parent is a file; the write will say so)
	case err != nil:
		return "", nil, tx.w.wrap("stat", name, err)
	case fi.IsDir():
		return "", nil, fmt.Errorf("%s: is a directory", name)
	case !fi.Mode().IsRegular():
		return "", nil, fmt.Errorf("%s: not a regular file (%s); only regular files can be changed", name, fi.Mode().Type())
	default:
		data, err := tx.w.readRel(name, canon, tx.w.opts.MaxReadBytes)
		if err != nil {
			return "", nil, err
		}
		f.origExists, f.origData, f.origMode = true, data, fi.Mode().Perm()
	}
	f.exists, f.data, f.mode = f.origExists, f.origData, f.origMode
	tx.files[canon] = f
	tx.order = append(tx.order, canon)
	return canon, f, nil
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// ReadFile returns the staged content of name (or the file's content when
// it has not been staged). A missing file fails with fs.ErrNotExist.
func (tx *Tx) ReadFile(name string) ([]byte, error) {
	_, f, err := tx.file(name)
	if err != nil {
		return nil, err
	}
	if !f.exists {
		return nil, fmt.Errorf("read %s: %w", name, fs.ErrNotExist)
	}
	return f.data, nil
}

// Exists reports whether name exists in the staged state.
func (tx *Tx) Exists(name string) (bool, error) {
	_, f, err := tx.file(name)
	if err != nil {
		return false, err
	}
	return f.exists, nil
}

// Mode returns the staged permission bits of name (0 when absent).
func (tx *Tx) Mode(name string) (fs.FileMode, error) {
	_, f, err := tx.file(name)
	if err != nil {
		return 0, err
	}
	return f.mode, nil
}

// WriteFile stages new content for name. A zero mode keeps the existing
// file's mode, or uses 0644 for a new file.
func (tx *Tx) WriteFile(name string, data []byte, mode fs.FileMode) error {
	_, f, err := tx.file(name)
	if err != nil {
		return err
	}
	switch {
	case mode != 0:
		f.mode = mode.Perm()
	case !f.exists:
		f.mode = defaultNewFileMode
	}
	f.exists, f.data = true, append([]byte(nil), data...)
	return nil
}

// Remove stages the deletion of name, which must exist.
func (tx *Tx) Remove(name string) error {
	_, f, err := tx.file(name)
	if err != nil {
		return err
	}
	if !f.exists {
		return fmt.Errorf("remove %s: %w", name, fs.ErrNotExist)
	}
	f.exists, f.data, f.mode = false, nil, 0
	return nil
}

// Rename stages moving oldName to newName (which must not exist), keeping
// content and mode. It is journaled as a deletion and a creation.
func (tx *Tx) Rename(oldName, newName string) error {
	oc, of, err := tx.file(oldName)
	if err != nil {
		return err
	}
	nc, nf, err := tx.file(newName)
	if err != nil {
		return err
	}
	if !of.exists {
		return fmt.Errorf("rename %s: %w", oldName, fs.ErrNotExist)
	}
	if oc == nc {
		return nil
	}
	if nf.exists {
		return fmt.Errorf("rename %s to %s: %w", oldName, newName, fs.ErrExist)
	}
	nf.exists, nf.data, nf.mode = true, of.data, of.mode
	of.exists, of.data, of.mode = false, nil, 0
	return nil
}

// commit writes every staged file and journals the changes; on a failure
// it restores the files already written and reports that nothing changed.
func (tx *Tx) commit(callID string) ([]Change, error) {
	w := tx.w
	now := w.opts.Now()
	var changes []Change
	for _, rel := range tx.order {
		f := tx.files[rel]
		if f.exists == f.origExists && f.mode == f.origMode && string(f.data) == string(f.origData) {
			continue
		}
		var created []string
		var err error
		if f.exists {
			created, err = w.writeAtomic(rel, f.data, f.mode)
		} else {
			err = w.wrap("remove", rel, w.root.Remove(rel))
		}
		if err != nil {
			if rerr := tx.rollback(changes); rerr != nil {
				return nil, fmt.Errorf("%w; rolling back the other files also failed: %v", err, rerr)
			}
			if len(changes) > 0 {
				return nil, fmt.Errorf("%w (no file was changed: the files written before it were restored)", err)
			}
			return nil, err
		}
		changes = append(changes, Change{
			Path: rel, CallID: callID, Time: now,
			Before:      w.journal.state(f.origExists, f.origData, f.origMode),
			After:       w.journal.state(f.exists, f.data, f.mode),
			createdDirs: created,
		})
	}
	w.journal.add(changes...)
	// Return the journal's copies, which carry their sequence numbers.
	out := append([]Change(nil), w.journal.changes[len(w.journal.changes)-len(changes):]...)
	return out, nil
}

// rollback restores the original state of already-committed files, newest
// first. It works from the transaction's full copies, not the journal's
// capped ones, so it can always restore.
func (tx *Tx) rollback(done []Change) error {
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		c := done[i]
		f := tx.files[c.Path]
		if f.origExists {
			if _, err := tx.w.writeAtomic(c.Path, f.origData, f.origMode); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err := tx.w.root.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, tx.w.wrap("remove", c.Path, err))
		}
		tx.w.removeDirs(c.createdDirs)
	}
	return errors.Join(errs...)
}

// writeAtomic writes data to rel through a temporary file in the same
// directory: write, fsync, chmod, rename over the target, fsync the
// directory. A reader sees the old content or the new, never a mix, and a
// crash leaves at worst a stray temporary file. It returns the parent
// directories it had to create, outermost first.
func (w *Workspace) writeAtomic(rel string, data []byte, mode fs.FileMode) ([]string, error) {
	dir := path.Dir(rel)
	created, err := w.mkdirAll(dir)
	if err != nil {
		return nil, err
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	// The temporary name does not embed the target's: a 250-byte file
	// name must not fail with ENAMETOOLONG on its temporary twin.
	tmp := path.Join(dir, tempPrefix+hex.EncodeToString(rnd[:]))
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		w.removeDirs(created)
		return nil, w.wrap("write", rel, err)
	}
	holdTemp(f) // until Close: SweepTemp leaves a file being written alone
	fail := func(err error) ([]string, error) {
		f.Close()
		_ = w.root.Remove(tmp)
		w.removeDirs(created)
		return nil, w.wrap("write", rel, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	// Chmod through the open handle, not by name: no symlink race.
	if err := f.Chmod(mode.Perm()); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		_ = w.root.Remove(tmp)
		w.removeDirs(created)
		return nil, w.wrap("write", rel, err)
	}
	if err := w.root.Rename(tmp, rel); err != nil {
		_ = w.root.Remove(tmp)
		w.removeDirs(created)
		return nil, w.wrap("write", rel, err)
	}
	if d, err := w.root.Open(dir); err == nil {
		_ = d.Sync() // durability of the rename; best effort on odd filesystems
		d.Close()
	}
	return created, nil
}

// mkdirAll creates dir and missing parents inside the workspace and
// returns the ones it created, outermost first.
func (w *Workspace) mkdirAll(dir string) ([]string, error) {
	if dir == "." {
		return nil, nil
	}
	var missing []string
	for d := dir; d != "."; d = path.Dir(d) {
		fi, err := w.root.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return nil, fmt.Errorf("create directory %s: %s is a file", dir, d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, w.wrap("create directory", dir, err)
		}
		missing = append(missing, d)
	}
	if len(missing) == 0 {
		return nil, nil
	}
	if err := w.root.MkdirAll(dir, defaultNewDirMode); err != nil {
		return nil, w.wrap("create directory", dir, err)
	}
	for i, j := 0, len(missing)-1; i < j; i, j = i+1, j-1 {
		missing[i], missing[j] = missing[j], missing[i]
	}
	return missing, nil
}

// Temporary files a killed rein left (see writeAtomic) are removed by
// SweepTemp at the start of a run. It removes only what is provably such a
// leftover: a regular file (not a symlink or anything else) named exactly
// ".rein-tmp-" and 12 lowercase hex digits, whose writer's lock is gone
// (the kernel drops it when the writer dies) and which has not been
// modified for tempMinAge: a writer takes its lock microseconds after
// creating the file, so a younger unheld file may be one about to be
// locked. (A writer that takes no lock — a rein before this one — is not
// protected beyond that.)
const (
	tempMinAge = 100 * time.Millisecond
	// sweepBudget bounds the entries SweepTemp visits, so a start in a
	// huge tree stays quick; the rest waits for a later start.
	sweepBudget = 200_000
)

// SweepTemp removes the temporary files killed writes left in the
// workspace, skipping .git directories, and returns their workspace paths.
// It is safe while other processes write to the workspace. Errors reading
// the tree end the sweep early; they are not reported, as a leftover file
// only wastes space.
func (w *Workspace) SweepTemp(ctx context.Context) []string {
	var removed []string
	visited := 0
	now := time.Now()
	_ = fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		visited++
		switch {
		case err != nil:
			return fs.SkipDir
		case visited > sweepBudget || ctx.Err() != nil:
			return fs.SkipAll
		case d.IsDir() && d.Name() == ".git":
			return fs.SkipDir
		case !d.Type().IsRegular() || !isTempName(d.Name()):
			return nil
		}
		if w.removeLeftover(p, now) {
			removed = append(removed, p)
		}
		return nil
	})
	return removed
}

// isTempName reports the exact names writeAtomic gives its temporary files.
func isTempName(name string) bool {
	hexPart, ok := strings.CutPrefix(name, tempPrefix)
	if !ok || len(hexPart) != 12 {
		return false
	}
	for _, c := range hexPart {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// removeLeftover removes the temporary file p if it is a leftover: opened
// without following a symlink, a regular file, old enough and not held by
// a writer.
func (w *Workspace) removeLeftover(p string, now time.Time) bool {
	f, err := w.root.OpenFile(p, tempOpenFlags, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < tempMinAge || tempHeld(f) {
		return false
	}
	return w.root.Remove(p) == nil
}
