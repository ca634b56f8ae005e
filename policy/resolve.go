package policy

import (
	"os"
	"path"
	"path/filepath"
	"strings"
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
	maxLinkHops    = 40
	maxGlobMatches = 256
)

// resolveIn follows symlinks in p (absolute) component by component, as
// the kernel does, while the path stays inside ws; the result is the
// path the kernel would open. Components that do not exist are kept as
// written (a file about to be created). A path that leaves ws is
// returned as where it leads.
func resolveIn(ws, p string) string {
	if ws == "" || !path.IsAbs(p) || !within(path.Clean(p), ws) {
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
		if !within(next, ws) {
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
		if !within(target, ws) {
			return path.Join(append([]string{target}, rest...)...)
		}
		// Resolve the target's own components from the root again.
		rest = append(strings.Split(strings.TrimPrefix(target, ws), "/"), rest...)
		cur = ws
	}
	return cur
}

// pathForms returns the forms of an absolute path that rules are matched
// on: the path as written (cleaned) and the path it resolves to, each
// relative to the workspace when inside it.
func (e *Engine) pathForms(abs string) []string {
	written := e.relPath(path.Clean(abs))
	resolved := e.relPath(resolveIn(e.opts.Workspace, abs))
	if resolved == written {
		return []string{written}
	}
	return []string{written, resolved}
}

// expandGlob lists what a glob path (absolute) matches on disk, bounded;
// nil when nothing matches or the pattern is malformed.
func expandGlob(pattern string) []string {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil
	}
	if len(matches) > maxGlobMatches {
		matches = matches[:maxGlobMatches]
	}
	return matches
}

// absUnder makes p absolute against dir.
func absUnder(dir, p string) string {
	if path.IsAbs(p) {
		return p
	}
	return dir + "/" + p
}
