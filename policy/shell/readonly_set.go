package shell

import (
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// The read-only set: the commands, and for each the options, that the
// editor and read-only presets allow without asking when a whole command
// line is made of them (see the policy package's readonly.go for the
// conditions). Every entry here only reads the files it is given, prints
// text or changes the shell's directory; an option that is not listed
// asks, so an option a later version adds, a long option spelt short (GNU
// accepts `--files0` for `--files0-from`) and one that runs, follows or
// writes (`tail -f`, `wc --files0-from`, `ls -L`) never slips through.
//
// git is not in the set: a repository's own .git/config can make any git
// command run programs (core.fsmonitor, core.pager, diff.external,
// textconv and filter drivers, aliases, hooks), and a command line cannot
// switch them off without being rewritten. The git_status and git_diff
// tools run git with those switched off; use them. `go env` is not in it
// either: it prints GOPROXY, GONOSUMDB and GOAUTH, which may carry
// credentials.

// valueKind is what an option's value must be.
type valueKind int

const (
	// noValue: the option takes none.
	noValue valueKind = iota
	// countValue: a count of lines or bytes: digits, optionally signed
	// (`head -n -5`, `tail -n +3`).
	countValue
	// textValue: any static text the command does not open (a stat
	// format, a basename suffix).
	textValue
)

// operandKind says what a command does with its operands.
type operandKind int

const (
	// noOperands: the command takes none. The zero value: an entry that
	// names no operand kind has none.
	//lint:ignore U1000 named for the reader; entries rely on the zero value
	noOperands operandKind = iota
	// pathOperands: every operand is a file the command opens or lists.
	pathOperands
	// textOperands: operands are text the command prints or computes
	// with, never opens (echo, basename).
	textOperands
	// dirOperand: the directory the shell changes to (cd), checked like
	// a path but never a glob. Whether it exists does not matter: the
	// analysis checks later commands against every directory the line
	// may be in.
	dirOperand
)

// readOnlyCommand describes one command of the set.
type readOnlyCommand struct {
	// short are the short options without a value; shortValue those
	// with one (attached, -n5, or the next word, -n 5).
	short      string
	shortValue map[byte]valueKind
	// long are the long options, spelt out in full, and their values
	// (--lines=5 or --lines 5).
	long map[string]valueKind
	// operands says what the operands are; minOperands and maxOperands
	// bound how many (maxOperands < 0: any number).
	operands                 operandKind
	minOperands, maxOperands int
	// implicitDot says the command lists the working directory when it
	// has no operand (ls).
	implicitDot bool
	// digitOption accepts the obsolete count option -N (head -5).
	digitOption bool
	// noPlusOperand refuses operands starting with '+': `tail +5f FILE`
	// is the obsolete spelling of `tail -n +5 -f FILE`, which never ends.
	noPlusOperand bool
	// textOnly: every argument is text (echo, printf); leadingDash
	// says whether the first may start with '-' (echo's -n, -e, -E are
	// harmless; printf's -v assigns to a variable).
	textOnly    bool
	leadingDash bool
	// sub is the subcommand that must come first (go version).
	sub string
}

// readOnlySet maps command names, as written, to their descriptions.
var readOnlySet = map[string]readOnlyCommand{
	"ls": {
		// -L and -H follow symlinks (ls -LR through a link to / lists the
		// whole file system); -I, -w, -T, --color and friends take values
		// rein does not need to vet.
		short: "aAlhR1tSdrFpisngoGcuUXvxmCQbk",
		long: longs("--all", "--almost-all", "--human-readable", "--recursive", "--reverse", "--directory",
			"--size", "--classify", "--inode", "--numeric-uid-gid"),
		operands: pathOperands, maxOperands: -1, implicitDot: true,
	},
	"cat": {
		short:    "nAbeEstTvu",
		long:     longs("--number", "--show-all", "--number-nonblank", "--squeeze-blank", "--show-ends", "--show-tabs", "--show-nonprinting"),
		operands: pathOperands, maxOperands: -1,
	},
	"head": {
		short: "qv", shortValue: map[byte]valueKind{'n': countValue, 'c': countValue},
		long:     withValues(longs("--quiet", "--silent", "--verbose"), countValue, "--lines", "--bytes"),
		operands: pathOperands, maxOperands: -1, digitOption: true,
	},
	"tail": {
		// Never -f, -F, --follow, --retry, --pid or -s: they wait for
		// more input forever.
		short: "qv", shortValue: map[byte]valueKind{'n': countValue, 'c': countValue},
		long:     withValues(longs("--quiet", "--silent", "--verbose"), countValue, "--lines", "--bytes"),
		operands: pathOperands, maxOperands: -1, digitOption: true, noPlusOperand: true,
	},
	"wc": {
		// Never --files0-from: it reads the names of the files to open
		// from a file rein does not see.
		short:    "lwcmL",
		long:     longs("--lines", "--words", "--bytes", "--chars", "--max-line-length"),
		operands: pathOperands, maxOperands: -1,
	},
	"stat": {
		short: "Ltf", shortValue: map[byte]valueKind{'c': textValue},
		long:     withValues(longs("--dereference", "--terse", "--file-system"), textValue, "--format", "--printf"),
		operands: pathOperands, minOperands: 1, maxOperands: -1,
	},
	"pwd":      {short: "LP"},
	"true":     {},
	"false":    {},
	"echo":     {textOnly: true, leadingDash: true, maxOperands: -1},
	"printf":   {textOnly: true, minOperands: 1, maxOperands: -1},
	"basename": {short: "az", shortValue: map[byte]valueKind{'s': textValue}, long: withValues(longs("--multiple", "--zero"), textValue, "--suffix"), operands: textOperands, minOperands: 1, maxOperands: -1},
	"dirname":  {short: "z", long: longs("--zero"), operands: textOperands, minOperands: 1, maxOperands: -1},
	"cd":       {operands: dirOperand, minOperands: 1, maxOperands: 1},
	// go version [-m] [-v] [file ...] prints the toolchain's version or
	// the build information of the Go binaries it is given (directories
	// are searched): files, checked like any other path.
	"go": {sub: "version", short: "mv", operands: pathOperands, maxOperands: -1},
}

// ReadOnlyCommands returns the names of the commands of the read-only set,
// for documentation and tests.
func ReadOnlyCommands() []string {
	out := make([]string, 0, len(readOnlySet))
	for name, c := range readOnlySet {
		if c.sub != "" {
			name += " " + c.sub
		}
		out = append(out, name)
	}
	return out
}

func longs(names ...string) map[string]valueKind {
	m := make(map[string]valueKind, len(names))
	for _, n := range names {
		m[n] = noValue
	}
	return m
}

func withValues(m map[string]valueKind, k valueKind, names ...string) map[string]valueKind {
	for _, n := range names {
		m[n] = k
	}
	return m
}

// parseArgs splits a command's arguments (after the name and subcommand)
// into operands, checking every option against the description. It
// follows GNU getopt: options may come after operands, "--" ends them,
// "-" is an operand. It returns why the arguments are not read-only, or
// "".
func (c readOnlyCommand) parseArgs(args []word) (operands []word, why string) {
	if c.textOnly {
		return c.textArgs(args)
	}
	endOpts := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case endOpts || t == "-" || !strings.HasPrefix(t, "-"):
			if c.noPlusOperand && strings.HasPrefix(t, "+") {
				return nil, "the operand " + wspath.Quote(t) + " may be read as the obsolete option +N[f], which can follow the file forever"
			}
			operands = append(operands, args[i])
		case t == "--":
			endOpts = true
		case strings.HasPrefix(t, "--"):
			i, why = c.longOption(args, i)
		case c.digitOption && i == 0 && wspath.AllDigits(t[1:]) && len(t) <= 19:
		default:
			i, why = c.shortCluster(args, i)
		}
		if why != "" {
			return nil, why
		}
	}
	return operands, ""
}

// textArgs checks the arguments of a command whose every argument is
// text (echo, printf).
func (c readOnlyCommand) textArgs(args []word) ([]word, string) {
	if len(args) < c.minOperands {
		return nil, "it is missing an argument"
	}
	if !c.leadingDash && len(args) > 0 && strings.HasPrefix(args[0].text, "-") && args[0].text != "--" {
		return nil, "its first argument " + wspath.Quote(args[0].text) + " would be an option"
	}
	return args, ""
}

// longOption checks the long option args[i] (--lines=5, --lines 5) and
// returns the index of the last word it used.
func (c readOnlyCommand) longOption(args []word, i int) (int, string) {
	t := args[i].text
	name, val, hasVal := strings.Cut(t, "=")
	kind, ok := c.long[name]
	if !ok {
		return i, "the option " + wspath.Quote(t) + " is not one rein knows to be read-only"
	}
	if kind == noValue {
		if hasVal {
			return i, "the option " + wspath.Quote(name) + " takes no value"
		}
		return i, ""
	}
	if !hasVal {
		if i++; i == len(args) {
			return i, "the option " + wspath.Quote(name) + " is missing its value"
		}
		val = args[i].text
	}
	if !validValue(kind, val) {
		return i, "the value " + wspath.Quote(val) + " of " + wspath.Quote(name) + " is not a count"
	}
	return i, ""
}

// shortCluster checks the short options of args[i] (-la, -n5, -n 5) and
// returns the index of the last word it used.
func (c readOnlyCommand) shortCluster(args []word, i int) (int, string) {
	t := args[i].text
	for j := 1; j < len(t); j++ {
		ch := t[j]
		if strings.IndexByte(c.short, ch) >= 0 {
			continue
		}
		kind, ok := c.shortValue[ch]
		if !ok {
			return i, "the option -" + string(rune(ch)) + " (in " + wspath.Quote(t) + ") is not one rein knows to be read-only"
		}
		val := t[j+1:]
		if val == "" {
			if i++; i == len(args) {
				return i, "the option -" + string(rune(ch)) + " is missing its value"
			}
			val = args[i].text
		}
		if !validValue(kind, val) {
			return i, "the value " + wspath.Quote(val) + " of -" + string(rune(ch)) + " is not a count"
		}
		return i, ""
	}
	return i, ""
}

// validValue checks an option's value.
func validValue(k valueKind, v string) bool {
	switch k {
	case countValue:
		v = strings.TrimPrefix(strings.TrimPrefix(v, "+"), "-")
		return wspath.AllDigits(v) && len(v) <= 18
	case textValue:
		return true
	}
	return false
}
