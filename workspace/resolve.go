package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// resolve returns the canonical workspace-relative path of rel: every
// symlink along it that exists is followed (confined to the workspace), so
// that two spellings of one file journal as one path and an atomic rename
// replaces the file a symlink points to rather than the symlink. Components
// that do not exist yet are appended as they are.
func (w *Workspace) resolve(name, rel string) (string, error) {
	pending := splitPath(rel)
	var done []string
	hops := 0
	for len(pending) > 0 {
		comp := pending[0]
		pending = pending[1:]
		switch comp {
		case ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", escapeError(name)
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(append([]string{}, done...), comp)...)
		fi, err := w.root.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			// The rest does not exist yet (or a parent is a file, which the
			// write will report); nothing left to follow.
			done = append(done, comp)
			done = append(done, pending...)
			return cleanJoin(name, done)
		}
		if err != nil {
			return "", w.wrap("resolve", name, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, comp)
			continue
		}
		hops++
		if hops > maxSymlinkHops {
			return "", fmt.Errorf("resolve %s: too many levels of symbolic links", name)
		}
		target, err := w.root.Readlink(cur)
		if err != nil {
			return "", w.wrap("readlink", name, err)
		}
		if path.IsAbs(target) {
			return "", fmt.Errorf("%w: %s (symlink %s points to %s)", ErrEscape, name, cur, target)
		}
		pending = append(splitPath(target), pending...)
	}
	return cleanJoin(name, done)
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

func cleanJoin(name string, comps []string) (string, error) {
	if len(comps) == 0 {
		return ".", nil
	}
	p := path.Clean(strings.Join(comps, "/"))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", escapeError(name)
	}
	return p, nil
}
