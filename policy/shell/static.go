package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// The analyzer may allow only what it can prove static (DESIGN §4a): every
// word of every simple command literal after quote removal, and no builtin
// that evaluates its arguments as code or arithmetic. This file holds the
// checks that turn everything else into a concern (Ask), each with a reason
// that tells the model how to make the command provable.

// dynamicConcern is the finding ID of a command rein cannot prove static.
const dynamicConcern = "dynamic"

// dynamic records that part of a command is only known at run time.
func (a *analyzer) dynamic(reason string) { a.concern(dynamicConcern, reason) }

// evalBuiltins evaluate their arguments as shell code, run commands they
// are given, or assign to names (which bash evaluates as array subscripts,
// running any $(…) in them): `read 'a[$(touch x)]'` runs touch.
var evalBuiltins = map[string]string{
	"eval":      "runs its arguments as shell code",
	"source":    "runs a file as shell code",
	".":         "runs a file as shell code",
	"let":       "evaluates arithmetic, which runs code through array subscripts",
	"read":      "assigns to names, which bash evaluates as array subscripts",
	"mapfile":   "assigns to names and can run a callback (-C)",
	"readarray": "assigns to names and can run a callback (-C)",
	"getopts":   "assigns to names, which bash evaluates as array subscripts",
	"trap":      "runs code when a signal arrives",
	"alias":     "defines aliases that change what later commands run",
	"enable":    "loads builtins from shared objects",
	"bind":      "binds keys to shell commands",
	"complete":  "registers completion commands",
	"compgen":   "expands words and runs completion functions",
	"compopt":   "changes completion behaviour",
	"fc":        "re-runs commands from the history through an editor",
	"history":   "changes the history that fc re-runs",
	"hash":      "rebinds command names to other programs",
}

// checkStatic makes a builtin that evaluates its arguments, and the
// options of builtins that do so, a concern. base is the command's name.
func (a *analyzer) checkStatic(base string, ws []word) {
	if why, ok := evalBuiltins[base]; ok {
		a.dynamic(wspath.Quote(base) + " " + why + "; rein cannot see what that runs")
		return
	}
	args := ws[1:]
	switch base {
	case "printf":
		if hasShortOption(args, 'v', "") {
			a.dynamic("`printf -v` assigns to a name, which bash evaluates as an array subscript (and PATH-like names change what runs); print the value instead")
		}
	case "test", "[":
		for _, w := range args {
			if w.text == "-v" || w.text == "-R" {
				a.dynamic(wspath.Quote(base+" "+w.text) + " evaluates its operand as an array subscript, which can run code")
				return
			}
		}
	case "declare", "typeset", "local", "export", "readonly", "nameref":
		a.checkDeclare(base, args)
	case "unset":
		for _, w := range args {
			if w.text == "-n" || strings.ContainsAny(w.text, "[]") {
				a.dynamic("`unset " + w.text + "` evaluates an array subscript or a reference, which can run code")
				return
			}
		}
	case "wait":
		if hasShortOption(args, 'p', "") {
			a.dynamic("`wait -p` assigns to a name, which bash evaluates as an array subscript")
		}
	case "exec":
		if len(args) == 0 || strings.HasPrefix(args[0].text, "-") {
			a.dynamic("`exec` without a command changes the shell's file descriptors or replaces it; rein cannot tell what follows")
		}
	case "coproc":
		a.dynamic("`coproc` runs a command connected to the shell through file descriptors rein cannot follow")
	}
}

// checkDeclare allows declare and its relatives only with plain names and
// the options that do not evaluate values: -i makes assignments arithmetic,
// -n makes a name a reference (resolved as a subscript), -a/-A take
// subscripts, -f/-F touch functions, -l/-u/-t change values later.
func (a *analyzer) checkDeclare(base string, args []word) {
	for _, w := range args {
		t := w.text
		if (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) && len(t) > 1 && !strings.Contains(t, "=") {
			if strings.Trim(t[1:], "xrgp") != "" {
				a.dynamic(wspath.Quote(base+" "+t) + " makes values arithmetic, references or arrays, which bash evaluates; assign plain values instead")
				return
			}
			continue
		}
		name, _, _ := strings.Cut(t, "=")
		if !isName(name) {
			a.dynamic(wspath.Quote(base+" "+t) + " assigns to " + wspath.Quote(name) + ", which is not a plain variable name (bash evaluates subscripts)")
			return
		}
	}
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// hasShortOption reports whether the leading options of args hold the
// short option c (alone or in a cluster) or the long option long.
func hasShortOption(args []word, c byte, long string) bool {
	for _, w := range args {
		t := w.text
		if t == "--" || !strings.HasPrefix(t, "-") || t == "-" {
			return false
		}
		if strings.HasPrefix(t, "--") {
			if long != "" && longOption(t, long, 3) {
				return true
			}
			continue
		}
		if strings.IndexByte(t[1:], c) >= 0 {
			return true
		}
	}
	return false
}

// checkGlobArgs makes a glob that may expand to an option a concern: a
// file named `-delete` or `--output=x` turns `find *` or `rm *` into
// something else. A glob whose first character is a literal other than
// "-" (./*.go, src/*) cannot.
func (a *analyzer) checkGlobArgs(ws []word) {
	for _, w := range ws[1:] {
		if !w.glob || !w.literal {
			continue
		}
		if w.globAt == 0 && !strings.HasPrefix(w.path, "/") {
			a.dynamic("the glob " + wspath.Quote(w.text) + " may expand to a file name starting with -, which the command would take as an option; write ./" + w.text)
			return
		}
	}
}

// testClause walks a [[ … ]] expression: its words must be literal, and
// the operators that evaluate their operands as arithmetic (-eq, -lt, …)
// or as subscripts (-v, -R) are dynamic.
func (a *analyzer) testClause(c *syntax.TestClause, fr frame) {
	a.scanNested(c.X, fr)
	syntax.Walk(c.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
				a.dynamic("`[[ … " + n.Op.String() + " … ]]` evaluates its operands as arithmetic, which runs code through array subscripts; use test or [ instead")
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				a.dynamic("`[[ " + n.Op.String() + " … ]]` evaluates its operand as an array subscript, which can run code")
			}
		case *syntax.Word:
			if _, ok := literalText(n); !ok {
				a.dynamic("the test " + wspath.Quote(fr.slice(c)) + " uses values only known at run time")
			}
			return false
		}
		return true
	})
}
