package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// resolve finds the file an @path import of from names. ok is false when
// there is nothing to read: a missing file is skipped quietly (the token
// may be a mention, @alice, as Claude Code assumes too); a refused one is
// recorded in l.errs.
func (l *loader) resolve(from source, imp string) (source, bool) {
	var abs string
	switch {
	case strings.HasPrefix(imp, "~/"):
		if l.homePath == "" {
			return l.refuse(from, imp, "there is no home directory to resolve ~ in")
		}
		abs = filepath.Join(l.homePath, imp[2:])
	case filepath.IsAbs(imp):
		abs = filepath.Clean(imp)
	default:
		abs = filepath.Join(filepath.Dir(from.abs), imp)
	}
	// The workspace first: it usually lies inside the home.
	if rel, ok := within(l.wsPath, abs); ok && l.ws != nil {
		return l.stat(from, imp, kindWorkspace, l.ws, l.wsEscape, rel, quoteIfOdd(filepath.ToSlash(rel)), abs)
	}
	if rel, ok := within(l.homePath, abs); ok {
		if from.kind == kindWorkspace && !underClaudeDir(rel) {
			return l.refuse(from, imp, "a repository's instructions may import from your home directory only under ~/.claude")
		}
		if l.home == nil {
			return l.refuse(from, imp, "the home directory cannot be opened")
		}
		return l.stat(from, imp, kindHome, l.home, l.homeEscape, rel, displayHome(l.homePath, abs), abs)
	}
	return l.refuse(from, imp, "it leads outside the workspace and your home directory")
}

// underClaudeDir reports whether rel (relative to the home) lies under
// .claude.
func underClaudeDir(rel string) bool {
	return rel == ".claude" || strings.HasPrefix(rel, ".claude"+string(filepath.Separator))
}

// stat looks at an import's file through its root.
func (l *loader) stat(from source, imp string, kind sourceKind, root *os.Root, escape error, rel, display, abs string) (source, bool) {
	fi, err := root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return source{}, false
	case err != nil && escape != nil && errors.Is(err, escape):
		l.errs = append(l.errs, fmt.Errorf("instructions: refused @%s in %s: %w (a symlink points out of %s)",
			quoteIfOdd(imp), from.display, ErrOutsideWorkspace, quoteIfOdd(root.Name())))
		return source{}, false
	case err != nil:
		l.errs = append(l.errs, fmt.Errorf("instructions: cannot read @%s in %s: %w", quoteIfOdd(imp), from.display, err))
		return source{}, false
	case !fi.Mode().IsRegular():
		return l.refuse(from, imp, "it is not a regular file")
	}
	return source{kind: kind, display: display, abs: abs, name: rel, info: fi}, true
}

func (l *loader) refuse(from source, imp, why string) (source, bool) {
	l.errs = append(l.errs, fmt.Errorf("instructions: refused @%s in %s: %w: %s", quoteIfOdd(imp), from.display, ErrImportRefused, why))
	return source{}, false
}
