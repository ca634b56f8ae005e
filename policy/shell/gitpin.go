package shell

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// git's effective configuration is pinned when rein can see every source
// a command line can change: the repository's own config (protected), the
// user's global config and the system config. These move it somewhere
// rein cannot see, or feed it values rein does not know.

// gitConfigEnv are the variables that move or extend git's configuration
// or what git runs; the GIT_CONFIG_KEY_n/VALUE_n family is matched by
// prefix.
var gitConfigEnv = map[string]bool{
	"GIT_CONFIG": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_CONFIG_COUNT": true,
	"GIT_CONFIG_PARAMETERS": true, "GIT_DIR": true, "GIT_COMMON_DIR": true, "GIT_EXEC_PATH": true,
	"HOME": true, "XDG_CONFIG_HOME": true, "GIT_TEMPLATE_DIR": true, "GIT_NAMESPACE": false,
}

// gitConfigEnvName reports whether a variable changes git's configuration.
func gitConfigEnvName(name string) bool {
	return gitConfigEnv[name] || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}

// gitUnpinned says why a git invocation (subcommand at index sub) runs
// under configuration rein cannot pin, or returns "": a variable of
// gitConfigEnv assigned in the command line (HOME only when it is not the
// user's home), --config-env (a value rein cannot see), -c include.path
// or includeIf (a file rein does not read), --exec-path, and --git-dir
// naming another repository than the workspace's.
func (a *analyzer) gitUnpinned(ws []word, sub int) string {
	for name := range a.assigned {
		if !gitConfigEnvName(name) {
			continue
		}
		if name == "HOME" && (a.vars[name] == a.home || a.vars[name] == "~") {
			continue
		}
		return name + " set by the command"
	}
	dirs := a.gitStartDirs(ws, sub)
	for i := 1; i < sub && i < len(ws); i++ {
		t := ws[i].text
		switch {
		case t == "-C" && i+1 < sub:
			i++
		case t == "--config-env" || strings.HasPrefix(t, "--config-env="):
			return "--config-env"
		case strings.HasPrefix(t, "--exec-path"):
			return "--exec-path"
		case t == "-c" && i+1 < sub:
			key, _, _ := strings.Cut(strings.ToLower(ws[i+1].text), "=")
			if key == "include.path" || strings.HasPrefix(key, "includeif.") || !ws[i+1].literal {
				return "-c " + key
			}
			i++
		case t == "--git-dir" || strings.HasPrefix(t, "--git-dir="):
			dir := ws[i]
			if v, ok := strings.CutPrefix(t, "--git-dir="); ok {
				dir.path = v
			} else if i+1 < len(ws) {
				i++
				dir = ws[i]
			}
			if !a.workspaceGitDir(dir) {
				return "--git-dir " + wspath.Quote(dir.path)
			}
		}
	}
	return a.gitFileUnpinned(dirs)
}

// gitFileUnpinned looks, from each directory git may start in up to the
// workspace root, for the repository git would use: a `.git` file or
// symlink (gitdir: …) that leads into the workspace or a temporary
// directory — where the model can write a config — is configuration rein
// cannot pin. A worktree's or submodule's .git leading elsewhere, or into
// the workspace's own .git, is fine.
func (a *analyzer) gitFileUnpinned(dirs []string) string {
	for _, d := range dirs {
		if a.writableOutside(path.Clean(d)) && !wspath.Within(path.Clean(d), a.ws) {
			return "a repository in the temporary directory " + wspath.Quote(d) + ", which the command may have written,"
		}
		for cur, n := path.Clean(d), 0; wspath.Within(cur, a.ws) && n < 64; cur, n = path.Dir(cur), n+1 {
			p := path.Join(cur, ".git")
			fi, err := os.Lstat(p)
			if err == nil && !fi.IsDir() {
				if target := gitdirTarget(p, fi); target == "" || a.modelWritable(target) {
					return "the repository " + wspath.Quote(p) + " points to"
				}
			}
			if err == nil || cur == a.ws {
				break
			}
		}
	}
	return ""
}

// gitdirTarget is where a .git file or symlink leads, or "" when rein
// cannot tell.
func gitdirTarget(p string, fi os.FileInfo) string {
	if fi.Mode()&os.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(p)
		if err != nil {
			return ""
		}
		return filepath.ToSlash(t)
	}
	b, err := os.ReadFile(p)
	if err != nil || len(b) > 4096 {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !path.IsAbs(dir) {
		dir = path.Join(path.Dir(p), dir)
	}
	return path.Clean(dir)
}

// modelWritable reports whether the model may have written p: inside the
// workspace but not its own .git, or in a temporary directory.
func (a *analyzer) modelWritable(p string) bool {
	own := path.Join(a.ws, ".git")
	if wspath.Within(p, own) {
		return false
	}
	return wspath.Within(p, a.ws) || a.writableOutside(p)
}

// gitStartDirs are the directories a git invocation may start in: where
// the command runs, or its last -C.
func (a *analyzer) gitStartDirs(ws []word, sub int) []string {
	dirs := a.cwds
	for i := 1; i+1 < sub && i+1 < len(ws); i++ {
		if ws[i].text == "-C" && ws[i+1].pathOK {
			var next []string
			for _, d := range dirs {
				next = append(next, a.reachedFrom(d, ws[i+1].path)...)
			}
			dirs = next
			i++
		}
	}
	return dirs
}

// reachedFrom is reached for a path relative to one directory.
func (a *analyzer) reachedFrom(dir, p string) []string {
	abs := wspath.AbsUnder(dir, p)
	out := []string{path.Clean(abs)}
	if r := wspath.Resolve(a.ws, abs); r != out[0] {
		out = append(out, r)
	}
	return out
}

// workspaceGitDir reports whether a --git-dir value is the workspace's
// own .git, whose config is protected.
func (a *analyzer) workspaceGitDir(w word) bool {
	if !w.pathOK || w.glob || a.cwdUnknown && !path.IsAbs(w.path) {
		return false
	}
	for _, p := range a.reached(w.path) {
		if p != path.Join(a.ws, ".git") {
			return false
		}
	}
	return true
}

// checkGitProgram checks git's own programs run directly
// (/usr/lib/git-core/git-push -f) as the git subcommand they are.
func (a *analyzer) checkGitProgram(base string, ws []word, fr frame, unknownArgs bool) {
	sub := strings.TrimPrefix(base, "git-")
	if sub == "" {
		return
	}
	argv := append([]word{litWord("git"), litWord(sub)}, ws[1:]...)
	a.checkGit(argv, fr, unknownArgs)
}
