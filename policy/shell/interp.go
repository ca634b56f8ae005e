package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// interpSpec describes how an interpreter finds the code it runs.
type interpSpec struct {
	// shell: -c makes the first operand the code (sh, bash, …).
	shell bool
	// code are short options whose value is code (perl -e); longCode the
	// long ones.
	code     string
	longCode []string
	// value are short options with a value that is not code.
	value string
	// module are short options after which neither a script nor stdin
	// is run (python -m).
	module string
}

var shellSpec = interpSpec{shell: true}

var interpreters = map[string]interpSpec{
	"sh": shellSpec, "bash": shellSpec, "zsh": shellSpec, "dash": shellSpec, "ksh": shellSpec,
	"mksh": shellSpec, "ash": shellSpec, "yash": shellSpec, "fish": shellSpec, "csh": shellSpec,
	"tcsh": shellSpec, "rbash": shellSpec,
	"python": {code: "c", value: "WX", module: "m"},
	"pypy":   {code: "c", value: "WX", module: "m"},
	"perl":   {code: "eE", value: "MmIlx"},
	"ruby":   {code: "e", value: "rIEC"},
	"node":   {code: "ep", longCode: []string{"--eval", "--print"}, value: "r"},
	"nodejs": {code: "ep", longCode: []string{"--eval", "--print"}, value: "r"},
	"php":    {code: "r", value: "cdzf"},
	"lua":    {code: "e", value: "l"},
	"luajit": {code: "e", value: "lj"},
	"tclsh":  {},
	"pwsh":   {code: "c", longCode: []string{"-command", "-Command"}},
}

// interpRun is how an interpreter invocation gets its code.
type interpRun struct {
	shell bool
	// code are the words that are code or name a script to run.
	code []word
	// shellCode is a shell's -c string.
	shellCode *word
	// inline are code strings given as options (python -c, perl -e).
	inline []word
	// fromStdin says the code is read from standard input.
	fromStdin bool
}

// interpreterSpec finds the spec of a command name, ignoring a version
// suffix (python3.12, perl5.36, lua5.4).
func interpreterSpec(base string) (interpSpec, bool) {
	if s, ok := interpreters[base]; ok {
		return s, true
	}
	trimmed := strings.TrimRight(base, "0123456789.")
	s, ok := interpreters[trimmed]
	return s, ok && trimmed != ""
}

// interp works out where an interpreter invocation takes its code from.
func (a *analyzer) interp(base string, ws []word) (interpRun, bool) {
	switch base {
	case "source", ".":
		run := interpRun{}
		if len(ws) > 1 {
			run.code = ws[1:2]
			run.fromStdin = isStdinPath(ws[1].text)
		}
		return run, true
	case "eval":
		return interpRun{code: ws[1:]}, true
	}
	spec, ok := interpreterSpec(base)
	if !ok {
		return interpRun{}, false
	}
	sc := &interpScan{spec: spec, ws: ws, run: interpRun{shell: spec.shell}}
	i := sc.options()
	sc.operands(ws[min(i, len(ws)):])
	return sc.run, true
}

// interpScan is interp's walk over an interpreter's arguments: the
// options per the spec, then the operand that is the script.
type interpScan struct {
	spec interpSpec
	ws   []word
	run  interpRun
	// dashC and dashS are a shell's -c and -s; other says an option
	// gave the code or a module, so no operand is the script.
	dashC, dashS, other bool
}

// options walks the options and returns the index of the first operand.
func (sc *interpScan) options() int {
	ws, spec := sc.ws, sc.spec
	i := 1
	for i < len(ws) {
		t := ws[i].text
		if t == "--" {
			return i + 1
		}
		if t == "-" || len(t) < 2 || (t[0] != '-' && !(spec.shell && t[0] == '+')) {
			return i
		}
		if strings.HasPrefix(t, "--") || (!spec.shell && len(spec.longCode) > 0 && slices.Contains(spec.longCode, t)) {
			i = sc.long(i) + 1
			continue
		}
		i = sc.short(i) + 1
	}
	return i
}

// long reads the long option at i (and its value); it returns the index
// of the last word it used.
func (sc *interpScan) long(i int) int {
	ws, spec := sc.ws, sc.spec
	t := ws[i].text
	name, _, hasValue := strings.Cut(t, "=")
	switch {
	case slices.Contains(spec.longCode, name):
		sc.other = true
		v := ws[i]
		_, v.text, _ = strings.Cut(t, "=")
		if !hasValue && i+1 < len(ws) {
			v = ws[i+1]
			i++
		}
		sc.run.code = append(sc.run.code, v)
		sc.run.inline = append(sc.run.inline, v)
	case spec.shell && (name == "--rcfile" || name == "--init-file") && !hasValue && i+1 < len(ws):
		sc.run.code = append(sc.run.code, ws[i+1])
		i++
	}
	return i
}

// short reads the cluster of short options at i; it returns the index of
// the last word it used.
func (sc *interpScan) short(i int) int {
	spec := sc.spec
	t := sc.ws[i].text
	for j := 1; j < len(t); j++ {
		c := t[j]
		switch {
		case spec.shell && c == 'c':
			sc.dashC = true
		case spec.shell && c == 's':
			sc.dashS = true
		case spec.shell && (c == 'o' || c == 'O'):
			return i + 1
		case strings.IndexByte(spec.code, c) >= 0, strings.IndexByte(spec.value, c) >= 0,
			strings.IndexByte(spec.module, c) >= 0:
			return sc.optionValue(i, j)
		}
	}
	return i
}

// optionValue reads the value of the short option at t[j] of word i:
// the rest of the word, or the next word.
func (sc *interpScan) optionValue(i, j int) int {
	t, c := sc.ws[i].text, sc.ws[i].text[j]
	v := sc.ws[i]
	v.text = t[j+1:]
	if v.text == "" && i+1 < len(sc.ws) {
		i++
		v = sc.ws[i]
	}
	if strings.IndexByte(sc.spec.code, c) >= 0 {
		sc.run.code = append(sc.run.code, v)
		sc.run.inline = append(sc.run.inline, v)
		sc.other = true
	}
	if strings.IndexByte(sc.spec.module, c) >= 0 {
		sc.other = true
	}
	return i
}

// operands decides where the code comes from once the options are read.
func (sc *interpScan) operands(operands []word) {
	switch {
	case sc.dashC:
		if len(operands) > 0 {
			sc.run.shellCode = &operands[0]
			sc.run.code = append(sc.run.code, operands[0])
		}
	case sc.dashS:
		sc.run.fromStdin = true
	case sc.other:
	case len(operands) > 0 && isStdinPath(operands[0].text):
		sc.run.fromStdin = true
	case len(operands) > 0 && operands[0].text != "-":
		sc.run.code = append(sc.run.code, operands[0])
	default:
		sc.run.fromStdin = true
	}
}

// isStdinPath reports whether a script operand names standard input.
func isStdinPath(p string) bool {
	switch path.Clean(p) {
	case "-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0", "/proc/thread-self/fd/0":
		return true
	}
	return false
}

// scanInline looks for privilege escalation and file-system creation in
// code given inline to an interpreter (python -c 'os.system("sudo …")'):
// rein cannot parse the language, but the names are unmistakable.
func (a *analyzer) scanInline(base, code string) {
	for _, tok := range strings.FieldsFunc(code, func(r rune) bool {
		return !(r == '_' || r == '.' || r == '/' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		name := strings.ToLower(path.Base(tok))
		if privilegeCommands[name] && name != "su" {
			a.hard("privilege", "privilege escalation ("+name+") in code run by "+base+" is never allowed")
		}
		if isMkfs(name) {
			a.hard("mkfs", "creating or wiping a file system ("+name+") in code run by "+base+" is never allowed")
		}
	}
	if forksInLoop(code) {
		a.hard("fork-bomb", "code run by "+base+" forks in a loop; it is never allowed")
	}
	toks := strings.FieldsFunc(code, func(r rune) bool { return strings.ContainsRune(" \t\n'\"`(),;[]{}<>|&=", r) })
	for _, tok := range toks {
		if strings.HasPrefix(tok, "/") && isRawDevice(strings.TrimPrefix(tok, "+")) {
			a.hard("raw-device", "code run by "+base+" names the device "+tok+"; writing it is never allowed")
			return
		}
	}
	if slices.Contains(toks, "git") && slices.Contains(toks, "push") && forcePush(toks) {
		a.hard("force-push", "code run by "+base+" runs a git push with force; it is never allowed")
	}
}

// forksInLoop reports whether code names fork and a loop (while, for,
// loop, until): a fork bomb in any language.
func forksInLoop(code string) bool {
	lower := strings.ToLower(code)
	if !strings.Contains(lower, "fork") {
		return false
	}
	return strings.Contains(lower, "while") || strings.Contains(lower, "for") && strings.Contains(lower, "for ") ||
		strings.Contains(lower, "loop") || strings.Contains(lower, "until")
}

// checkInterpreter denies running downloaded code — piped into an
// interpreter, or given to it as a script or -c string — and makes running
// code piped from another command a concern.
func (a *analyzer) checkInterpreter(base string, ws []word, fr frame, unknownArgs bool) {
	if a.downloadedFile(ws[0]) {
		a.hard("download-exec", "running a file downloaded by the same command ("+ws[0].text+") is never allowed")
		return
	}
	run, ok := a.interp(base, ws)
	if !ok {
		return
	}
	if unknownArgs && fr.taint {
		a.hard("download-exec", "running "+base+" with arguments taken from a download is never allowed")
		return
	}
	for _, w := range run.code {
		if w.download || a.downloadedFile(w) {
			a.hard("download-exec", "running downloaded code ("+base+" with a download as its code) is never allowed")
			return
		}
	}
	for _, w := range run.inline {
		a.scanInline(base, w.text)
		if net := netToken(texts(ws)); net != "" {
			if tok := execToken(base, w.text); tok != "" {
				a.hard("download-exec", base+" code that fetches ("+wspath.Quote(net)+") and can run what it fetched ("+wspath.Quote(tok)+") is never allowed")
			}
		}
	}
	if !run.fromStdin {
		return
	}
	if fr.taint {
		a.hard("download-exec", "piping a download into "+base+" is never allowed")
		return
	}
	if fr.pipeIn && !(run.shell && fr.stdinCode != nil) {
		a.concern("dynamic-code", base+" runs code piped from another command")
	}
}
