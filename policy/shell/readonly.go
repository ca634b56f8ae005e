package shell

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// ReadPath is a file a read-only command line reads, handed to the
// caller's check: only the caller knows the workspace's path rules.
type ReadPath struct {
	// Arg is the word naming the file.
	Arg Arg
	// Cwds are the directories the line may read it from; CwdUnknown
	// says a cd rein cannot follow came first.
	Cwds       []string
	CwdUnknown bool
	// Dir says the word names a directory to change into (cd): it must
	// not be a glob.
	Dir bool
}

// ReadOnly returns why the command line src, analysed as an, is not made
// only of the built-in read-only commands (the read-only set) with
// read-only options, or "" when it is. See the policy package's
// readonly.go for the conditions and why they suffice. check is called,
// in source order, for every file the line reads; what it returns, when
// not "", is why the line is not read-only.
func (an *Analysis) ReadOnly(src string, check func(ReadPath) string) string {
	if strings.ContainsRune(src, 0) || !utf8.ValidString(src) {
		return "it holds a NUL byte or invalid UTF-8"
	}
	if len(an.Findings) > 0 {
		return "the analysis found " + wspath.Quote(an.Findings[0].Reason)
	}
	if len(an.Commands) == 0 {
		return "it runs no command"
	}
	calls, why := lineShape(src)
	if why != "" {
		return why
	}
	if calls != len(an.Commands) {
		return "it runs commands inside other commands"
	}
	for _, rd := range an.Redirects {
		if why := readOnlyRedirect(rd, check); why != "" {
			return why
		}
	}
	for _, cmd := range an.Commands {
		if why := readOnlyCommandLine(cmd, check); why != "" {
			return why
		}
	}
	return ""
}

// readOnlyRedirect returns why a redirect is not a plain input, or "".
func readOnlyRedirect(rd Redirect, check func(ReadPath) string) string {
	switch {
	case rd.Write:
		return "the redirect " + wspath.Quote(rd.Op+" "+rd.Target) + " writes"
	case rd.Op == "<<" || rd.Op == "<<-":
	case rd.Op == "<" && (rd.Dynamic || !rd.PathOK):
		return "the input " + wspath.Quote(rd.Target) + " is not a plain file name"
	case rd.Op == "<":
		in := Arg{Text: rd.Target, Path: rd.Path, PathOK: true, Literal: true}
		if why := check(ReadPath{Arg: in, Cwds: rd.Cwds, CwdUnknown: rd.CwdUnknown}); why != "" {
			return "the input " + why
		}
	default:
		return "the redirect " + wspath.Quote(rd.Op) + " is not a plain input"
	}
	return ""
}

// lineShape parses a command line on its own and checks that it is only
// simple commands (without assignments) joined by lists and pipes, with
// no background job and no redirect that writes; it returns how many
// simple commands there are.
func lineShape(src string) (int, string) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	f, err := p.Parse(strings.NewReader(src), "")
	if err != nil {
		return 0, "it does not parse"
	}
	calls := 0
	for _, s := range f.Stmts {
		if why := simpleStmt(s, &calls); why != "" {
			return 0, why
		}
	}
	return calls, ""
}

// simpleStmt checks one statement of lineShape, counting simple commands.
func simpleStmt(s *syntax.Stmt, calls *int) string {
	if s.Background || s.Coprocess || s.Disown {
		return "it runs a command in the background"
	}
	if why := inputRedirects(s.Redirs); why != "" {
		return why
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return "it assigns variables"
		}
		*calls++
		return ""
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
		default:
			return "it uses the operator " + wspath.Quote(c.Op.String())
		}
		if why := simpleStmt(c.X, calls); why != "" {
			return why
		}
		return simpleStmt(c.Y, calls)
	}
	return "it uses shell syntax beyond simple commands, lists and pipes"
}

// inputRedirects returns why redirects of a statement may write, or "".
func inputRedirects(rs []*syntax.Redirect) string {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		case syntax.DplOut, syntax.DplIn:
			if lit := r.Word.Lit(); lit == "" || !wspath.AllDigits(lit) {
				return "the redirect " + wspath.Quote(r.Op.String()+r.Word.Lit()) + " may write to a file"
			}
		default:
			return "the redirect " + wspath.Quote(r.Op.String()) + " writes"
		}
		if r.N != nil && !wspath.AllDigits(r.N.Value) {
			return "it redirects a file descriptor chosen at run time"
		}
	}
	return ""
}

// readOnlyCommandLine returns why one simple command is not in the
// read-only set with read-only options and paths, or "".
func readOnlyCommandLine(cmd Command, check func(ReadPath) string) string {
	if len(cmd.Via) > 0 || cmd.UnknownArgs || cmd.RunsCode != "" || cmd.AfterLink != "" || cmd.Dynamic || len(cmd.Words) == 0 {
		return wspath.Quote(strings.Join(cmd.Args, " ")) + " is run by another command or with arguments rein cannot see"
	}
	for _, w := range cmd.Words {
		if !w.Literal || !w.PathOK || !printable(w.Text) {
			return "the word " + wspath.Quote(w.Text) + " is not plain static text"
		}
	}
	name := cmd.Words[0].Text
	spec, ok := readOnlySet[name]
	if !ok {
		return wspath.Quote(name) + " is not one of the built-in read-only commands"
	}
	if cmd.Words[0].Glob || cmd.Words[0].Braced {
		return "the command name " + wspath.Quote(name) + " is not plain text"
	}
	operands, why := spec.operandsOf(name, cmd.words[1:])
	if why != "" {
		return why
	}
	if spec.operands != pathOperands && spec.operands != dirOperand {
		return ""
	}
	for _, w := range operands {
		if spec.operands == dirOperand && (strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "+")) {
			// cd - goes to $OLDPWD, which may come from the environment.
			return wspath.Quote(name+" "+w.text) + " goes to a directory from the shell's history or environment"
		}
		rp := ReadPath{Arg: args([]word{w})[0], Cwds: cmd.Cwds, CwdUnknown: cmd.CwdUnknown, Dir: spec.operands == dirOperand}
		if why := check(rp); why != "" {
			return wspath.Quote(name) + ": " + why
		}
	}
	return ""
}

// operandsOf parses the arguments of a read-only command (the name
// excluded) and returns its operands, or why they are not read-only.
func (c readOnlyCommand) operandsOf(name string, args []word) ([]word, string) {
	if c.sub != "" {
		if len(args) == 0 || args[0].text != c.sub {
			return nil, wspath.Quote(name) + " is read-only only as " + wspath.Quote(name+" "+c.sub)
		}
		args = args[1:]
	}
	operands, why := c.parseArgs(args)
	if why != "" {
		return nil, wspath.Quote(name) + ": " + why
	}
	switch {
	case len(operands) < c.minOperands:
		return nil, wspath.Quote(name) + " is missing an operand"
	case c.maxOperands >= 0 && len(operands) > c.maxOperands:
		return nil, wspath.Quote(name) + " has more operands than it takes"
	}
	if len(operands) == 0 && c.implicitDot && (c.operands == pathOperands || c.operands == dirOperand) {
		operands = []word{litWord(".")}
	}
	return operands, ""
}

// printable reports whether s is valid UTF-8 made only of printable
// characters and the ASCII space: no NUL (bash cuts a -c string there),
// newline, escape, DEL, zero-width or other format character, or
// non-ASCII space, which read-only commands do not need and which make one
// word look like another.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
