package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unwrapped is what a wrapper command runs.
type unwrapped struct {
	// label is how the wrapper appears in Command.Via.
	label string
	// inner are the commands the wrapper runs.
	inner [][]word
	// code is shell code the wrapper runs (bash -c, eval, watch).
	code *word
	// keepSelf says the wrapper is itself a command rules must pass
	// (find runs and lists files besides running -exec commands).
	keepSelf bool
	// unknownArgs says the inner command gets arguments at run time.
	unknownArgs bool
	// alias is the alias being expanded: like bash, rein does not expand
	// it again inside its own value (alias ls='ls --color').
	alias string
}

// wrapperSpec describes the options of a wrapper that runs the command
// following them.
type wrapperSpec struct {
	// value are short options that take a value; long are long options
	// that take a value when written without "=".
	value string
	long  []string
	// operands is how many operands precede the command (timeout's
	// duration, taskset's mask).
	operands int
	// noCmd are short options after which no command follows
	// (ionice -p PID).
	noCmd string
}

var wrappers = map[string]wrapperSpec{
	"nohup": {}, "builtin": {}, "setsid": {}, "unbuffer": {}, "ccache": {},
	"eatmydata": {}, "valgrind": {}, "catchsegv": {}, "unshare": {}, "firejail": {},
	"nice":         {value: "n", long: []string{"--adjustment"}},
	"ionice":       {value: "cnpPu", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}, noCmd: "pPu"},
	"timeout":      {value: "sk", long: []string{"--signal", "--kill-after"}, operands: 1},
	"time":         {value: "fo", long: []string{"--format", "--output"}},
	"stdbuf":       {value: "ioe", long: []string{"--input", "--output", "--error"}},
	"exec":         {value: "a"},
	"strace":       {value: "eopsuEabIOSXP"},
	"ltrace":       {value: "eopsuaADFlnx"},
	"taskset":      {operands: 1, noCmd: "p"},
	"chrt":         {value: "TPD", operands: 1, noCmd: "p"},
	"proxychains":  {value: "f"},
	"proxychains4": {value: "f"},
	"torsocks":     {value: "uapP"},
	"fakeroot":     {value: "lis", long: []string{"--lib", "--faked"}},
	"nsenter":      {value: "tS", long: []string{"--target"}},
	"caffeinate":   {value: "tw"},
	// Denied anyway; unwrapped so what they would run is checked too.
	"sudo": {value: "ugCDhprtTU"},
	"doas": {value: "uC"},
}

// loaderSpec are the dynamic loader's options that take a value.
var loaderSpec = wrapperSpec{long: []string{"--library-path", "--preload", "--argv0", "--audit", "--inhibit-rpath"}}

// dynamicLoader reports whether a program is the dynamic loader.
func dynamicLoader(base string) bool {
	return base == "ld.so" || strings.HasPrefix(base, "ld-linux") || strings.HasPrefix(base, "ld-musl")
}

// unwrap returns what a command runs when it is a wrapper; for any other
// command the result is empty.
func (a *analyzer) unwrap(base string, ws []word, fr frame) unwrapped {
	if u, ok := a.unwrapDefined(ws); ok {
		return u
	}
	if spec, ok := wrappers[base]; ok {
		return unwrapped{label: base, inner: nonEmpty(genericInner(spec, ws))}
	}
	if dynamicLoader(base) {
		// ld.so PROGRAM runs PROGRAM: /lib64/ld-linux-x86-64.so.2 /bin/sh.
		return unwrapped{label: base, inner: nonEmpty(genericInner(loaderSpec, ws))}
	}
	if f, ok := unwrappers[base]; ok {
		if u, done := f(a, base, ws, fr); done {
			return u
		}
	}
	if run, ok := a.interp(base, ws); ok && run.shell {
		switch {
		case run.shellCode != nil:
			return unwrapped{label: base + " -c", code: run.shellCode}
		case run.fromStdin && fr.stdinCode != nil:
			return unwrapped{label: base + " <<", code: fr.stdinCode}
		}
	}
	return unwrapped{}
}

// unwrapDefined unwraps what the command line itself defined: an alias,
// a function that evals its arguments or runs them as a command.
func (a *analyzer) unwrapDefined(ws []word) (unwrapped, bool) {
	name := ws[0].text
	if v, ok := a.aliases[name]; ok {
		code := joinWords(append([]word{v}, ws[1:]...))
		return unwrapped{label: "alias " + name, code: &code, alias: name}, true
	}
	if a.evalFuncs[name] && len(ws) > 1 {
		code := joinWords(ws[1:])
		return unwrapped{label: "function " + name, code: &code}, true
	}
	if a.execFuncs[name] && len(ws) > 1 {
		return unwrapped{label: "function " + name, inner: [][]word{ws[1:]}, keepSelf: true}, true
	}
	return unwrapped{}, false
}

// unwrapper returns what one program runs; done false lets unwrap go on
// to ask whether it is a shell given code (-c, a here-document).
type unwrapper func(a *analyzer, base string, ws []word, fr frame) (u unwrapped, done bool)

// unwrappers are the programs that run other commands in a way of their
// own (beyond wrappers' options-then-command), by program name. Filled in
// init: the functions call back into unwrap.
var unwrappers map[string]unwrapper

func init() {
	plain := func(f func([]word) unwrapped) unwrapper {
		return func(_ *analyzer, _ string, ws []word, _ frame) (unwrapped, bool) { return f(ws), true }
	}
	at := func(a *analyzer, base string, ws []word, fr frame) (unwrapped, bool) {
		return a.unwrapAt(base, ws, fr), true
	}
	unwrappers = map[string]unwrapper{
		"env":     func(a *analyzer, _ string, ws []word, fr frame) (unwrapped, bool) { return a.unwrapEnv(ws, fr), true },
		"command": plain(unwrapCommand),
		"xargs":   plain(unwrapXargs),
		"find":    func(a *analyzer, _ string, ws []word, _ frame) (unwrapped, bool) { return a.unwrapFind(ws), true },
		"watch":   plain(unwrapWatch),
		"flock":   plain(unwrapFlock),
		"busybox": unwrapMulticall,
		"toybox":  unwrapMulticall,
		"script":  unwrapScript,
		"eval":    unwrapEval,
		"git":     func(a *analyzer, _ string, ws []word, _ frame) (unwrapped, bool) { return a.unwrapGit(ws), true },
		"parallel": func(a *analyzer, _ string, ws []word, fr frame) (unwrapped, bool) {
			return a.unwrapParallel(ws, fr), true
		},
		"trap": plain(unwrapTrap),
		"alias": func(a *analyzer, _ string, ws []word, _ frame) (unwrapped, bool) {
			a.defineAliases(ws)
			return unwrapped{}, false
		},
		"ssh": func(a *analyzer, _ string, ws []word, fr frame) (unwrapped, bool) {
			a.remoteCommand(ws, fr)
			return unwrapped{}, false
		},
		"at":    at,
		"batch": at,
	}
}

// unwrapMulticall: busybox PROGRAM runs PROGRAM.
func unwrapMulticall(_ *analyzer, base string, ws []word, _ frame) (unwrapped, bool) {
	if len(ws) > 1 && !strings.HasPrefix(ws[1].text, "-") {
		return unwrapped{label: base, inner: [][]word{ws[1:]}}, true
	}
	return unwrapped{}, false
}

// unwrapScript: script -c CMD (--command=CMD, -qc CMD, -qcCMD) runs CMD
// in a shell.
func unwrapScript(_ *analyzer, _ string, ws []word, _ frame) (unwrapped, bool) {
	for i := 1; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case strings.HasPrefix(t, "--command="):
			w := ws[i]
			w.text = strings.TrimPrefix(t, "--command=")
			return unwrapped{label: "script -c", code: &w}, true
		case t == "--command" || strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.HasSuffix(t, "c"):
			if i+1 < len(ws) {
				return unwrapped{label: "script -c", code: &ws[i+1]}, true
			}
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "c"):
			w := ws[i]
			w.text = t[strings.IndexByte(t, 'c')+1:]
			return unwrapped{label: "script -c", code: &w}, true
		}
	}
	return unwrapped{}, false
}

// unwrapEval: eval runs its arguments joined as shell code.
func unwrapEval(_ *analyzer, _ string, ws []word, _ frame) (unwrapped, bool) {
	if len(ws) > 1 {
		code := joinWords(ws[1:])
		return unwrapped{label: "eval", code: &code}, true
	}
	return unwrapped{}, false
}

func nonEmpty(inner []word) [][]word {
	if len(inner) == 0 {
		return nil
	}
	return [][]word{inner}
}

// genericInner skips a wrapper's options and fixed operands and returns
// the command that follows.
func genericInner(spec wrapperSpec, ws []word) []word {
	i := 1
	for i < len(ws) {
		t := ws[i].text
		if t == "--" {
			i++
			break
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		if strings.HasPrefix(t, "--") {
			name, _, hasValue := strings.Cut(t, "=")
			if !hasValue && slices.Contains(spec.long, name) {
				i++
			}
			i++
			continue
		}
		for j := 1; j < len(t); j++ {
			if strings.IndexByte(spec.noCmd, t[j]) >= 0 {
				return nil
			}
			if strings.IndexByte(spec.value, t[j]) >= 0 {
				if j == len(t)-1 {
					i++
				}
				break
			}
		}
		i++
	}
	i += spec.operands
	if i >= len(ws) {
		return nil
	}
	return ws[i:]
}

// envLong are GNU env's long options; the ones taking a value when
// written without "=" are in envLongValue. getopt_long takes any
// unambiguous abbreviation (--split for --split-string).
var (
	envLong = []string{"--ignore-environment", "--null", "--unset", "--chdir", "--split-string",
		"--argv0", "--block-signal", "--default-signal", "--ignore-signal", "--list-signal-handling",
		"--debug", "--help", "--version"}
	envLongValue = map[string]bool{"--unset": true, "--chdir": true, "--split-string": true, "--argv0": true}
)

// unwrapEnv returns the command env runs. Short options cluster (-iS,
// -vS 'sudo id', -uNAME); -S splits its string into more of env's own
// arguments, so the result is env again, with the split words in place:
// assignments and options inside the string are env's too.
func (a *analyzer) unwrapEnv(ws []word, fr frame) unwrapped {
	u := unwrapped{label: "env"}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		t := w.text
		var opt string
		var val *word
		switch {
		case t == "--":
			u.inner = nonEmpty(ws[i+1:])
			return u
		case strings.HasPrefix(t, "--"):
			name, v, hasValue := strings.Cut(t, "=")
			opt = resolveLong(name, envLong)
			if hasValue {
				vw := w
				vw.text, vw.path = v, strings.TrimPrefix(w.path, name+"=")
				val = &vw
			} else if envLongValue[opt] && i+1 < len(ws) {
				i++
				val = &ws[i]
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			opt, val, i = a.envShort(ws, i)
		case w.literal && isAssignment(t):
			name, value, _ := strings.Cut(t, "=")
			a.setVar(name, litWord(value))
			continue
		default:
			if !w.literal && isAssignment(t) {
				name, _, _ := strings.Cut(t, "=")
				a.setVar(name, word{})
				continue
			}
			u.inner = nonEmpty(ws[i:])
			return u
		}
		switch opt {
		case "--chdir":
			if val != nil {
				a.track("cd", []word{litWord("cd"), litWord("--"), *val}, fr)
			}
		case "--split-string":
			if val == nil {
				return unwrapped{}
			}
			if !val.literal {
				a.concern("dynamic-command", "env -S splits a string only known at run time")
			}
			// env -S's own escapes: \_ is a space, \t a tab, \c ends
			// the string.
			text, _, _ := strings.Cut(val.text, `\c`)
			text = strings.NewReplacer(`\_`, " ", `\t`, "\t", `\n`, "\n", `\v`, "\v", `\f`, "\f", `\r`, "\r").Replace(text)
			inner := append([]word{ws[0]}, a.splitWords(text, fr)...)
			u.inner = [][]word{append(inner, ws[i+1:]...)}
			return u
		}
	}
	return unwrapped{}
}

// envShort reads one cluster of env's short options starting at ws[i]:
// it returns the long name of the last option that takes a value (-u,
// -C, -S, -a), the value (the rest of the cluster or the next word) and
// the index of the last word used.
func (a *analyzer) envShort(ws []word, i int) (string, *word, int) {
	t := ws[i].text
	for j := 1; j < len(t); j++ {
		long, ok := map[byte]string{'u': "--unset", 'C': "--chdir", 'S': "--split-string", 'a': "--argv0"}[t[j]]
		if !ok {
			continue // -i, -0, -v and signal options take no value
		}
		v := ws[i]
		v.text = t[j+1:]
		v.path = strings.TrimPrefix(v.path, t[:j+1])
		if v.text == "" {
			if i+1 >= len(ws) {
				return long, nil, i
			}
			i++
			v = ws[i]
		}
		return long, &v, i
	}
	return "", nil, i
}

func isAssignment(t string) bool {
	name, _, ok := strings.Cut(t, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// splitWords splits a string into shell words, as env -S does.
func (a *analyzer) splitWords(s string, fr frame) []word {
	fr.src = s
	var out []word
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	for w, err := range p.WordsSeq(strings.NewReader(s)) {
		if err != nil {
			a.concern("unparsable", "rein cannot split the string given to env -S")
			break
		}
		out = append(out, a.expandWord(w, fr)...)
		if len(out) > maxBudget {
			break
		}
	}
	return out
}

func unwrapCommand(ws []word) unwrapped {
	i := 1
	for ; i < len(ws) && strings.HasPrefix(ws[i].text, "-") && ws[i].text != "-"; i++ {
		if ws[i].text == "--" {
			i++
			break
		}
		if strings.ContainsAny(ws[i].text, "vV") {
			return unwrapped{} // command -v: looks the name up, runs nothing
		}
	}
	return unwrapped{label: "command", inner: nonEmpty(ws[min(i, len(ws)):])}
}

// joinWords joins words with spaces, as eval and watch do before parsing.
func joinWords(ws []word) word {
	out := ws[0]
	for _, w := range ws[1:] {
		out = out.concat(litWord(" ")).concat(w)
	}
	return out
}
