package host

import (
	"os"
	"path/filepath"
)

// RepositoryRoot returns the root of the git repository enclosing dir (the
// nearest directory, dir itself included, that holds a .git directory or
// file — a worktree or submodule has a .git file), or dir when there is
// none. It is the default workspace: opening rein in a subdirectory of a
// repository works on the whole repository, as Claude Code and Codex do,
// and the sandbox then confines writes to the repository root, not to the
// subdirectory. -C names the workspace exactly and is never widened.
//
// The walk never reaches the user's home directory or the filesystem
// root: a dotfiles repository in $HOME (or a stray /.git) would otherwise
// make every directory under it one workspace and let the agent write
// anywhere in it. Started in $HOME itself, the workspace is $HOME, as
// before. home is "" when unknown; the walk then stops only at the root.
func RepositoryRoot(dir, home string) string {
	dir = filepath.Clean(dir)
	if home != "" {
		home = filepath.Clean(home)
	}
	for cur := dir; ; {
		if cur == home || isFilesystemRoot(cur) {
			return dir
		}
		if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
			return cur
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return dir
		}
		cur = parent
	}
}

// isFilesystemRoot reports whether dir is "/" (or a volume root).
func isFilesystemRoot(dir string) bool { return filepath.Dir(dir) == dir }
