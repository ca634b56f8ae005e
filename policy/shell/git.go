package shell

import (
	"slices"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// gitGlobalValue are git's global options that take a separate value.
var gitGlobalValue = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--config-env": true, "--attr-source": true,
}

// gitSub returns the index of git's subcommand in argv (len(argv) when
// there is none), skipping global options: `git -C x -c k=v push`.
func gitSub(argv []string) int {
	i := 1
	for i < len(argv) {
		t := argv[i]
		if !strings.HasPrefix(t, "-") {
			return i
		}
		if gitGlobalValue[t] {
			i += 2
			continue
		}
		i++
	}
	return len(argv)
}

// gitNormalize removes git's global options, so a rule for `git push`
// also matches `git -C x push`.
func gitNormalize(argv []string) []string {
	i := gitSub(argv)
	return append([]string{argv[0]}, argv[i:]...)
}

// gitConfig is one -c key=value (or --config-env key=VAR) given to git.
type gitConfig struct {
	key   string
	value word
	env   bool
}

func gitConfigs(ws []word) []gitConfig {
	var out []gitConfig
	argv := texts(ws)
	end := gitSub(argv)
	for i := 1; i < end; i++ {
		t := argv[i]
		var kv word
		env := false
		switch {
		case (t == "-c" || t == "--config-env") && i+1 < end:
			kv, env = ws[i+1], t == "--config-env"
			i++
		case strings.HasPrefix(t, "--config-env="):
			kv, env = ws[i], true
			kv.text = strings.TrimPrefix(t, "--config-env=")
		default:
			continue
		}
		key, value, _ := strings.Cut(kv.text, "=")
		v := kv
		v.text, v.alt = value, value
		out = append(out, gitConfig{key: strings.ToLower(key), value: v, env: env})
	}
	return out
}

// gitCommandKey reports whether a git configuration key names a command
// git runs (a pager, an editor, a credential helper, a filter, …).
func gitCommandKey(key string) bool {
	for _, p := range []string{"pager.", "protocol.", "includeif.", "sendemail.", "alias."} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	for _, s := range []string{
		".sshcommand", ".pager", ".editor", ".fsmonitor", ".hookspath", ".askpass", ".gitproxy",
		".external", ".textconv", ".command", ".driver", ".clean", ".smudge", ".process",
		".helper", ".program", ".packobjectshook", ".uploadpack", ".receivepack", ".cmd",
		".difffilter", ".path", ".templatedir", ".browser", ".proxycommand",
	} {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

// checkGit denies force pushes and git under configuration rein cannot
// pin, and makes configuration that runs commands a concern. unknownArgs
// says arguments are appended at run time (xargs git push).
func (a *analyzer) checkGit(ws []word, fr frame, unknownArgs bool) {
	argv := texts(ws)
	i := gitSub(argv)
	if why := a.gitUnpinned(ws, i); why != "" {
		a.hard("git-config", "git under "+why+" reads configuration rein cannot see, which may alias any command to a force push or run any program; it is never allowed — run git without it")
	}
	pushing := i < len(argv) && (argv[i] == "push" || argv[i] == "send-pack")
	a.checkGitOptions(ws, fr, pushing)
	if i >= len(argv) {
		return
	}
	a.checkRepoConfig(argv[i], a.gitStartDirs(ws, i), pushing, fr)
	switch argv[i] {
	case "push", "send-pack":
		a.checkPush(ws, i, unknownArgs)
	case "config":
		a.checkGitConfigCmd(ws, i, fr)
	case "submodule", "rebase", "bisect":
		a.gitHiddenCommands(argv[i], ws[i+1:], fr)
	case "remote":
		if slices.ContainsFunc(argv[i+1:], func(t string) bool { return strings.HasPrefix(t, "--mirror") }) {
			a.hard("force-push", "git remote --mirror makes every push to the remote a mirror (force) push; it is never allowed")
		}
	}
}

// checkGitOptions checks git's -c and --config-env options: settings
// that make a push force or mirror, and commands they name.
func (a *analyzer) checkGitOptions(ws []word, fr frame, pushing bool) {
	for _, c := range gitConfigs(ws) {
		if pushing && forcingConfig(c.key, c.value, c.env) {
			a.hard("force-push", "git -c "+c.key+" makes the push force or mirror; it is never allowed")
		}
		if strings.HasPrefix(c.key, "alias.") && !c.env {
			continue // run through unwrapGit
		}
		if gitCommandKey(c.key) || c.env && strings.HasPrefix(c.key, "alias.") {
			a.concern("git-config", "git -c "+c.key+" makes git run a command")
			if !c.env {
				a.aliasValue(c.key, c.value, fr, "git -c "+c.key)
			}
		}
	}
}

// checkPush denies a push (subcommand at index sub) with force, or with
// arguments rein cannot see: every value a dynamic word could take
// counts (`$x` may be -f), and so do arguments appended by xargs.
func (a *analyzer) checkPush(ws []word, sub int, unknownArgs bool) {
	argv := texts(ws)
	if unknownArgs {
		a.hard("force-push", "git "+argv[sub]+" with arguments appended at run time (xargs and the like) is a possible force push; it is never allowed — spell the arguments out")
	}
	if forcePush(argv[sub+1:]) {
		a.hard("force-push", "git "+argv[sub]+" with force ("+strings.Join(argv, " ")+") is never allowed")
	}
	for _, w := range ws[sub+1:] {
		if !w.literal {
			a.hard("force-push", "git "+argv[sub]+" with "+wspath.Quote(w.text)+", a value only known at run time, is a possible force push; it is never allowed — spell the arguments out")
			return
		}
	}
}

// checkGitConfigCmd checks git config (subcommand at index sub): settings
// that make pushes force or mirror or include files rein cannot see are
// denied; commands they name are a concern, checked for hard denials.
func (a *analyzer) checkGitConfigCmd(ws []word, sub int, fr frame) {
	argv := texts(ws)
	for k := sub + 1; k+1 < len(ws); k++ {
		if forcingConfig(strings.ToLower(argv[k]), ws[k+1], false) {
			a.hard("force-push", "git config "+argv[k]+" sets up force or mirror pushes; it is never allowed")
			break
		}
	}
	for k := sub + 1; k < len(argv); k++ {
		key := strings.ToLower(argv[k])
		if key == "include.path" || strings.HasPrefix(key, "includeif.") {
			a.hard("git-config", "git config "+key+" makes every later git command read a file rein cannot see, which may alias any command to a force push; it is never allowed")
		}
		if strings.HasPrefix(key, "-") || !gitCommandKey(key) {
			continue
		}
		a.concern("git-config", "git config "+key+" makes git run a command")
		if k+1 < len(ws) {
			a.aliasValue(key, ws[k+1], fr, "git config "+key)
		}
	}
}

// forcingConfig reports whether a configuration value makes pushes force
// or mirror: remote.NAME.mirror true, a remote.NAME.push refspec starting
// with +, or such a key whose value comes from the environment.
func forcingConfig(key string, value word, env bool) bool {
	if !strings.HasPrefix(key, "remote.") {
		return false
	}
	switch {
	case strings.HasSuffix(key, ".mirror"):
		if env || !value.literal {
			return true
		}
		switch strings.ToLower(value.text) {
		case "false", "no", "off", "0":
			return false
		}
		return true
	case strings.HasSuffix(key, ".push"):
		return env || !value.literal || strings.HasPrefix(strings.TrimSpace(value.text), "+")
	}
	return false
}

// hiddenCode checks code that runs outside the command's own flow (a
// git pager, an ssh remote command) for hard denials only: the concern
// it raises already makes the call ask.
func (a *analyzer) hiddenCode(code string, fr frame, label string) {
	cf := fr
	cf.depth++
	cf.via = append(slices.Clip(fr.via), label)
	a.guessing++
	a.code(code, cf)
	a.guessing--
}

// gitHiddenCommands checks the commands git runs for a subcommand, for
// hard denials: submodule foreach CODE, rebase -x/--exec CODE, bisect run
// CMD….
func (a *analyzer) gitHiddenCommands(sub string, rest []word, fr frame) {
	for k, w := range rest {
		switch {
		case sub == "submodule" && w.text == "foreach":
			if k+1 < len(rest) {
				a.hiddenCode(joinWords(rest[k+1:]).text, fr, "git submodule foreach")
			}
			return
		case sub == "rebase" && (w.text == "-x" || w.text == "--exec") && k+1 < len(rest):
			a.hiddenCode(rest[k+1].text, fr, "git rebase --exec")
		case sub == "rebase" && strings.HasPrefix(w.text, "--exec="):
			a.hiddenCode(strings.TrimPrefix(w.text, "--exec="), fr, "git rebase --exec")
		case sub == "bisect" && w.text == "run" && k+1 < len(rest):
			a.guessing++
			a.execArgs(rest[k+1:], fr, fr.via, false)
			a.guessing--
			return
		}
	}
}

// aliasValue checks a configuration value that names a command, for
// hard denials only: an alias that is not a `!` shell alias is more git
// arguments (alias.p='push -f'), everything else shell code.
func (a *analyzer) aliasValue(key string, value word, fr frame, label string) {
	code, shell := strings.CutPrefix(value.text, "!")
	if !strings.HasPrefix(key, "alias.") || shell {
		a.hiddenCode(code, fr, label)
		return
	}
	argv := []word{litWord("git")}
	for _, f := range strings.Fields(value.text) {
		g := litWord(f)
		g.literal = value.literal
		argv = append(argv, g)
	}
	a.guessing++
	a.execArgs(argv, fr, fr.via, false)
	a.guessing--
}

// forcePush reports whether git push arguments force the update.
func forcePush(args []string) bool {
	valueOpts := map[string]bool{"-o": true, "--push-option": true, "--repo": true, "--receive-pack": true, "--exec": true}
	for j := 0; j < len(args); j++ {
		t := args[j]
		switch {
		case t == "--":
			for _, op := range args[j+1:] {
				if strings.HasPrefix(op, "+") {
					return true
				}
			}
			return false
		case longOption(t, "--force", 4), longOption(t, "--force-with-lease", 4),
			longOption(t, "--force-if-includes", 4), longOption(t, "--mirror", 4):
			return true // git also takes unambiguous abbreviations
		case valueOpts[t]:
			j++
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			for _, c := range t[1:] {
				if c == 'f' {
					return true
				}
				if c == 'o' {
					if strings.HasSuffix(t, "o") {
						j++
					}
					break
				}
			}
		case strings.HasPrefix(t, "+"):
			return true
		}
	}
	return false
}

// unwrapGit expands an alias defined with git -c alias.NAME=…: a `!`
// alias is shell code, any other alias is more git arguments.
func (a *analyzer) unwrapGit(ws []word) unwrapped {
	argv := texts(ws)
	i := gitSub(argv)
	if i >= len(argv) {
		return unwrapped{}
	}
	for _, c := range gitConfigs(ws) {
		if c.env || !strings.EqualFold(c.key, "alias."+argv[i]) {
			continue
		}
		if code, ok := strings.CutPrefix(c.value.text, "!"); ok {
			w := c.value
			w.text = code
			return unwrapped{label: "git alias", code: &w}
		}
		// The global options stay: the next link of an alias chain is
		// looked up in the same -c options (alias.a=b, alias.b='push -f').
		inner := slices.Clone(ws[:i])
		for _, f := range strings.Fields(c.value.text) {
			g := litWord(f)
			g.literal = c.value.literal
			inner = append(inner, g)
		}
		return unwrapped{label: "git alias", inner: [][]word{append(inner, ws[i+1:]...)}}
	}
	return unwrapped{}
}
