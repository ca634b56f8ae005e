package shell

import (
	"slices"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// Programs that run code they are given are decided on what they will run
// where that is visible, and ask otherwise (DESIGN §4a).

// codeRunners run code they are given from files rein does not read; what
// they run is unknowable from the command line. Keys are lower case, as
// cmdBase makes command names. An empty reason means a closer look in
// checkCodeRunner.
var codeRunners = map[string]string{
	"make": "runs the Makefile's recipes", "gmake": "runs the Makefile's recipes",
	"bmake": "runs the Makefile's recipes", "just": "runs the justfile's recipes",
	"rake": "runs the Rakefile's tasks", "npx": "runs a package's code", "pnpx": "runs a package's code",
	"bunx": "runs a package's code", "gdb": "runs debugger commands", "expect": "runs a Tcl script",
	"docker": "controls a daemon outside the sandbox", "podman": "controls containers outside the sandbox",
	"nerdctl": "controls a daemon outside the sandbox", "ctr": "controls a daemon outside the sandbox",
	"kubectl": "controls a cluster outside the sandbox", "systemctl": "controls services outside the sandbox",
	"machinectl": "controls machines outside the sandbox", "virsh": "controls machines outside the sandbox",
	"lxc": "controls containers outside the sandbox", "osascript": "runs AppleScript",
	"vim": "runs editor commands", "vi": "runs editor commands", "nvim": "runs editor commands",
	"emacs": "runs editor commands", "ed": "runs editor commands (! runs shell commands)",
	"ex": "runs editor commands", "less": "runs shell commands (!) and input filters",
	"more": "runs shell commands (!)", "wish": "runs Tcl code",
	"dotnet": "runs project code", "java": "runs a program", "jshell": "runs Java code",
	"r": "runs R code", "rscript": "runs R code", "julia": "runs Julia code", "groovy": "runs Groovy code",
	"scala": "runs Scala code", "erl": "runs Erlang code", "elixir": "runs Elixir code", "iex": "runs Elixir code",
	"ghci": "runs Haskell code", "runghc": "runs Haskell code", "swift": "runs Swift code",
	"deno": "runs JavaScript", "bun": "runs JavaScript and package scripts", "tsx": "runs TypeScript",
	"ts-node": "runs TypeScript", "awk": "", "gawk": "", "mawk": "", "nawk": "", "sed": "", "gsed": "",
	"npm": "", "pnpm": "", "yarn": "", "go": "", "git": "", "tar": "", "sort": "", "zip": "",
	"rsync": "", "man": "", "xargs": "",
	"pip": "", "pip3": "", "pipx": "", "uv": "", "poetry": "", "gem": "", "bundle": "",
}

// checkCodeRunner makes programs that run code rein cannot see a concern:
// interpreters given a script, module or inline code, build tools running
// their recipes, package managers running lifecycle scripts, and options
// of ordinary tools that run programs (sort --compress-program, tar
// --to-command, git grep -O). Shells with visible code are unwrapped and
// analyzed instead (see unwrap). Publishing asks like code rein cannot
// see (publish.go).
func (a *analyzer) checkCodeRunner(base string, ws []word, fr frame) {
	args := texts(ws[1:])
	if onlyVersion(args) {
		return
	}
	if what := publishes(base, texts(ws)); what != "" {
		a.runs(what + " publishes outside the workspace, which cannot be taken back; allow it with a rule of yours (say [\"" + strings.ReplaceAll(what, " ", "\", \"") + "\"]) to run it without asking")
		return
	}
	if name := ws[0].path; ws[0].pathOK && strings.Contains(name, "/") && a.inWorkspace(name) {
		// ./build.sh is `bash build.sh` by another name.
		a.runs(wspath.Quote(ws[0].text) + " is a program in the workspace, which rein does not read; review it and allow it with a rule")
		return
	}
	if spec, ok := interpreterSpec(base); ok {
		a.checkInterpreterCode(base, spec, ws, fr)
		return
	}
	why, ok := codeRunners[base]
	switch {
	case !ok:
	case why != "":
		a.runs(base + " " + why + ", which rein cannot see")
	case runnerChecks[base] != nil:
		runnerChecks[base](a, base, ws, fr)
	}
}

// checkInterpreterCode decides an interpreter: a shell's script or a
// script read from a file runs code rein does not read; visible shell
// code is analyzed elsewhere; any other language is code rein cannot
// analyze.
func (a *analyzer) checkInterpreterCode(base string, spec interpSpec, ws []word, fr frame) {
	run, _ := a.interp(base, ws)
	switch {
	case spec.shell && len(run.code) > 0 && run.shellCode == nil:
		a.runs(base + " runs the script " + wspath.Quote(run.code[0].text) + ", which rein does not read; run its commands directly")
	case spec.shell && run.fromStdin && fr.stdinFile:
		a.runs(base + " runs a script from a file, which rein does not read; run its commands directly")
	case spec.shell && run.shellCode != nil, spec.shell && run.fromStdin:
		// Visible code (analyzed), nothing to run (stdin is /dev/null)
		// or code piped from a command (a concern of checkInterpreter).
	case !spec.shell:
		a.runs(base + " runs code rein cannot analyze")
	}
}

// runnerCheck takes a closer look at one program of codeRunners whose
// reason is empty.
type runnerCheck func(a *analyzer, base string, ws []word, fr frame)

// runnerChecks are the closer looks, by program.
var runnerChecks map[string]runnerCheck

func init() {
	awk := func(a *analyzer, base string, ws []word, fr frame) { a.checkAwk(base, ws, fr) }
	sed := func(a *analyzer, base string, ws []word, fr frame) { a.checkSed(base, ws, fr) }
	pkg := func(a *analyzer, base string, ws []word, _ frame) {
		if args := texts(ws[1:]); len(args) == 0 || packageScripts(args) {
			a.runs(base + " " + strings.Join(firstN(args, 1), " ") + " runs the package's scripts (lifecycle or run), which rein cannot see")
		}
	}
	runnerChecks = map[string]runnerCheck{
		"awk": awk, "gawk": awk, "mawk": awk, "nawk": awk, "sed": sed, "gsed": sed,
		"npm": pkg, "pnpm": pkg, "yarn": pkg,
		"go":    func(a *analyzer, _ string, ws []word, _ frame) { a.checkGo(texts(ws[1:])) },
		"git":   func(a *analyzer, _ string, ws []word, _ frame) { a.checkGitRunners(ws) },
		"tar":   optionRunner(func(t string) bool { return tarRunsProgram(t) }),
		"sort":  optionRunner(func(t string) bool { return strings.HasPrefix(t, "--compress-prog") }),
		"zip":   optionRunner(func(t string) bool { return t == "-TT" || strings.HasPrefix(t, "--unzip-command") }),
		"rsync": optionRunner(rsyncRunsProgram),
		"man":   func(a *analyzer, _ string, ws []word, fr frame) { a.checkMan(ws, fr) },
		"pip":   installer("install", "download", "wheel"), "pip3": installer("install", "download", "wheel"),
		"pipx": installer("install", "run", "inject", "upgrade"), "uv": installer("pip", "run", "tool", "sync", "add"),
		"poetry": installer("install", "run", "add", "update"), "gem": installer("install", "update"),
		"bundle": installer("install", "exec", "update"),
		"xargs": func(a *analyzer, _ string, _ []word, _ frame) {
			a.dynamic("xargs appends arguments read from its input, which rein cannot see; name the files instead (or use find -exec)")
		},
	}
}

// installer is the check for a package manager whose subcommands fetch
// packages and run their build or install code (setup.py, gem
// extensions) or run package code.
func installer(subs ...string) runnerCheck {
	return func(a *analyzer, base string, ws []word, _ frame) {
		if sub := firstOperand(texts(ws[1:])); slices.Contains(subs, sub) {
			a.runs(base + " " + sub + " runs the code of packages it fetches, which rein cannot see")
		}
	}
}

// optionRunner is the check for a tool that runs a program only when
// given an option that names one.
func optionRunner(runsProgram func(arg string) bool) runnerCheck {
	return func(a *analyzer, base string, ws []word, _ frame) {
		for _, t := range texts(ws[1:]) {
			if runsProgram(t) {
				a.runs(base + " " + t + " runs a program")
				return
			}
		}
	}
}

func tarRunsProgram(t string) bool {
	for _, p := range []string{"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return t == "-I" || t == "-F" || strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t, "IF")
}

func rsyncRunsProgram(t string) bool {
	return t == "-e" || strings.HasPrefix(t, "--rsh") || strings.HasPrefix(t, "--rsync-path") ||
		strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "e")
}

// checkGo: go generate and go tool run commands named in the source, go
// run the program it builds, -toolexec and -exec a program of the
// command's choosing.
func (a *analyzer) checkGo(args []string) {
	switch sub := firstOperand(args); sub {
	case "generate", "tool":
		a.runs("go " + sub + " runs commands named in the source, which rein cannot see")
	case "run":
		a.runs("go run runs the program it builds, which rein cannot see")
	}
	for _, t := range args {
		if longOption(t, "-toolexec", 4) || longOption(t, "--toolexec", 5) || strings.HasPrefix(t, "-exec") || strings.HasPrefix(t, "--exec") {
			a.runs("go " + t + " runs a program of the command's choosing")
			return
		}
	}
}

// runs records that the command being analyzed runs code rein cannot
// see. Unlike a dynamic word, an explicit allow rule of the user's for
// that command lifts it: the user read the Makefile. A preset or a
// built-in rule does not.
func (a *analyzer) runs(reason string) {
	if a.levelRuns == "" {
		a.levelRuns = reason
	}
	if a.guessing > 0 || a.runsCode != "" {
		return
	}
	a.runsCode = reason
}

// onlyVersion reports whether args only ask for a version or help.
func onlyVersion(args []string) bool {
	if len(args) != 1 {
		return false
	}
	switch args[0] {
	case "--version", "-V", "-version", "--help", "-h", "version":
		return true
	}
	return false
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }

// firstOperand is the first argument that is not an option.
func firstOperand(args []string) string {
	for _, t := range args {
		if !strings.HasPrefix(t, "-") {
			return t
		}
	}
	return ""
}

// packageScripts reports whether an npm, pnpm or yarn command runs the
// package's scripts: run, test, start, install (lifecycle scripts), exec.
func packageScripts(args []string) bool {
	switch firstOperand(args) {
	case "", "run", "run-script", "rum", "urn", "test", "tst", "t", "start", "stop", "restart",
		"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isntall", "add", "ci",
		"clean-install", "ic", "install-clean", "isntall-clean", "install-test", "it", "install-ci-test",
		"cit", "rebuild", "rb", "exec", "x", "dlx", "create", "init", "link", "ln", "pack", "publish",
		"update", "up", "upgrade", "udpate", "dedupe", "ddp", "prune", "uninstall", "remove", "rm", "r", "un", "unlink":
		return true
	}
	// yarn runs a script named as its first operand (yarn build).
	return false
}

// checkAwk allows an awk program only when it is literal and cannot run
// commands or write files: system(), pipes to or from commands, getline
// and output redirection are code rein cannot follow.
func (a *analyzer) checkAwk(base string, ws []word, fr frame) {
	prog, ok := awkProgram(ws)
	if !ok {
		if fr.taint {
			a.hard("download-exec", base+" fed a download runs a program rein cannot see (-f or one only known at run time), which may execute it; it is never allowed")
		}
		a.dynamic(base + " runs a program rein cannot see (-f or a program only known at run time)")
		return
	}
	risky := ""
	for _, tok := range []string{"system", "|", ">", "getline", "ENVIRON", "PROCINFO", "@load", "@include"} {
		if strings.Contains(prog.text, tok) {
			risky = tok
			break
		}
	}
	if risky == "" {
		return
	}
	if fr.taint && (risky == "system" || risky == "|") {
		a.hard("download-exec", base+" running commands from a download ("+risky+") is never allowed")
		return
	}
	a.dynamic(base + " program uses " + wspath.Quote(risky) + ", which can run commands or write files")
}

// awkProgram returns an awk invocation's program text: the first operand
// after the options, unless an option names a program file or source.
func awkProgram(ws []word) (word, bool) {
	i := 1
	for ; i < len(ws); i++ {
		t := ws[i].text
		if t == "--" {
			i++
			break
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		switch {
		case t == "-f" || t == "-E" || t == "-e" || t == "-l" || t == "-i" || strings.HasPrefix(t, "-W") ||
			strings.HasPrefix(t, "-f") && !strings.HasPrefix(t, "--") ||
			strings.HasPrefix(t, "--file") || strings.HasPrefix(t, "--exec") || strings.HasPrefix(t, "--source") ||
			strings.HasPrefix(t, "--load") || strings.HasPrefix(t, "--include"):
			return word{}, false
		case t == "-v" || t == "-F":
			i++ // the option's value
		}
	}
	if i >= len(ws) || !ws[i].literal {
		return word{}, false
	}
	return ws[i], true
}

// checkMan: man runs its pager (-P, --pager, MANPAGER) and browser (-H)
// through the shell; the pager given is analyzed as shell code.
func (a *analyzer) checkMan(ws []word, fr frame) {
	for i := 1; i < len(ws); i++ {
		t := ws[i].text
		var code *word
		switch {
		case t == "-P" || t == "--pager" || t == "-H" || t == "--html":
			if i+1 < len(ws) && t != "-H" && t != "--html" {
				code = &ws[i+1]
				i++
			} else if t == "-H" || t == "--html" {
				a.dynamic("man -H runs a browser")
				return
			}
		case strings.HasPrefix(t, "-P") || strings.HasPrefix(t, "--pager=") || strings.HasPrefix(t, "--html="):
			w := ws[i]
			w.text = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(t, "-P"), "--pager="), "--html=")
			code = &w
		}
		if code != nil {
			a.dynamic("man " + t + " runs " + wspath.Quote(code.text) + " as its pager")
			cf := fr
			cf.depth++
			a.code(code.text, cf)
			return
		}
	}
}

// checkGitRunners makes git subcommands and options that run programs a
// concern: rebase --exec, bisect run, submodule foreach, filter-branch,
// difftool and mergetool, grep --open-files-in-pager, the transport
// options that name a program (--upload-pack, --receive-pack, --exec)
// and ext:: or fd:: remotes, and git config writes (they change
// .git/config, which later git commands obey).
func (a *analyzer) checkGitRunners(ws []word) {
	argv := texts(ws)
	i := gitSub(argv)
	if i >= len(argv) {
		return
	}
	sub, rest := argv[i], argv[i+1:]
	if why := gitProgramArg(sub, rest); why != "" {
		a.dynamic(why)
		return
	}
	if gitRunnerSubs[sub] {
		a.dynamic("git " + sub + " runs programs rein cannot see")
		return
	}
	if check, ok := gitSubChecks[sub]; ok {
		if why := check(rest); why != "" {
			a.dynamic(why)
		}
	}
}

// gitProgramOptions are git options, of any subcommand, that name a
// program to run.
var gitProgramOptions = []string{"--upload-pack", "--receive-pack", "--exec", "--open-files-in-pager", "--extcmd", "--tool", "--ext-diff", "--textconv"}

// gitProgramArg returns why an argument of git sub runs a program: an
// ext:: or fd:: remote, or one of gitProgramOptions; or "".
func gitProgramArg(sub string, rest []string) string {
	for _, t := range rest {
		if strings.HasPrefix(t, "ext::") || strings.HasPrefix(t, "fd::") {
			return "git remote " + wspath.Quote(t) + " runs a program as its transport"
		}
		for _, opt := range gitProgramOptions {
			if longOption(t, opt, len(opt)) {
				return "git " + sub + " " + t + " runs a program"
			}
		}
	}
	return ""
}

// gitRunnerSubs are the git subcommands that run programs whatever
// their arguments.
var gitRunnerSubs = map[string]bool{
	"filter-branch": true, "filter-repo": true, "difftool": true, "mergetool": true, "instaweb": true,
	"daemon": true, "web--browse": true, "credential": true, "send-email": true, "imap-send": true,
	"p4": true, "svn": true, "cvsimport": true, "archimport": true, "quiltimport": true,
}

// gitSubChecks return why a git subcommand's arguments make it run a
// command or change git's configuration, or "".
var gitSubChecks = map[string]func(rest []string) string{
	"rebase": func(rest []string) string {
		for _, t := range rest {
			if t == "-x" || strings.HasPrefix(t, "--exec") || t == "-i" || strings.HasPrefix(t, "--interactive") || (shortCluster(t) && strings.ContainsAny(t, "xi")) {
				return "git rebase " + t + " runs commands or an editor"
			}
		}
		return ""
	},
	"bisect": func(rest []string) string {
		if firstOperand(rest) == "run" {
			return "git bisect run runs a command rein does not analyze here; run the command directly"
		}
		return ""
	},
	"submodule": func(rest []string) string {
		if slices.Contains(rest, "foreach") {
			return "git submodule foreach runs shell code in every submodule"
		}
		return ""
	},
	"grep": func(rest []string) string {
		for _, t := range rest {
			if t == "-O" || strings.HasPrefix(t, "-O") && !strings.HasPrefix(t, "--") {
				return "git grep -O runs a program on the matching files"
			}
		}
		return ""
	},
	"config": func(rest []string) string {
		if gitConfigWrites(rest) {
			return "git config changes git's configuration (.git/config), which makes later git commands run what it says; edit it yourself if needed"
		}
		return ""
	},
	"remote": func(rest []string) string {
		switch firstOperand(rest) {
		case "add", "set-url", "rename", "remove", "rm", "set-branches", "set-head", "prune":
			return "git remote " + firstOperand(rest) + " changes git's configuration (.git/config)"
		}
		return ""
	},
}

// git config's options and subcommands (git 2.46+) by what they do.
var (
	gitConfigWriteOptions = map[string]bool{"--unset": true, "--unset-all": true, "--add": true, "--replace-all": true,
		"--edit": true, "-e": true, "--remove-section": true, "--rename-section": true}
	gitConfigValueOptions = map[string]bool{"-f": true, "--file": true, "--blob": true, "--type": true, "--default": true, "--comment": true}
	// gitConfigSubs: true for a subcommand that writes, false for one that
	// reads.
	gitConfigSubs = map[string]bool{"get": false, "list": false,
		"set": true, "unset": true, "edit": true, "rename-section": true, "remove-section": true}
)

// gitConfigWrites reports whether git config arguments change a
// configuration file: a write option, a write subcommand (git 2.46+), or a
// key with a value; --get*, --list and the get and list subcommands read.
func gitConfigWrites(args []string) bool {
	operands := 0
	for i := 0; i < len(args); i++ {
		t := args[i]
		writes, isSub := gitConfigSubs[t]
		switch {
		case strings.HasPrefix(t, "--get") || t == "--list" || t == "-l":
			return false
		case gitConfigWriteOptions[t]:
			return true
		case gitConfigValueOptions[t]:
			i++ // the option's value
		case strings.HasPrefix(t, "-"):
		case operands == 0 && isSub:
			return writes
		default:
			operands++
		}
	}
	return operands >= 2
}
