package history

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/reinharness/rein/policy"
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
		return l.stat(from, imp, kindWorkspace, rel, quoteIfOdd(filepath.ToSlash(rel)), abs)
	}
	if rel, ok := within(l.homePath, abs); ok {
		if from.kind == kindWorkspace && !underClaudeDir(rel) {
			return l.refuse(from, imp, "a repository's instructions may import from your home directory only under ~/.claude")
		}
		if l.home == nil {
			return l.refuse(from, imp, "the home directory cannot be opened")
		}
		return l.stat(from, imp, kindHome, rel, displayHome(l.homePath, abs), abs)
	}
	return l.refuse(from, imp, "it leads outside the workspace and your home directory")
}

// underClaudeDir reports whether rel (relative to the home) lies under
// .claude.
func underClaudeDir(rel string) bool {
	return rel == ".claude" || strings.HasPrefix(rel, ".claude"+string(filepath.Separator))
}

// stat looks at an import's file through its root.
func (l *loader) stat(from source, imp string, kind sourceKind, rel, display, abs string) (source, bool) {
	root, rootPath, escape := l.ws, l.wsPath, l.wsEscape
	if kind == kindHome {
		root, rootPath, escape = l.home, l.homePath, l.homeEscape
	}
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
	if c := credentialName(rootPath, rel); c != "" {
		return l.refuse(from, imp, "it is named like a credential store ("+quoteIfOdd(c)+")")
	}
	return source{kind: kind, display: display, abs: abs, name: rel, info: fi}, true
}

// credentialName returns the component of a file's path relative to its
// root, as written or as its symlinks resolve, that is named like a
// credential store (policy.CredentialComponent), or "": such a file is
// not read into the model's context, where reading it by a command would
// ask first.
func credentialName(rootPath, rel string) string {
	if c := policy.CredentialComponent(filepath.ToSlash(rel)); c != "" {
		return c
	}
	root, err1 := filepath.EvalSymlinks(rootPath)
	resolved, err2 := filepath.EvalSymlinks(filepath.Join(rootPath, rel))
	if err1 != nil || err2 != nil {
		return ""
	}
	if r, ok := within(root, resolved); ok {
		return policy.CredentialComponent(filepath.ToSlash(r))
	}
	return ""
}

func (l *loader) refuse(from source, imp, why string) (source, bool) {
	l.errs = append(l.errs, fmt.Errorf("instructions: refused @%s in %s: %w: %s", quoteIfOdd(imp), from.display, ErrImportRefused, why))
	return source{}, false
}
