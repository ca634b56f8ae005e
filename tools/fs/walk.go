package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path"

	"github.com/reinharness/rein/workspace"
)

// errStopWalk ends a walk early without an error.
var errStopWalk = errors.New("stop walk")

// walkEntry is one file or directory met by walk.
type walkEntry struct {
	rel   string // workspace-relative, slash-separated
	depth int    // 1 for the start directory's children
	entry iofs.DirEntry
}

// walker visits workspace trees the way a careful developer's tools do:
// .git is skipped, .gitignore files are respected, symlinks are reported
// but never followed (a link cannot lead a walk out of the workspace or
// into a cycle), and the number of entries visited is bounded.
type walker struct {
	ws         *workspace.Workspace
	ig         *ignorer
	noIgnore   bool
	maxVisited int
	visited    int
	// limited is set when maxVisited stopped the walk.
	limited bool
}

func newWalker(ws *workspace.Workspace, maxVisited int) *walker {
	return &walker{
		ws: ws,
		ig: newIgnorer(func(rel string) (string, bool) {
			b, err := ws.ReadFile(rel)
			if err != nil {
				return "", false
			}
			return string(b), true
		}),
		maxVisited: maxVisited,
	}
}

// walk calls fn for every entry below start (a directory), depth-first in
// name order, down to maxDepth levels (0 for unlimited). fn returning
// iofs.SkipDir on a directory skips its contents; errStopWalk ends the
// walk. Directories that cannot be read are skipped silently: a walk
// reports what it can see.
func (w *walker) walk(ctx context.Context, start string, maxDepth int, fn func(walkEntry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := w.walkDir(ctx, start, 1, maxDepth, fn)
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

func (w *walker) walkDir(ctx context.Context, dir string, depth, maxDepth int, fn func(walkEntry) error) error {
	entries, err := w.ws.ReadDir(dir) // sorted by name
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if w.visited >= w.maxVisited {
			w.limited = true
			return errStopWalk
		}
		w.visited++
		rel := e.Name()
		if dir != "." {
			rel = path.Join(dir, e.Name())
		}
		isDir := e.IsDir() // false for a symlink, which is never followed
		if isDir && e.Name() == ".git" {
			continue
		}
		if !w.noIgnore && w.ig.decide(rel, isDir) {
			continue
		}
		err := fn(walkEntry{rel: rel, depth: depth, entry: e})
		if errors.Is(err, iofs.SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if isDir && (maxDepth == 0 || depth < maxDepth) {
			if err := w.walkDir(ctx, rel, depth+1, maxDepth, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// statDir resolves a tool's optional directory argument, confined to the
// workspace, and checks it is a directory.
func statDir(ws *workspace.Workspace, p string) (string, error) {
	rel, err := ws.Rel(p)
	if err != nil {
		return "", err
	}
	fi, err := ws.Stat(rel)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is a file, not a directory", p)
	}
	return rel, nil
}
