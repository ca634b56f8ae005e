package fs

import (
	"context"
	"errors"
	iofs "io/fs"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reinharness/rein/workspace"
)

// searchWalker visits a workspace tree with exactly the order and rules of
// walker (walk.go) — depth-first in name order, .git skipped, .gitignore
// files respected, symlinks reported but never followed, at most
// maxVisited entries counted the same way — but lists directories ahead
// of the visit on GOMAXPROCS goroutines. The visit itself stays
// sequential, so what it reports, and where a cap or the entry limit cuts
// it, is what walker would report; only the waiting for the disk is
// overlapped.
//
// Each directory is opened once, from its parent's (see dirHandle), so
// listing it and opening its files cost one system call each rather than
// one per path component, and confinement is never looser than the
// workspace's: no symlink is followed below the start directory.
type searchWalker struct {
	ws         *workspace.Workspace
	maxVisited int
	maxDepth   int
	visited    int
	// limited is set when maxVisited stopped the walk.
	limited bool

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []*dirNode // directories to list ahead, the next wanted last
	budget  int        // entries the read-ahead may still list
	ahead   int        // directories listed ahead and not yet visited
	closed  bool
	nodes   []*dirNode // every directory met, to release at the end
	readers sync.WaitGroup
}

// maxAhead bounds how many directories the read-ahead lists before the
// visit reaches them: enough to hide the disk, few enough that a search
// stopped early by its caps has not listed the whole tree.
const maxAhead = 32

// dirNode is one directory of the walk, listed once by whichever of the
// read-ahead and the visit gets to it first.
type dirNode struct {
	rel    string
	name   string   // its name in parent
	parent *dirNode // nil for the start directory
	depth  int      // depth of its entries: 1 for the start directory's children
	// ignores are the .gitignore rules that apply to its entries, the
	// workspace root's first; the directory's own file is added when it
	// is listed.
	ignores []*ignoreFile
	claimed atomic.Bool
	ready   chan struct{}
	items   []dirItem
	listed  bool // by the read-ahead (read by the visit after ready)
	visited bool // the visit is done with it (visit goroutine only)

	// dir is the directory opened, nil if it could not be; it is closed
	// when refs, one held by the walk and one by each file search still
	// to run in it, drops to zero.
	dir  *dirHandle
	refs atomic.Int32
}

// dirItem is one entry of a listed directory.
type dirItem struct {
	rel   string
	entry iofs.DirEntry
	skip  bool     // .git or gitignored: counted as visited, not reported
	child *dirNode // the directory to descend into, or nil
}

func newSearchWalker(ws *workspace.Workspace, maxVisited int) *searchWalker {
	w := &searchWalker{ws: ws, maxVisited: maxVisited, budget: maxVisited}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// walk calls fn for every entry below start (a directory) in walker's
// order, down to maxDepth levels (0 for unlimited), with the directory
// holding it. fn returning iofs.SkipDir on a directory skips its
// contents; errStopWalk ends the walk. It returns once every goroutine it
// started has stopped; directories stay open while fn's users hold them
// (see acquire).
func (w *searchWalker) walk(ctx context.Context, start string, maxDepth int, fn func(walkEntry, *dirNode) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.maxDepth = maxDepth
	root := newDirNode(nil, start, start, 1, w.ancestorIgnores(start))
	w.nodes = append(w.nodes, root)
	for range max(1, runtime.GOMAXPROCS(0)) {
		w.readers.Add(1)
		go w.readAhead()
	}
	err := w.visit(ctx, root, fn)
	w.stop()
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

func newDirNode(parent *dirNode, rel, name string, depth int, ignores []*ignoreFile) *dirNode {
	n := &dirNode{rel: rel, name: name, parent: parent, depth: depth, ignores: ignores, ready: make(chan struct{})}
	n.refs.Store(1)
	return n
}

// stop ends the read-ahead and releases the walk's hold on every
// directory the visit did not finish.
func (w *searchWalker) stop() {
	w.mu.Lock()
	w.closed = true
	w.stack = nil
	w.mu.Unlock()
	w.cond.Broadcast()
	w.readers.Wait()
	for _, n := range w.nodes {
		if !n.visited {
			n.release()
		}
	}
	w.nodes = nil
}

// acquire keeps n's directory open for a file search; release lets it go.
func (n *dirNode) acquire() { n.refs.Add(1) }

func (n *dirNode) release() {
	if n.refs.Add(-1) == 0 && n.dir != nil {
		n.dir.close()
	}
}

func (w *searchWalker) visit(ctx context.Context, n *dirNode, fn func(walkEntry, *dirNode) error) error {
	w.await(n)
	defer func() {
		n.visited = true
		n.release()
	}()
	if n.listed {
		w.mu.Lock()
		w.ahead--
		w.mu.Unlock()
		w.cond.Broadcast()
	}
	for i := range n.items {
		it := &n.items[i]
		if err := ctx.Err(); err != nil {
			return err
		}
		if w.visited >= w.maxVisited {
			w.limited = true
			return errStopWalk
		}
		w.visited++
		if it.skip {
			continue
		}
		err := fn(walkEntry{rel: it.rel, depth: n.depth, entry: it.entry}, n)
		if errors.Is(err, iofs.SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if it.child != nil {
			if err := w.visit(ctx, it.child, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// await returns once n is listed, listing it here if no read-ahead
// goroutine has started to.
func (w *searchWalker) await(n *dirNode) {
	if n.claimed.CompareAndSwap(false, true) {
		w.list(n)
		return
	}
	<-n.ready
}

// readAhead lists queued directories until the walk ends.
func (w *searchWalker) readAhead() {
	defer w.readers.Done()
	for {
		w.mu.Lock()
		for (len(w.stack) == 0 || w.ahead >= maxAhead) && !w.closed {
			w.cond.Wait()
		}
		if w.closed {
			w.mu.Unlock()
			return
		}
		n := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		claimed := n.claimed.CompareAndSwap(false, true)
		if claimed {
			w.ahead++
		}
		w.mu.Unlock()
		if claimed {
			n.listed = true
			w.list(n)
		}
	}
}

// open opens n's directory from its parent's.
func (w *searchWalker) open(n *dirNode) (*dirHandle, error) {
	if n.parent == nil {
		return openStartDir(w.ws, n.rel)
	}
	if n.parent.dir == nil {
		return nil, iofs.ErrNotExist
	}
	return n.parent.dir.openDir(n.name)
}

// list reads n's entries, decides which are skipped and which are
// descended into, marks n ready and queues its subdirectories for the
// read-ahead (the first one on top, as the visit will want it first)
// while the read-ahead budget lasts. Beyond the budget — as many entries
// as the walk may visit — the visit lists what it needs itself, so the
// work stays bounded and the entry limit still cuts where walker's does.
func (w *searchWalker) list(n *dirNode) {
	defer close(n.ready)
	entries, err := w.readDir(n)
	if err != nil {
		return // unreadable directories are skipped, as walker does
	}
	ignores := n.ignores
	if _, ok := slices.BinarySearchFunc(entries, ".gitignore", func(e iofs.DirEntry, name string) int {
		return strings.Compare(e.Name(), name)
	}); ok {
		key := ignoreKey(n.rel)
		if f := loadIgnoreFile(w.ws, path.Join(key, ".gitignore"), key); f != nil {
			ignores = append(slices.Clip(ignores), f)
		}
	}
	n.items = make([]dirItem, len(entries))
	var children []*dirNode
	for i, e := range entries {
		rel := joinRel(n.rel, e.Name())
		isDir := e.IsDir() // false for a symlink, which is never followed
		it := dirItem{rel: rel, entry: e}
		it.skip = isDir && e.Name() == ".git" || ignoredBy(ignores, rel, isDir)
		if !it.skip && isDir && (w.maxDepth == 0 || n.depth < w.maxDepth) {
			it.child = newDirNode(n, rel, e.Name(), n.depth+1, ignores)
			children = append(children, it.child)
		}
		n.items[i] = it
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nodes = append(w.nodes, children...)
	w.budget -= len(entries)
	if w.closed || w.budget <= 0 || len(children) == 0 {
		return
	}
	for i := len(children) - 1; i >= 0; i-- {
		w.stack = append(w.stack, children[i])
	}
	w.cond.Broadcast()
}

// readDir opens n and lists it sorted by name, as workspace.ReadDir does.
func (w *searchWalker) readDir(n *dirNode) ([]iofs.DirEntry, error) {
	dir, err := w.open(n)
	if err != nil {
		return nil, err
	}
	n.dir = dir
	return dir.readDir()
}

// ancestorIgnores loads the .gitignore rules of start's ancestors, from
// the workspace root down to start's parent, and the root's
// .git/info/exclude: they apply below start as they do in walker, whose
// ignorer consults every ancestor. start's own .gitignore is added when
// it is listed.
func (w *searchWalker) ancestorIgnores(start string) []*ignoreFile {
	var files []*ignoreFile
	add := func(f *ignoreFile) {
		if f != nil {
			files = append(files, f)
		}
	}
	// The exclude rules come first: they have lower precedence than the
	// root's .gitignore.
	add(loadIgnoreFile(w.ws, ".git/info/exclude", ""))
	if start == "." {
		return files
	}
	dir := ""
	for _, part := range strings.Split(start, "/") {
		add(loadIgnoreFile(w.ws, path.Join(dir, ".gitignore"), dir))
		dir = path.Join(dir, part)
	}
	return files
}

// ignoreKey is the ignorer's name for a directory: "" for the root.
func ignoreKey(rel string) string {
	if rel == "." {
		return ""
	}
	return rel
}

// loadIgnoreFile parses the ignore file at rel, whose rules apply below
// base ("" for the root); nil when it cannot be read, as for ignorer.
func loadIgnoreFile(ws *workspace.Workspace, rel, base string) *ignoreFile {
	b, err := ws.ReadFile(rel)
	if err != nil {
		return nil
	}
	return parseGitignore(base, string(b))
}

// ignoredBy applies a directory's chain of .gitignore files to rel, the
// deepest file's verdict winning, as ignorer.decide does.
func ignoredBy(files []*ignoreFile, rel string, isDir bool) bool {
	ignored := false
	for _, f := range files {
		if v, ok := f.match(rel, isDir); ok {
			ignored = v
		}
	}
	return ignored
}
