// Package wspath is how a workspace's paths look to a policy decision and
// to the shell analyzer alike: resolved through symlinks as the kernel
// would, /proc aliases read as what they alias, globs expanded within a
// budget. Both policy and policy/shell use it; it imports neither.
package wspath

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Paths are decided after resolution (DESIGN §4a): a rule on .git/config
// or secrets/** must see `cfg -> .git/config`, `hk/pre-commit` with
// `hk -> .git/hooks`, `cd .git && … >> config` and `link/prod.key` for
// what they are. The engine therefore resolves every path it decides
// against the directories a command may run in and follows symlinks
// inside the workspace, and it matches rules on each form a path takes.
// This is the only I/O Decide does: Lstat and Readlink of workspace
// entries, bounded, and listing directories to expand globs.

// Bounds on resolution work, so a hostile tree cannot stall a decision.
const (
	maxLinkHops = 40
	// MaxGlobMatches is the most paths ExpandGlob returns.
	MaxGlobMatches = 2048
)

// Resolve follows symlinks in p (absolute) component by component, as
// the kernel does, while the path stays inside ws; the result is the
// path the kernel would open. Components that do not exist are kept as
// written (a file about to be created). A path that leaves ws is
// returned as where it leads.
func Resolve(ws, p string) string {
	if ws == "" || !path.IsAbs(p) || !Within(path.Clean(p), ws) {
		return path.Clean(p)
	}
	if p != ws && !strings.HasPrefix(p, ws+"/") {
		p = path.Clean(p)
	}
	rest := strings.Split(strings.TrimPrefix(p, ws), "/")
	cur := ws
	hops := 0
	for len(rest) > 0 {
		comp := rest[0]
		rest = rest[1:]
		switch comp {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, comp)
		if !Within(next, ws) {
			return path.Join(append([]string{next}, rest...)...)
		}
		fi, err := os.Lstat(next)
		if err != nil {
			// Missing: the rest is created as written.
			return path.Join(append([]string{next}, rest...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		hops++
		target, err := os.Readlink(next)
		if err != nil || hops > maxLinkHops {
			return path.Join(append([]string{next}, rest...)...)
		}
		target = filepath.ToSlash(target)
		if !path.IsAbs(target) {
			target = path.Join(cur, target)
		}
		target = path.Clean(target)
		if !Within(target, ws) {
			return path.Join(append([]string{target}, rest...)...)
		}
		// Resolve the target's own components from the root again.
		rest = append(strings.Split(strings.TrimPrefix(target, ws), "/"), rest...)
		cur = ws
	}
	return cur
}

// ProcAlias maps /proc/PID/root/X (self, thread-self, a number, or a
// task of one) to /X: the same file under another name. Other paths are
// returned as they are.
func ProcAlias(p string) string {
	rest, ok := ProcEntry(p, "root")
	if !ok {
		return p
	}
	return path.Clean("/" + rest)
}

// ProcCwd reports whether p goes through /proc/PID/cwd, a working
// directory rein cannot tell.
func ProcCwd(p string) bool {
	_, ok := ProcEntry(path.Clean(p), "cwd")
	return ok
}

// ProcEntry matches /proc/{self,thread-self,N}[/task/N]/ENTRY[/rest] and
// returns rest.
func ProcEntry(p, entry string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return "", false
	}
	pid, rest, _ := strings.Cut(rest, "/")
	if pid != "self" && pid != "thread-self" && !AllDigits(pid) {
		return "", false
	}
	if t, r, ok := strings.Cut(rest, "/"); ok && t == "task" {
		tid, r2, _ := strings.Cut(r, "/")
		if !AllDigits(tid) {
			return "", false
		}
		rest = r2
	}
	name, tail, _ := strings.Cut(rest, "/")
	if name != entry {
		return "", false
	}
	return tail, true
}

func AllDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ExpandGlob lists what a glob path (absolute) matches inside the
// workspace ws, through an os.Root so no symlink leads the listing out,
// with a budget of file-system operations so a hostile tree cannot stall
// a decision. complete is false when the pattern lies outside ws (rules
// then see only the pattern itself) or the budget ran out before the
// listing finished.
func ExpandGlob(ws, pattern string) (matches []string, complete bool) {
	pattern = path.Clean(pattern)
	if ws == "" || !Within(pattern, ws) || pattern == ws {
		return nil, false
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, errors.Is(err, fs.ErrNotExist) // no workspace on disk: nothing matches
	}
	defer root.Close()
	fsys := &budgetFS{fsys: root.FS(), left: maxGlobOps}
	rel := strings.TrimPrefix(pattern, ws+"/")
	err = doublestar.GlobWalk(fsys, rel, func(p string, _ fs.DirEntry) error {
		if len(matches) == MaxGlobMatches {
			return errGlobBudget
		}
		matches = append(matches, ws+"/"+p)
		return nil
	}, doublestar.WithFailOnIOErrors())
	switch {
	case err == nil, errors.Is(err, fs.ErrNotExist):
		return matches, fsys.left >= 0 // a missing directory matches nothing
	default:
		// The budget, or a directory rein may not list (a symlink out of
		// the workspace): what the glob reaches is not known.
		return matches, false
	}
}

// maxGlobOps bounds the file-system operations of one glob expansion.
const maxGlobOps = 8192

var errGlobBudget = errors.New("policy: glob expansion budget exhausted")

// budgetFS fails every operation once its budget is spent. Only Open is
// offered, so fs.ReadDir and fs.Stat go through it too.
type budgetFS struct {
	fsys fs.FS
	left int
}

func (b *budgetFS) Open(name string) (fs.File, error) {
	b.left--
	if b.left < 0 {
		return nil, errGlobBudget
	}
	return b.fsys.Open(name)
}

// AbsUnder makes p absolute against dir.
func AbsUnder(dir, p string) string {
	if path.IsAbs(p) {
		return p
	}
	return dir + "/" + p
}
