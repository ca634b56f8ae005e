package shell

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// exec walks one simple command given as resolved words: every level is
// checked for hard denials, wrappers are unwrapped, and the command that
// finally runs is recorded.
func (a *analyzer) exec(ws []word, fr frame, via []string) {
	saved := a.runsCode
	a.runsCode = ""
	a.execArgs(ws, fr, via, false)
	a.runsCode = saved
}

func (a *analyzer) execArgs(ws []word, fr frame, via []string, unknownArgs bool) {
	for level := 0; len(ws) > 0; level++ {
		if !a.spend() {
			return
		}
		if level > maxUnwrap {
			// What the next wrapper runs is unknown, and may be any hard
			// denial: refused rather than asked (an alias chain longer
			// than this ends anywhere).
			a.tooComplex("the command stacks more wrappers or alias links than rein analyzes")
			a.leaf(ws, via, unknownArgs, false)
			return
		}
		if a.guessing == 0 {
			a.res.Invocations = append(a.res.Invocations, texts(ws))
		}
		name := ws[0]
		a.levelRuns = ""
		if name.dynamic() {
			a.concern("dynamic-command", "the command name "+wspath.Quote(name.text)+" is only known at run time")
			if len(a.funcs) > 0 && isPositional(name.text) {
				a.funcs[len(a.funcs)-1].execsArgs = true
			}
			a.dynamicName(ws, fr)
			a.guess(ws, fr, via)
			if !name.literal || name.glob {
				a.leaf(ws, via, unknownArgs, true)
				return
			}
		}
		base := cmdBase(name.text)
		if _, ok := wspath.ProcEntry(path.Clean(name.path), "exe"); ok && name.pathOK {
			base = "sh" // /proc/self/exe is the running shell
		}
		a.checkLevel(base, ws, fr, unknownArgs)
		a.checkStatic(base, ws)
		a.checkCodeRunner(base, ws, fr)
		a.checkGlobArgs(ws)
		a.fetchLevel(base, ws, fr)
		a.fedDownload(base, ws, fr)
		a.callFunction(name.text, fr)
		a.track(base, ws, fr)
		u := a.unwrap(base, ws, fr)
		switch {
		case u.code != nil:
			if !u.code.literal {
				a.concern("dynamic-code", "the shell code run by "+u.label+" is only known at run time")
				if len(a.funcs) > 0 && isPositional(strings.TrimLeft(u.code.text, `"'`)) {
					a.funcs[len(a.funcs)-1].evalsArgs = true
				}
				if strings.TrimSpace(u.code.alt) != "" && u.code.alt != u.code.text {
					// The code's static guess (x='sudo id'; eval "$x",
					// "${C:-sudo id}", "$(printf …)") is checked too.
					a.hiddenCode(u.code.alt, fr, u.label)
				}
			}
			cf := fr
			cf.depth++
			cf.via = append(slices.Clip(via), u.label)
			if v, ok := a.aliases[u.alias]; ok {
				delete(a.aliases, u.alias)
				a.code(u.code.text, cf)
				a.aliases[u.alias] = v
				return
			}
			a.code(u.code.text, cf)
			return
		case len(u.inner) == 0:
			a.leaf(ws, via, unknownArgs, name.dynamic())
			return
		}
		if u.keepSelf {
			a.leaf(ws, via, unknownArgs, false)
		}
		via = append(slices.Clip(via), u.label)
		last := len(u.inner) - 1
		for _, in := range u.inner[:last] {
			a.execArgs(in, fr, via, u.unknownArgs)
		}
		ws, unknownArgs = u.inner[last], u.unknownArgs
	}
}

// guess checks what a command with a dynamic name may run, for hard
// denials only: the name's static guess ($x assigned "sudo" earlier,
// $(echo sudo)), the rest of the words when the name may expand to
// nothing, and well-known commands a glob name matches (/usr/bin/su?o).
func (a *analyzer) guess(ws []word, fr frame, via []string) {
	if a.guessing >= 2 {
		return
	}
	a.guessing++
	defer func() { a.guessing-- }()
	name := ws[0]
	if !name.literal {
		if fields := strings.Fields(name.alt); len(fields) > 0 {
			v := make([]word, 0, len(fields)+len(ws)-1)
			for _, f := range fields {
				v = append(v, litWord(f))
			}
			a.execArgs(append(v, ws[1:]...), fr, via, false)
		} else if !name.quoted {
			a.execArgs(ws[1:], fr, via, false)
		}
	}
	if b := path.Base(name.text); !name.literal && b != name.text && !strings.ContainsAny(b, "$`*?[{") {
		// "$(git --exec-path)/git-push": the program's name is known
		// even where its directory is not.
		a.execArgs(append([]word{litWord(b)}, ws[1:]...), fr, via, false)
	}
	if !name.glob && strings.TrimSpace(name.alt) == "" {
		// Nothing is known of the value: it may be any program, so the
		// arguments are checked as those of the executors whose hard
		// denials they could complete ("$X" -c 'sudo id', "$G" push -f).
		for _, exe := range guessExecutors {
			a.execArgs(append([]word{litWord(exe)}, ws[1:]...), fr, via, false)
		}
	}
	if name.glob {
		pattern := strings.ToLower(path.Base(name.text))
		for _, known := range guessNames {
			if ok, _ := path.Match(pattern, known); ok {
				v := append([]word{litWord(known)}, ws[1:]...)
				a.execArgs(v, fr, via, false)
			}
		}
	}
}

// guessExecutors are what a command name with no known value is tried
// as.
var guessExecutors = []string{"sh", "env", "git"}

// guessNames are the commands a glob in the command position is tested
// against.
var guessNames = []string{
	"sudo", "sudoedit", "su", "doas", "pkexec", "runuser", "run0", "rm", "dd",
	"mkfs", "mke2fs", "mkswap", "wipefs", "git", "sh", "bash", "zsh", "dash",
	"env", "xargs", "eval", "curl", "wget",
}

// isPositional reports whether a word is a positional parameter: a
// function whose body runs "$@" runs whatever it is called with.
func isPositional(s string) bool {
	for _, p := range []string{"$@", "${@", "$*", "${*", "${1", "${2", "${3"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return len(s) >= 2 && s[0] == '$' && s[1] >= '1' && s[1] <= '9'
}

// leaf records a command that runs.
func (a *analyzer) leaf(ws []word, via []string, unknownArgs, dynamic bool) {
	if a.guessing > 0 {
		return
	}
	a.res.Commands = append(a.res.Commands, Command{
		Args:        texts(ws),
		Dynamic:     dynamic,
		Via:         slices.Clone(via),
		Norm:        normalize(ws),
		Words:       args(ws),
		words:       ws,
		UnknownArgs: unknownArgs,
		RunsCode:    a.runsCode,
		Cwds:        slices.Clone(a.cwds),
		CwdUnknown:  a.cwdUnknown,
		AfterLink:   a.linkedBy,
	})
	a.runsCode = ""
	if a.linkedBy == "" && createsLinks(ws) {
		a.linkedBy = strings.Join(texts(ws[:min(len(ws), 3)]), " ")
	}
}

// cmdBase is the lower-cased base name of a command word: /usr/bin/SUDO
// is sudo on a case-insensitive file system.
func cmdBase(name string) string {
	return strings.ToLower(path.Base(name))
}

// normalize returns the argv rules match on.
func normalize(ws []word) []string {
	argv := texts(ws)
	if len(argv) == 0 {
		return argv
	}
	if path.IsAbs(argv[0]) {
		argv[0] = path.Base(argv[0])
	}
	if argv[0] == "git" {
		return gitNormalize(argv)
	}
	return argv
}

// track follows state that later commands depend on: the directories
// cd moves to, downloads for pipelines, calls of functions being defined.
func (a *analyzer) track(base string, ws []word, fr frame) {
	a.noteAssigned(base, ws, fr) // names only make git's config unpinned: recorded while guessing too
	if a.guessing > 0 {
		return
	}
	a.noteCall(ws[0].text, fr)
	if base != "cd" && base != "pushd" {
		return
	}
	var target *word
	for i := 1; i < len(ws); i++ {
		t := ws[i].text
		if t == "--" {
			if i+1 < len(ws) {
				target = &ws[i+1]
			}
			break
		}
		if strings.HasPrefix(t, "-") && t != "-" {
			continue // -L, -P, -e, -@
		}
		target = &ws[i]
		break
	}
	switch {
	case target == nil:
		a.addCwd([]string{a.home})
	case target.text == "-" || strings.HasPrefix(target.text, "+") || strings.HasPrefix(target.text, "-"):
		// back to a directory already in the set
	case !target.pathOK:
		a.cwdUnknown = true
	case target.glob:
		var dirs []string
		for _, p := range a.absPaths(target.path) {
			matches, _ := wspath.ExpandGlob(a.ws, p)
			for _, m := range matches {
				if fi, err := os.Stat(m); err == nil && fi.IsDir() {
					dirs = append(dirs, filepath.ToSlash(m))
				}
			}
		}
		if len(dirs) == 0 || len(dirs) > 1 {
			a.cwdUnknown = true // bash cds to the first match; with none it fails
		}
		a.addCwd(dirs)
	default:
		a.addCwd(a.absPaths(target.path))
	}
}

func (a *analyzer) addCwd(dirs []string) {
	for _, d := range dirs {
		if !slices.Contains(a.cwds, d) {
			if len(a.cwds) >= 32 {
				a.cwdUnknown = true
				return
			}
			a.cwds = append(a.cwds, d)
		}
	}
}

// absPaths resolves a path against every directory the command may run
// in.
func (a *analyzer) absPaths(p string) []string {
	if path.IsAbs(p) {
		return []string{path.Clean(p)}
	}
	out := make([]string, 0, len(a.cwds))
	for _, d := range a.cwds {
		out = append(out, path.Join(d, p))
	}
	return out
}

// createsLinks reports whether a command may create symlinks or files
// from content rein cannot see: ln, cp -s, archive extraction, and the git
// commands that write the work tree from history (which stores symlinks).
func createsLinks(ws []word) bool {
	argv := texts(ws)
	switch base := cmdBase(argv[0]); base {
	case "ln", "link", "unzip", "cpio", "7z", "7za", "bsdtar", "rsync", "patch", "ar":
		return true
	case "cp":
		return slices.ContainsFunc(argv[1:], func(t string) bool {
			return t == "--symbolic-link" || strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t, "sl")
		})
	case "tar", "gtar":
		return len(argv) > 1 && (strings.Contains(strings.TrimPrefix(argv[1], "-"), "x") && !strings.HasPrefix(argv[1], "--") ||
			slices.ContainsFunc(argv[1:], func(t string) bool { return t == "--extract" || t == "--get" || t == "-x" }))
	case "git":
		i := gitSub(argv)
		if i >= len(argv) {
			return false
		}
		switch argv[i] {
		case "checkout", "switch", "restore", "reset", "pull", "merge", "stash", "apply", "am",
			"cherry-pick", "rebase", "revert", "clone", "worktree", "submodule", "read-tree", "checkout-index":
			return true
		}
	}
	return false
}

// inWorkspace reports whether p, resolved against every directory the
// command may run in, may lie in the workspace or a temporary directory
// (where the command itself may have written it).
func (a *analyzer) inWorkspace(p string) bool {
	if a.cwdUnknown && !path.IsAbs(p) {
		return true
	}
	for _, abs := range a.reached(p) {
		if wspath.Within(abs, a.ws) || a.writableOutside(abs) {
			return true
		}
	}
	return false
}

// reached returns the absolute paths p may name: against every directory
// the command may run in, as written and as the kernel resolves it through
// symlinks inside the workspace (`rm -rf h/` with h -> ~ removes the home
// directory's contents).
func (a *analyzer) reached(p string) []string {
	out := a.absPaths(p)
	if path.IsAbs(p) {
		if r := a.resolve(p); r != path.Clean(p) {
			out = append(out, r)
		}
		return out
	}
	for _, d := range a.cwds {
		if r := a.resolve(wspath.AbsUnder(d, p)); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// resolve is resolveIn for the workspace, remembered for the rest of the
// analysis: one command line checks the same paths many times (path
// rules, devices, git repositories).
func (a *analyzer) resolve(p string) string {
	if r, ok := a.resolved[p]; ok {
		return r
	}
	r := wspath.Resolve(a.ws, p)
	if len(a.resolved) < 1024 {
		a.resolved[p] = r
	}
	return r
}

// checkWriteTarget makes a redirect that writes outside the workspace a
// concern: file tools are confined to the workspace, and a shell
// redirect must not be a way around that.
func (a *analyzer) checkWriteTarget(w word) {
	if !w.pathOK || w.glob {
		a.concern("write-outside", "the command writes to "+wspath.Quote(w.text)+", a file chosen at run time")
		return
	}
	if !path.IsAbs(w.path) && a.cwdUnknown {
		a.concern("write-outside", "the command writes to "+wspath.Quote(w.text)+" after changing to a directory rein cannot tell")
		return
	}
	for _, p := range a.absPaths(w.path) {
		if !a.writableOutside(p) && !wspath.Within(p, a.ws) {
			a.concern("write-outside", "the command writes to "+p+", outside the workspace")
			return
		}
	}
}

// writableOutside reports whether writing p is harmless although it is
// outside the workspace: /dev/null and friends, and temporary directories.
func (a *analyzer) writableOutside(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	for _, dir := range []string{"/dev/fd", "/proc/self/fd", "/tmp", "/var/tmp", tempDir} {
		if dir != "" && wspath.Within(p, dir) && p != dir {
			return true
		}
	}
	return false
}

// tempDir is the process temporary directory, where commands may write.
var tempDir = filepath.Clean(os.TempDir())

// linkKind says whether a command makes links ("link": ln, cp -s/-l) or
// moves directory entries ("move": mv, rsync, cp, install), or neither.
func linkKind(argv []string) string {
	switch cmdBase(argv[0]) {
	case "ln", "link":
		return "link"
	case "cp":
		if slices.ContainsFunc(argv[1:], func(t string) bool {
			return t == "--symbolic-link" || t == "--link" || strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t, "sl")
		}) {
			return "link"
		}
		return "move"
	case "mv", "rsync", "install":
		return "move"
	}
	return ""
}
