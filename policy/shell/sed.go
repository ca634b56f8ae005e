package shell

import (
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// checkSed allows a sed script only when it uses no command that runs a
// program (e, the e flag of s) or writes a file (w, W, the w flag).
func (a *analyzer) checkSed(base string, ws []word, fr frame) {
	scripts, file := sedScripts(ws)
	if file != "" {
		if fr.taint {
			a.hard("download-exec", base+" "+file+" fed a download runs a script rein cannot see, which may execute it; it is never allowed")
		}
		a.dynamic(base + " " + file + " runs a script file rein does not read")
		return
	}
	for _, s := range scripts {
		if a.sedScriptRisky(base, s, fr) {
			return
		}
	}
}

// sedOpt is what one of sed's options does with the script.
type sedOpt int

const (
	sedFlag         sedOpt = iota // -n, -i, -E, …: nothing
	sedScriptNext                 // -e SCRIPT, --expression SCRIPT
	sedScriptInline               // --expression=SCRIPT
	sedScriptFile                 // -f FILE, --file=FILE: a script rein does not read
	sedValueNext                  // -l N, --line-length N: a value, not the script
)

// sedOption classifies option t; a cluster of short options is read by
// its letters (-ne SCRIPT, -nf FILE).
func sedOption(t string) sedOpt {
	short := !strings.HasPrefix(t, "--")
	switch {
	case t == "-e" || t == "--expression" || short && strings.HasSuffix(t, "e") && !strings.ContainsRune(t, 'f'):
		return sedScriptNext
	case strings.HasPrefix(t, "--expression="):
		return sedScriptInline
	case strings.HasPrefix(t, "--file") || short && strings.ContainsRune(t, 'f'):
		return sedScriptFile
	case t == "--line-length" || short && strings.HasSuffix(t, "l"):
		return sedValueNext
	}
	return sedFlag
}

// sedScripts returns the scripts of a sed command (the -e values, else
// the first operand), or the option that names a script file.
func sedScripts(ws []word) (scripts []word, file string) {
	explicit := false
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
		switch sedOption(t) {
		case sedScriptNext:
			explicit = true
			if i+1 < len(ws) {
				i++
				scripts = append(scripts, ws[i])
			}
		case sedScriptInline:
			explicit = true
			w := ws[i]
			w.text = strings.TrimPrefix(t, "--expression=")
			scripts = append(scripts, w)
		case sedScriptFile:
			return nil, t
		case sedValueNext:
			i++ // -l N: the line length, not the script
		}
	}
	if !explicit && i < len(ws) {
		scripts = append(scripts, ws[i])
	}
	return scripts, ""
}

// sedScriptRisky reports (and records) a script that is only known at
// run time or that runs a command or writes a file.
func (a *analyzer) sedScriptRisky(base string, s word, fr frame) bool {
	if !s.literal {
		if fr.taint {
			a.hard("download-exec", base+" fed a download with a script only known at run time (it may use e) is never allowed")
		}
		a.dynamic(base + " runs a script only known at run time")
		return true
	}
	cmd, ok := sedRunsOrWrites(s.text)
	if !ok {
		return false
	}
	if fr.taint && (cmd == "e" || cmd == "s///e" || cmd == "an address" || cmd == "a long script") {
		a.hard("download-exec", base+" running commands from a download ("+cmd+") is never allowed")
	}
	a.dynamic(base + " script uses " + wspath.Quote(cmd) + ", which runs a command or writes a file")
	return true
}

// sedRunsOrWrites scans a sed script conservatively: it reports the first
// command that executes (e, s///e) or writes (w, W, s///w), and also any
// script it cannot follow.
func sedRunsOrWrites(script string) (string, bool) {
	sc := sedScan{s: script}
	for steps := 0; steps < 4096; steps++ {
		sc.skip(" \t;\n")
		if sc.done() {
			return "", false
		}
		if !sc.address() {
			return "an address", true
		}
		if sc.done() {
			return "", false
		}
		if cmd, risky := sc.command(); risky {
			return cmd, true
		}
	}
	return "a long script", true
}

// sedScan is a position in a sed script.
type sedScan struct {
	s string
	i int
}

func (sc *sedScan) done() bool { return sc.i >= len(sc.s) }

// peek is the byte at the position, or 0 at the end.
func (sc *sedScan) peek() byte {
	if sc.done() {
		return 0
	}
	return sc.s[sc.i]
}

// skip moves past any of the bytes in set.
func (sc *sedScan) skip(set string) {
	for !sc.done() && strings.IndexByte(set, sc.s[sc.i]) >= 0 {
		sc.i++
	}
}

// digits moves past decimal digits (and ~ when step is set: 1~2).
func (sc *sedScan) digits(step bool) {
	for c := sc.peek(); c >= '0' && c <= '9' || step && c == '~'; c = sc.peek() {
		sc.i++
	}
}

// delimited moves past text up to an unescaped delim and the delim
// itself; it reports false when the script ends first.
func (sc *sedScan) delimited(delim byte) bool {
	for !sc.done() && sc.s[sc.i] != delim {
		if sc.s[sc.i] == '\\' {
			sc.i++
		}
		sc.i++
	}
	if sc.done() {
		return false
	}
	sc.i++
	return true
}

// address moves past an address or a range of two, and a negation; it
// reports false for one it cannot follow.
func (sc *sedScan) address() bool {
	for k := 0; k < 2; k++ {
		if !sc.oneAddress() {
			return false
		}
		if k == 0 && sc.peek() == ',' {
			sc.i++
			continue
		}
		break
	}
	sc.skip("! ")
	return true
}

// oneAddress moves past a line number, $, /regex/ or \cREGEXc.
func (sc *sedScan) oneAddress() bool {
	switch c := sc.peek(); {
	case c >= '0' && c <= '9':
		sc.digits(true)
	case c == '$':
		sc.i++
	case c == '/' || c == '\\':
		delim := byte('/')
		if c == '\\' {
			if sc.i+1 >= len(sc.s) {
				return false
			}
			sc.i++
			delim = sc.s[sc.i]
		}
		sc.i++
		if !sc.delimited(delim) {
			return false
		}
		sc.skip("IM")
	}
	return true
}

// command moves past one command and reports it when it executes or
// writes, or cannot be followed.
func (sc *sedScan) command() (string, bool) {
	c := sc.s[sc.i]
	sc.i++
	switch {
	case strings.IndexByte("{}=dDgGhHlnNpPxzFqQ", c) >= 0:
		sc.digits(false)
	case strings.IndexByte("btT:aicrR", c) >= 0:
		sc.toEndOfLine(c == 'a' || c == 'i' || c == 'c')
	case c == 's' || c == 'y':
		return sc.substitute(c)
	default: // e, w, W and anything unknown
		return string(c), true
	}
	return "", false
}

// toEndOfLine moves past a label or text: to the end of the line, or for
// labels and file names also to a ';'.
func (sc *sedScan) toEndOfLine(text bool) {
	for !sc.done() && sc.s[sc.i] != '\n' && (text || sc.s[sc.i] != ';') {
		if sc.s[sc.i] == '\\' {
			sc.i++
		}
		sc.i++
	}
}

// substitute moves past s/re/repl/flags or y/src/dst/ and reports the e
// and w flags, and any flag it does not know.
func (sc *sedScan) substitute(c byte) (string, bool) {
	if sc.done() {
		return "s", true
	}
	delim := sc.s[sc.i]
	if delim == '\n' || delim == '\\' {
		return string(c), true
	}
	sc.i++
	for part := 0; part < 2; part++ {
		if !sc.delimited(delim) {
			return string(c), true
		}
	}
	if c == 'y' {
		return "", false
	}
	for !sc.done() && strings.IndexByte(";\n}", sc.s[sc.i]) < 0 {
		f := sc.s[sc.i]
		switch {
		case f == 'e' || f == 'w' || f == 'W':
			return "s///" + string(f), true
		case strings.IndexByte("gpiImM \t", f) >= 0, f >= '0' && f <= '9':
		default:
			return "s///" + string(f), true
		}
		sc.i++
	}
	return "", false
}
