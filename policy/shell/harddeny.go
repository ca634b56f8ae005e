package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// The built-in hard denials. Nothing lifts them: no preset, rule, layer
// or approver. Configuration can add more ([[policy.hard_deny]]), never
// remove one.
//
//   - privilege: sudo, su, doas, pkexec and friends, anywhere.
//   - rm-root: recursive rm (also find -delete, chmod/chown -R) of /, a
//     top-level directory, the home directory, the workspace root or an
//     ancestor of either; rm --no-preserve-root.
//   - raw-device: writing to a block device or /dev/mem (dd of=, a
//     redirect, tee, cp, …).
//   - mkfs: creating or wiping a file system (mkfs*, mke2fs, mkswap,
//     wipefs, blkdiscard).
//   - fork-bomb: a function that calls itself in a pipeline or in the
//     background.
//   - download-exec: a download piped into a shell or interpreter, or
//     given to one as its code (bash <(curl …), sh -c "$(curl …)").
//   - force-push: git push --force, -f, --force-with-lease, --mirror, or a
//     +refspec.

// privilegeCommands run a command as another user.
var privilegeCommands = map[string]bool{
	"sudo": true, "sudoedit": true, "su": true, "doas": true, "pkexec": true,
	"runuser": true, "run0": true, "sudo.ws": true, "please": true, "calife": true,
}

// downloaders fetch data from the network.
var downloaders = map[string]bool{
	"curl": true, "wget": true, "wget2": true, "fetch": true, "aria2c": true, "http": true,
	"https": true, "xh": true, "xhs": true, "curlie": true, "lwp-request": true, "get": true,
	"lwp-download": true,
}

// checkLevel runs the hard-deny checks on one level of a command.
func (a *analyzer) checkLevel(base string, ws []word, fr frame, unknownArgs bool) {
	switch {
	case privilegeCommands[base]:
		a.hard("privilege", "privilege escalation ("+base+") is never allowed")
	case base == "systemd-run" && !slices.ContainsFunc(ws, func(w word) bool { return w.text == "--user" }):
		a.hard("privilege", "systemd-run without --user runs commands as root; it is never allowed")
	}
	if what := volumeTool(base, texts(ws[1:])); what != "" {
		a.hard("mkfs", "creating or wiping a file system or volume ("+what+") is never allowed")
	}
	if check, ok := hardChecks[base]; ok {
		check(a, base, ws, fr, unknownArgs)
	}
	if strings.HasPrefix(base, "git-") {
		a.checkGitProgram(base, ws, fr, unknownArgs)
	}
	a.checkDeviceWrites(base, ws)
	a.checkInterpreter(base, ws, fr, unknownArgs)
}

// hardCheck runs the hard-deny checks of one program.
type hardCheck func(a *analyzer, base string, ws []word, fr frame, unknownArgs bool)

// hardChecks are the programs with hard-deny checks of their own, by
// name. Filled in init: checkGit unwraps aliases, which analyzes code.
var hardChecks map[string]hardCheck

func init() {
	change := func(a *analyzer, base string, ws []word, _ frame, _ bool) { a.checkRecursiveChange(base, ws) }
	git := func(a *analyzer, _ string, ws []word, fr frame, unknownArgs bool) { a.checkGit(ws, fr, unknownArgs) }
	hardChecks = map[string]hardCheck{
		"rm":    func(a *analyzer, _ string, ws []word, _ frame, unknownArgs bool) { a.checkRemove(ws, unknownArgs) },
		"chmod": change, "chown": change, "chgrp": change,
		"mv":    checkMove,
		"rsync": checkRsyncDelete,
		"git":   git, "hub": git,
		"gh":    checkGhSync,
		"mknod": checkMknod,
	}
}

// checkMove: moving / or the home directory or workspace away removes it
// from where everything expects it.
func checkMove(a *analyzer, _ string, ws []word, _ frame, _ bool) {
	if ops := operands(ws[1:]); len(ops) > 1 {
		a.checkRecursiveRemove("mv", literals(ops[:len(ops)-1]))
	}
}

// checkRsyncDelete: --delete empties the destination of what the source
// lacks.
func checkRsyncDelete(a *analyzer, _ string, ws []word, _ frame, _ bool) {
	if ops := operands(ws[1:]); len(ops) > 1 && slices.ContainsFunc(ws, func(w word) bool { return strings.HasPrefix(w.text, "--del") }) {
		a.checkRecursiveRemove("rsync --delete", literals(ops[len(ops)-1:]))
	}
}

func checkGhSync(a *analyzer, base string, ws []word, _ frame, _ bool) {
	if what := publishes(base, texts(ws)); what == "gh repo sync" && slices.ContainsFunc(ws, func(w word) bool { return w.text == "--force" }) {
		a.hard("force-push", "gh repo sync --force resets the destination branch (a force push); it is never allowed")
	}
}

func checkMknod(a *analyzer, _ string, ws []word, _ frame, _ bool) {
	if slices.ContainsFunc(ws[1:], func(w word) bool { return w.text == "b" || w.text == "c" || w.text == "u" || !w.literal }) {
		a.hard("raw-device", "mknod creating a device node, through which a disk or memory can be written, is never allowed")
	}
}

// operands are the words that are not options (everything after --).
func operands(ws []word) []word {
	var out []word
	for i, w := range ws {
		if w.text == "--" {
			return append(out, ws[i+1:]...)
		}
		if !strings.HasPrefix(w.text, "-") || w.text == "-" {
			out = append(out, w)
		}
	}
	return out
}

// literals are the literal words: a move of "$f" is an everyday loop,
// not a possible removal of home (unlike rm -rf "$f").
func literals(ws []word) []word {
	var out []word
	for _, w := range ws {
		if w.literal {
			out = append(out, w)
		}
	}
	return out
}

// checkRemove denies a recursive rm of a catastrophic target.
func (a *analyzer) checkRemove(ws []word, unknownArgs bool) {
	recursive, noPreserve, maybeFlags := false, false, false
	var targets []word
	endOpts := false
	for _, w := range ws[1:] {
		for _, t := range a.splitUnquoted(w) {
			switch {
			case !endOpts && t.text == "--":
				endOpts = true
			case !endOpts && strings.HasPrefix(t.text, "--"):
				// getopt_long takes any unambiguous abbreviation.
				switch resolveLong(t.text, rmLongOptions) {
				case "--recursive":
					recursive = true
				case "--no-preserve-root":
					noPreserve = true
				}
			case !endOpts && strings.HasPrefix(t.text, "-") && len(t.text) > 1:
				if strings.ContainsAny(t.text, "rR") {
					recursive = true
				}
			default:
				if !t.literal && !t.quoted {
					maybeFlags = true // $opts may hold -rf
				}
				targets = append(targets, t)
			}
		}
	}
	if !recursive && !maybeFlags {
		return
	}
	if noPreserve && recursive {
		a.hard("rm-root", "rm --no-preserve-root is never allowed")
	}
	if unknownArgs && recursive {
		a.hard("rm-root", "recursive rm of paths only known at run time (appended by xargs or the like) could remove the workspace or the home directory; it is never allowed — name the paths")
	}
	a.checkRecursiveRemove("rm -r", targets)
}

// rmLongOptions are GNU rm's long options, for resolving abbreviations.
var rmLongOptions = []string{
	"--force", "--interactive", "--one-file-system", "--no-preserve-root", "--preserve-root",
	"--recursive", "--dir", "--verbose", "--help", "--version",
}

// resolveLong resolves a long option as getopt_long does: an exact name,
// or an abbreviation that only one option starts with; "" otherwise.
func resolveLong(arg string, options []string) string {
	name, _, _ := strings.Cut(arg, "=")
	found := ""
	for _, o := range options {
		if o == name {
			return o
		}
		if strings.HasPrefix(o, name) {
			if found != "" {
				return ""
			}
			found = o
		}
	}
	return found
}

// longOption reports whether arg is the long option full or an
// abbreviation of it at least min bytes long (--rec for --recursive).
func longOption(arg, full string, min int) bool {
	name, _, _ := strings.Cut(arg, "=")
	return len(name) >= min && strings.HasPrefix(full, name)
}

// splitUnquoted returns an unquoted expansion's static guess split into
// fields, as the shell splits it (x="-rf /"; rm $x); other words are
// returned as they are.
func (a *analyzer) splitUnquoted(w word) []word {
	if w.literal || w.quoted {
		return []word{w}
	}
	fields := strings.Fields(w.alt)
	if len(fields) == 0 {
		return []word{w}
	}
	out := []word{w}
	for _, f := range fields {
		g := litWord(f)
		if strings.HasPrefix(f, "~") || strings.HasPrefix(f, "$HOME") {
			g.pathOK = false
		}
		out = append(out, g)
	}
	return out
}

// checkRecursiveRemove denies removing a catastrophic target and makes a
// target known only at run time a concern.
func (a *analyzer) checkRecursiveRemove(what string, targets []word) {
	for _, t := range targets {
		if t.literal && t.text == "" {
			continue // rm "" removes nothing
		}
		if !t.literal {
			// Every value the word could take counts: `$x` may be ~ or /.
			a.hard("rm-root", what+" of "+wspath.Quote(t.text)+", a path only known at run time, could remove / or the home directory; it is never allowed — spell the path out")
			return
		}
		if !t.pathOK {
			a.concern("rm-dynamic", what+" of "+wspath.Quote(t.text)+", a path rein cannot resolve")
			continue
		}
		p := t.path
		if t.glob && t.globAt >= 0 && t.globAt <= len(p) {
			// A glob removes entries of the directory it is in.
			p = p[:strings.LastIndexByte(p[:t.globAt], '/')+1]
			if p == "" {
				p = "."
			}
		}
		if !path.IsAbs(p) && a.cwdUnknown {
			a.concern("rm-dynamic", what+" of "+wspath.Quote(t.text)+" after changing to a directory rein cannot tell")
		}
		for _, abs := range a.reached(p) {
			if why := a.catastrophic(abs); why != "" {
				a.hard("rm-root", what+" of "+wspath.Quote(t.text)+" ("+why+") is never allowed")
				return
			}
		}
	}
}

// catastrophic says why removing abs (or the entries of abs, for a glob)
// destroys something that cannot be rebuilt, or returns "".
func (a *analyzer) catastrophic(abs string) string {
	switch {
	case abs == "/":
		return "the root directory"
	case strings.Count(abs, "/") == 1:
		return "a top-level system directory"
	case abs == a.home:
		return "the home directory"
	case wspath.Within(a.home, abs):
		return "an ancestor of the home directory"
	case abs == a.ws:
		return "the workspace root"
	case wspath.Within(a.ws, abs):
		return "an ancestor of the workspace"
	}
	return ""
}

// checkRecursiveChange denies chmod/chown/chgrp -R of a catastrophic
// target: it breaks the system or locks the user out of their files.
func (a *analyzer) checkRecursiveChange(base string, ws []word) {
	targets, recursive := changeArgs(base, ws)
	if !recursive {
		return
	}
	for _, t := range targets {
		if !t.literal {
			a.hard("rm-root", base+" -R of "+wspath.Quote(t.text)+", a path only known at run time, could change / or the home directory; it is never allowed")
			return
		}
		if why := a.catastrophicTarget(t); why != "" {
			a.hard("rm-root", base+" -R of "+wspath.Quote(t.text)+" ("+why+") is never allowed")
			return
		}
	}
}

// changeArgs reads the arguments of chmod, chown or chgrp: the files it
// changes (the mode or owner removed, unless --reference gives it) and
// whether it recurses.
func changeArgs(base string, ws []word) (targets []word, recursive bool) {
	reference, endOpts := false, false
	for _, w := range ws[1:] {
		t := w.text
		switch {
		case !w.literal && !w.quoted:
			recursive = true // $opts may hold -R
			targets = append(targets, w)
		case endOpts || !strings.HasPrefix(t, "-") || t == "-":
			targets = append(targets, w)
		case t == "--":
			endOpts = true
		case strings.HasPrefix(t, "--"):
			switch resolveLong(t, changeLongOptions) {
			case "--recursive":
				recursive = true
			case "--reference":
				reference = true
			}
		case base == "chmod" && isModeLike(t):
			// -x, -w, -rwx are modes, not options: `chmod -R -x /`.
			targets = append(targets, w)
		default:
			if strings.Contains(t, "R") {
				recursive = true
			}
		}
	}
	if !reference && len(targets) > 0 {
		targets = targets[1:] // the mode or owner
	}
	return targets, recursive
}

// catastrophicTarget returns why changing a static path recursively is
// catastrophic (see catastrophic; the workspace root is not), or "".
func (a *analyzer) catastrophicTarget(t word) string {
	if !t.pathOK {
		return ""
	}
	p := t.path
	if t.glob && t.globAt >= 0 && t.globAt <= len(p) {
		// A glob changes entries of the directory it is in: /* is
		// every top-level directory.
		p = p[:strings.LastIndexByte(p[:t.globAt], '/')+1]
		if p == "" {
			return "" // ./-relative glob in the working directory: decided by the workspace check below
		}
	}
	for _, abs := range a.reached(p) {
		if why := a.catastrophic(abs); why != "" && why != "the workspace root" {
			return why
		}
	}
	return ""
}

// changeLongOptions are the long options of chmod, chown and chgrp.
var changeLongOptions = []string{
	"--changes", "--silent", "--quiet", "--verbose", "--no-preserve-root", "--preserve-root",
	"--reference", "--recursive", "--dereference", "--no-dereference", "--from", "--help", "--version",
}

// isModeLike reports whether a chmod argument starting with "-" is a
// symbolic mode (-x, -rw, -w,+t) rather than an option cluster.
func isModeLike(t string) bool {
	body := t[1:]
	if body == "" {
		return false
	}
	for _, c := range body {
		if !strings.ContainsRune("rwxXstugoa+-=,0123456789", c) {
			return false
		}
	}
	return true
}
