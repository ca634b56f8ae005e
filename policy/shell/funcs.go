package shell

import (
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// Fork bombs and functions: a function that calls itself — by name, as
// $FUNCNAME, or through other functions — in a pipeline or the background
// multiplies without end.

// noteCall records a call of name by the functions being defined: their
// call counts and the call graph.
func (a *analyzer) noteCall(name string, fr frame) {
	risky := fr.inPipe || fr.bg
	for _, f := range a.funcs {
		if f.name == name {
			f.calls++
			f.risky = f.risky || risky
		}
	}
	if len(a.funcs) == 0 {
		return
	}
	caller := a.funcs[len(a.funcs)-1].name
	if a.calls[caller] == nil {
		if len(a.calls) >= 256 {
			return
		}
		a.calls[caller] = map[string]bool{}
	}
	a.calls[caller][name] = a.calls[caller][name] || risky
}

// dynamicName handles a command name only known at run time: $FUNCNAME
// inside a function is a call of that function; fed a download, any
// dynamic name may be a shell.
func (a *analyzer) dynamicName(ws []word, fr frame) {
	t := ws[0].text
	if len(a.funcs) > 0 && (strings.HasPrefix(t, "$FUNCNAME") || strings.HasPrefix(t, "${FUNCNAME")) {
		a.noteCall(a.funcs[len(a.funcs)-1].name, fr)
	}
	a.downloads++ // it may be a downloader
	if fr.taint {
		a.hard("download-exec", "piping a download into "+wspath.Quote(t)+", a command only known at run time (it may be a shell), is never allowed")
	}
}

// recursesRisky reports whether name reaches itself through the call
// graph over a path with a call in a pipeline or the background.
func (a *analyzer) recursesRisky(name string) bool {
	type state struct {
		fn    string
		risky bool
	}
	seen := map[state]bool{}
	stack := []state{{fn: name}}
	for len(stack) > 0 && len(seen) < 1024 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for callee, risky := range a.calls[s.fn] {
			next := state{fn: callee, risky: s.risky || risky}
			if callee == name && next.risky {
				return true
			}
			if !seen[next] {
				seen[next] = true
				stack = append(stack, next)
			}
		}
	}
	return false
}

// noteAssigned records the names a command may assign besides plain
// assignments: read, mapfile, printf -v, getopts (gitpin.go depends on
// them; a name read from a download holds it).
func (a *analyzer) noteAssigned(base string, ws []word, fr frame) {
	switch base {
	case "read", "mapfile", "readarray", "printf", "getopts", "export", "declare", "typeset", "local", "readonly":
	default:
		return
	}
	for _, w := range ws[1:] {
		name, _, _ := strings.Cut(w.text, "=")
		if !isName(name) {
			continue
		}
		if len(a.assigned) < 256 {
			a.assigned[name] = true
		}
		if fr.taint && (base == "read" || base == "mapfile" || base == "readarray") {
			a.dlVars[name] = true
		}
	}
}
