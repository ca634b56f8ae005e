package policy

import (
	"os"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Read-only commands under the editor and read-only presets (DESIGN
// §4a). Those presets ask before running commands, but a command line
// the analyzer proves static and that only reads files inside the
// workspace does nothing read_file does not already do without asking.
// Such a line is allowed as if by a built-in rule when all of this holds:
//
//   - the analysis found nothing to ask about (no expansion, substitution,
//     eval, wrapper, glob that may become an option, …);
//   - the line is only simple commands joined by ;, &&, || and pipes: no
//     background job, subshell, group, loop, function or assignment;
//   - no redirection writes (any >, >>, &>, <>); input comes only from a
//     here-document or a file that passes the path checks;
//   - every command is in readOnlySet, named as written there (no path,
//     no other case), with only the options listed for it;
//   - every operand that names a file resolves, through every directory
//     the line may cd to and every symlink, inside the workspace, to a
//     regular file, a directory or nothing, matches no ask or deny path
//     rule (protected paths included), and no part of it is named like a
//     credential store; a glob must expand, within bounds, to such paths.
//
// An explicit rule still wins (a user's ask rule for cat asks), and path
// rules, concerns and hard denials apply as to any command. The full
// preset allows these commands anyway; a workspace that contains the home
// directory gets no read-only allowance at all, since the secret stores
// there (~/.ssh, ~/.aws, …) would then be "inside the workspace".

// readOnlyRule is the Decision.Rule of a line the read-only set allows.
const readOnlyRule = "rule:builtin:allow read-only commands"

// secretNames are names, matched against every component of a path,
// that usually hold credentials: reading them through a command asks even
// where no rule protects them.
var secretNames = []string{
	".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "*.kdbx", "id_rsa*", "id_dsa*", "id_ecdsa*",
	"id_ed25519*", ".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".htpasswd",
	"credentials", "credentials.*", ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store",
}

// readOnlyBase returns the verdict that replaces the preset's for the
// commands no rule decides, when every command line of the call is
// read-only.
func (e *Engine) readOnlyBase(commands []string, analyses []*Analysis, base verdict, tr *tracer) (verdict, bool) {
	if base.explicit || base.action == Allow || (e.preset != PresetEditor && !e.preset.readsOnly()) {
		return verdict{}, false
	}
	if within(e.opts.Home, e.opts.Workspace) {
		return verdict{}, false
	}
	for i, cmd := range commands {
		if why := e.readOnlyLine(cmd, analyses[i]); why != "" {
			if tr.on() {
				tr.add("read-only", "not a read-only command line: "+why, base.action, base.rule)
			}
			return verdict{}, false
		}
	}
	v := verdict{action: Allow, rule: readOnlyRule,
		reason: "it only runs read-only commands on files inside the workspace (the built-in read-only commands)"}
	tr.add("read-only", v.reason, Allow, v.rule)
	return v, true
}

// readOnlyLine returns why one command line is not read-only, or "".
func (e *Engine) readOnlyLine(src string, an *Analysis) string {
	if strings.ContainsRune(src, 0) || !utf8.ValidString(src) {
		return "it holds a NUL byte or invalid UTF-8"
	}
	if len(an.Findings) > 0 {
		return "the analysis found " + quoteArg(an.Findings[0].Reason)
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
		switch {
		case rd.Write:
			return "the redirect " + quoteArg(rd.Op+" "+rd.Target) + " writes"
		case rd.Op == "<<" || rd.Op == "<<-":
		case rd.Op == "<" && (rd.Dynamic || !rd.pathOK):
			return "the input " + quoteArg(rd.Target) + " is not a plain file name"
		case rd.Op == "<":
			in := word{text: rd.Target, path: rd.path, pathOK: true, literal: true, globAt: -1}
			if why := e.readOnlyPath(in, rd.cwds, rd.cwdUnknown, false); why != "" {
				return "the input " + why
			}
		default:
			return "the redirect " + quoteArg(rd.Op) + " is not a plain input"
		}
	}
	for _, cmd := range an.Commands {
		if why := e.readOnlyCommand(cmd); why != "" {
			return why
		}
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
	var stmt func(s *syntax.Stmt) string
	stmt = func(s *syntax.Stmt) string {
		if s.Background || s.Coprocess || s.Disown {
			return "it runs a command in the background"
		}
		for _, r := range s.Redirs {
			switch r.Op {
			case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			case syntax.DplOut, syntax.DplIn:
				if lit := r.Word.Lit(); lit == "" || !allDigits(lit) {
					return "the redirect " + quoteArg(r.Op.String()+r.Word.Lit()) + " may write to a file"
				}
			default:
				return "the redirect " + quoteArg(r.Op.String()) + " writes"
			}
			if r.N != nil && !allDigits(r.N.Value) {
				return "it redirects a file descriptor chosen at run time"
			}
		}
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			if len(c.Assigns) > 0 || len(c.Args) == 0 {
				return "it assigns variables"
			}
			calls++
			return ""
		case *syntax.BinaryCmd:
			switch c.Op {
			case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			default:
				return "it uses the operator " + quoteArg(c.Op.String())
			}
			if why := stmt(c.X); why != "" {
				return why
			}
			return stmt(c.Y)
		}
		return "it uses shell syntax beyond simple commands, lists and pipes"
	}
	for _, s := range f.Stmts {
		if why := stmt(s); why != "" {
			return 0, why
		}
	}
	return calls, ""
}

// readOnlyCommand returns why one simple command is not in the read-only
// set with read-only options and paths, or "".
func (e *Engine) readOnlyCommand(cmd Command) string {
	if len(cmd.Via) > 0 || cmd.unknownArgs || cmd.runsCode != "" || cmd.afterLink || cmd.Dynamic || len(cmd.words) == 0 {
		return quoteArg(strings.Join(cmd.Args, " ")) + " is run by another command or with arguments rein cannot see"
	}
	for _, w := range cmd.words {
		if !w.literal || !w.pathOK || !printable(w.text) {
			return "the word " + quoteArg(w.text) + " is not plain static text"
		}
	}
	name := cmd.words[0].text
	spec, ok := readOnlySet[name]
	if !ok {
		return quoteArg(name) + " is not one of the built-in read-only commands"
	}
	if cmd.words[0].glob || cmd.words[0].braced {
		return "the command name " + quoteArg(name) + " is not plain text"
	}
	args := cmd.words[1:]
	if spec.sub != "" {
		if len(args) == 0 || args[0].text != spec.sub {
			return quoteArg(name) + " is read-only only as " + quoteArg(name+" "+spec.sub)
		}
		args = args[1:]
	}
	operands, why := spec.parseArgs(args)
	if why != "" {
		return quoteArg(name) + ": " + why
	}
	switch {
	case len(operands) < spec.minOperands:
		return quoteArg(name) + " is missing an operand"
	case spec.maxOperands >= 0 && len(operands) > spec.maxOperands:
		return quoteArg(name) + " has more operands than it takes"
	}
	switch spec.operands {
	case pathOperands, dirOperand:
		if len(operands) == 0 && spec.implicitDot {
			operands = []word{litWord(".")}
		}
		for _, w := range operands {
			if spec.operands == dirOperand && (strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "+")) {
				// cd - goes to $OLDPWD, which may come from the environment.
				return quoteArg(name+" "+w.text) + " goes to a directory from the shell's history or environment"
			}
			if why := e.readOnlyPath(w, cmd.cwds, cmd.cwdUnknown, spec.operands == dirOperand); why != "" {
				return quoteArg(name) + ": " + why
			}
		}
	}
	return ""
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

// readOnlyPath returns why a path operand may reach something other than
// a plain file or directory inside the workspace that no rule protects,
// or "".
func (e *Engine) readOnlyPath(w word, cwds []string, cwdUnknown, noGlob bool) string {
	what := quoteArg(w.text)
	switch {
	case !w.pathOK || !w.literal:
		return what + " is only known at run time"
	case w.glob && (strings.ContainsAny(w.path, "[]()") || noGlob):
		return what + " is a glob rein does not expand for read-only commands (only * and ? are)"
	case !path.IsAbs(w.path) && cwdUnknown:
		return what + " is relative to a directory rein cannot tell"
	}
	if len(cwds) == 0 {
		cwds = []string{e.opts.Workspace}
	}
	for _, dir := range cwds {
		abs := absUnder(dir, w.path)
		if why := e.readOnlyTarget(abs); why != "" {
			return what + " " + why
		}
		if !w.glob {
			continue
		}
		matches, complete := expandGlob(e.opts.Workspace, abs)
		if !complete {
			return what + " matches more than rein checks, or reaches outside the workspace"
		}
		for _, m := range matches {
			if why := e.readOnlyTarget(m); why != "" {
				return what + " matches " + quoteArg(e.relPath(m)) + ", which " + strings.TrimPrefix(why, "is ")
			}
		}
	}
	return ""
}

// readOnlyTarget checks one absolute path, as written and as resolved.
func (e *Engine) readOnlyTarget(abs string) string {
	ws := e.opts.Workspace
	written := path.Clean(abs)
	if !within(written, ws) {
		return "is outside the workspace"
	}
	resolved := resolveIn(ws, abs)
	if !within(resolved, ws) {
		return "leads outside the workspace (through " + quoteArg("..") + " or a symlink)"
	}
	for _, form := range []string{written, resolved} {
		for _, comp := range strings.Split(e.relPath(form), "/") {
			for _, pat := range secretNames {
				// Lower case: on a case-insensitive file system .ENV is .env.
				if ok, _ := path.Match(pat, strings.ToLower(comp)); ok {
					return "is named like a credential store (" + quoteArg(comp) + ")"
				}
			}
		}
	}
	if v := e.tightenAbs(abs, true, true, "", &tracer{}); v.action != Allow {
		return "matches a path rule (" + v.rule + ")"
	}
	// A missing path makes the command fail; nothing is read.
	if fi, err := os.Lstat(resolved); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
		return "is not a regular file (a device, pipe, socket or unresolved link)"
	}
	return ""
}
