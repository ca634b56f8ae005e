package shell

import (
	"slices"
	"strings"
)

func unwrapXargs(ws []word) unwrapped {
	const value, optional = "adEILnPs", "eil"
	long := []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}
	replace := ""
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
			name, v, hasValue := strings.Cut(t, "=")
			if name == "--replace" {
				replace = "{}"
				if hasValue {
					replace = v
				}
			}
			if !hasValue && slices.Contains(long, name) {
				i++
			}
			i++
			continue
		}
		for j := 1; j < len(t); j++ {
			c := t[j]
			if strings.IndexByte(value, c) >= 0 {
				v := t[j+1:]
				if v == "" && i+1 < len(ws) {
					i++
					v = ws[i].text
				}
				if c == 'I' {
					replace = v
				}
				break
			}
			if strings.IndexByte(optional, c) >= 0 {
				if c == 'i' {
					replace = cmpOr(t[j+1:], "{}")
				}
				break
			}
		}
		i++
	}
	inner := slices.Clone(ws[min(i, len(ws)):])
	if len(inner) == 0 {
		inner = []word{litWord("echo")}
	}
	if replace != "" {
		for k := range inner {
			if strings.Contains(inner[k].text, replace) {
				inner[k].literal, inner[k].pathOK = false, false
			}
		}
	}
	return unwrapped{label: "xargs", inner: [][]word{inner}, unknownArgs: true}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// unwrapFind returns the commands find runs with -exec, -execdir, -ok and
// -okdir. When the expression has no test, {} stands for every file under
// the start points, so it is replaced by the start points themselves:
// `find . -exec rm -rf {} +` removes the workspace.
func (a *analyzer) unwrapFind(ws []word) unwrapped {
	starts, i := findStarts(ws)
	var ex findExpr
	for i < len(ws) {
		i = ex.primary(ws, i)
	}
	filtered := ex.filtered && !ex.widened
	if ex.deletes && !filtered {
		a.checkRecursiveRemove("find -delete", starts)
	}
	for _, run := range ex.execs {
		// find .. -type f -exec rm {} + removes every file of the tree
		// like -delete, whatever rm's own options.
		if !filtered && len(run) > 0 && slices.Contains([]string{"rm", "unlink", "shred"}, cmdBase(run[0].text)) &&
			slices.ContainsFunc(run, func(w word) bool { return strings.Contains(w.text, "{}") }) {
			a.checkRecursiveRemove("find -exec "+cmdBase(run[0].text), starts)
		}
	}
	if len(ex.execs) == 0 {
		return unwrapped{}
	}
	u := unwrapped{label: "find -exec", keepSelf: true}
	for _, run := range ex.execs {
		if filtered {
			u.inner = append(u.inner, run)
			continue
		}
		for _, s := range starts {
			in := slices.Clone(run)
			for k := range in {
				if strings.Contains(in[k].text, "{}") {
					in[k] = replaceBraces(in[k], s)
				}
			}
			u.inner = append(u.inner, in)
		}
	}
	return u
}

// findStarts skips find's leading options (-H, -L, -P, -O3, -D debug)
// and returns the start points (. when none is given) and the index of
// the expression.
func findStarts(ws []word) ([]word, int) {
	i := 1
	for i < len(ws) {
		t := ws[i].text
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-O") {
			i++
		} else if t == "-D" {
			i += 2
		} else {
			break
		}
	}
	var starts []word
	for ; i < len(ws); i++ {
		t := ws[i].text
		if strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == "," {
			break
		}
		starts = append(starts, ws[i])
	}
	if len(starts) == 0 {
		starts = []word{litWord(".")}
	}
	return starts, i
}

// findKind is what a primary of find's expression means to unwrapFind.
type findKind int

const (
	// findOther: -type, -size, -mtime, -user, -perm, … narrow nothing
	// that matters: every file of the tree may match. The zero value:
	// primaries not in findPrimaries are these.
	//lint:ignore U1000 named for the reader; lookups rely on the zero value
	findOther findKind = iota
	// findExec runs a command up to ; or + (-exec, -ok, …).
	findExec
	// findDelete removes what matches.
	findDelete
	// findDepth takes a value and filters nothing (-maxdepth N).
	findDepth
	// findNameTest takes a pattern that filters unless it is only * and .
	findNameTest
	// findFilter filters without a value (-empty).
	findFilter
	// findWiden is an alternative or a negation, which can match
	// everything again: `-name x -o -type f`, `! -name x`.
	findWiden
)

// findPrimaries are the primaries unwrapFind tells apart.
var findPrimaries = map[string]findKind{
	"-exec": findExec, "-execdir": findExec, "-ok": findExec, "-okdir": findExec,
	"-delete":   findDelete,
	"-maxdepth": findDepth, "-mindepth": findDepth,
	"-name": findNameTest, "-iname": findNameTest, "-path": findNameTest, "-ipath": findNameTest,
	"-wholename": findNameTest, "-iwholename": findNameTest, "-regex": findNameTest, "-iregex": findNameTest,
	"-lname": findNameTest, "-ilname": findNameTest, "-samefile": findNameTest, "-inum": findNameTest,
	"-empty": findFilter,
	"-o":     findWiden, "-or": findWiden, ",": findWiden, "!": findWiden, "-not": findWiden,
}

// findExpr is what unwrapFind learns from find's expression.
type findExpr struct {
	filtered, deletes, widened bool
	execs                      [][]word
}

// primary reads the primary at ws[i] and returns the index after it.
func (ex *findExpr) primary(ws []word, i int) int {
	switch findPrimaries[ws[i].text] {
	case findExec:
		j := i + 1
		for j < len(ws) && ws[j].text != ";" && ws[j].text != "+" {
			j++
		}
		if j > i+1 {
			ex.execs = append(ex.execs, ws[i+1:j])
		}
		return j + 1
	case findDelete:
		ex.deletes = true
	case findDepth:
		return i + 2
	case findNameTest:
		if i+1 >= len(ws) || strings.Trim(ws[i+1].text, "*.") != "" {
			ex.filtered = true
		}
		return i + 2
	case findFilter:
		ex.filtered = true
	case findWiden:
		ex.widened = true
	}
	return i + 1
}

func replaceBraces(w, start word) word {
	r := w
	r.text = strings.ReplaceAll(w.text, "{}", start.text)
	r.alt = strings.ReplaceAll(w.alt, "{}", start.alt)
	r.path = strings.ReplaceAll(w.path, "{}", start.path)
	r.pathOK = w.pathOK && start.pathOK
	r.literal = w.literal && start.literal
	r.glob = w.glob || start.glob
	if r.glob {
		r.globAt = strings.IndexAny(r.path, "*?[")
	}
	return r
}

// unwrapWatch: watch joins its arguments and runs them with sh -c,
// unless -x runs them directly.
func unwrapWatch(ws []word) unwrapped {
	i, direct := 1, false
	for i < len(ws) && strings.HasPrefix(ws[i].text, "-") {
		t := ws[i].text
		if t == "--" {
			i++
			break
		}
		if t == "-x" || t == "--exec" {
			direct = true
		}
		if t == "-n" || t == "--interval" || t == "-q" || t == "--equexit" {
			i++
		}
		i++
	}
	if i >= len(ws) {
		return unwrapped{}
	}
	if direct {
		return unwrapped{label: "watch", inner: [][]word{ws[i:]}}
	}
	code := joinWords(ws[i:])
	return unwrapped{label: "watch", code: &code}
}

// unwrapFlock: flock [opts] LOCK CMD… or flock [opts] LOCK -c CODE.
func unwrapFlock(ws []word) unwrapped {
	i := 1
	for i < len(ws) && strings.HasPrefix(ws[i].text, "-") {
		t := ws[i].text
		if t == "-w" || t == "--timeout" || t == "--wait" || t == "-E" || t == "--conflict-exit-code" {
			i++
		}
		i++
	}
	i++ // the lock file
	if i >= len(ws) {
		return unwrapped{}
	}
	if t := ws[i].text; (t == "-c" || t == "--command") && i+1 < len(ws) {
		return unwrapped{label: "flock -c", code: &ws[i+1]}
	}
	return unwrapped{label: "flock", inner: [][]word{ws[i:]}}
}

// unwrapParallel: GNU parallel runs its command once per argument after
// :::, or, without a command, runs each argument as a command line.
func (a *analyzer) unwrapParallel(ws []word, fr frame) unwrapped {
	const value = "jSPnNLdaEIC"
	long := []string{"--jobs", "--sshlogin", "--max-args", "--delimiter", "--arg-file", "--colsep",
		"--joblog", "--results", "--tmpdir", "--workdir", "--timeout", "--delay"}
	i := 1
	for i < len(ws) && strings.HasPrefix(ws[i].text, "-") && !strings.HasPrefix(ws[i].text, ":::") {
		t := ws[i].text
		if t == "--" {
			i++
			break
		}
		if slices.Contains(long, t) || len(t) == 2 && strings.IndexByte(value, t[1]) >= 0 {
			i++
		}
		i++
	}
	sep := len(ws)
	for j := i; j < len(ws); j++ {
		if strings.HasPrefix(ws[j].text, ":::") {
			sep = j
			break
		}
	}
	if sep > i {
		return unwrapped{label: "parallel", inner: [][]word{ws[i:sep]}, unknownArgs: true}
	}
	for _, w := range ws[min(sep+1, len(ws)):] {
		if strings.HasPrefix(w.text, ":::") {
			continue
		}
		cf := fr
		cf.depth++
		cf.via = append(slices.Clip(fr.via), "parallel")
		a.code(w.text, cf)
	}
	return unwrapped{}
}

// unwrapTrap: trap CODE SIGNAL… runs CODE when a signal arrives.
func unwrapTrap(ws []word) unwrapped {
	i := 1
	for i < len(ws) && strings.HasPrefix(ws[i].text, "-") && ws[i].text != "-" {
		if ws[i].text == "--" {
			i++
			break
		}
		i++
	}
	if i+1 >= len(ws) || ws[i].text == "-" || ws[i].text == "" {
		return unwrapped{}
	}
	return unwrapped{label: "trap", code: &ws[i]}
}

// defineAliases records alias NAME=VALUE, so a later NAME runs VALUE.
//
// Aliases defined in guessed code are recorded too: a later use expands
// to what the guess defined, which bash would run as well.
func (a *analyzer) defineAliases(ws []word) {
	for _, w := range ws[1:] {
		name, value, ok := strings.Cut(w.text, "=")
		if !ok || name == "" {
			continue
		}
		v := w
		v.text, v.alt = value, value
		a.aliases[name] = v
	}
}

// remoteCommand checks the command ssh runs on the remote host for hard
// denials: it is code rein cannot otherwise see.
func (a *analyzer) remoteCommand(ws []word, fr frame) {
	const value = "BbcDEeFIiJLlmOoPpQRSWw"
	i := 1
	for i < len(ws) && strings.HasPrefix(ws[i].text, "-") {
		t := ws[i].text
		if t == "--" {
			i++
			break
		}
		if len(t) == 2 && strings.IndexByte(value, t[1]) >= 0 {
			i++
		}
		i++
	}
	i++ // the host
	if i >= len(ws) {
		return
	}
	a.hiddenCode(joinWords(ws[i:]).text, fr, "ssh")
}

// unwrapAt: at and batch read the commands of a job from stdin (or -f).
func (a *analyzer) unwrapAt(base string, ws []word, fr frame) unwrapped {
	for _, w := range ws[1:] {
		if strings.HasPrefix(w.text, "-") && strings.ContainsAny(w.text, "fldrc") {
			return unwrapped{}
		}
	}
	if fr.stdinCode != nil {
		return unwrapped{label: base, code: fr.stdinCode}
	}
	if fr.pipeIn {
		a.concern("dynamic-code", base+" schedules code piped from another command")
	}
	return unwrapped{}
}
