package shell

import (
	"strings"
	"sync"

	"github.com/reinharness/rein/policy/internal/wspath"
	"mvdan.cc/sh/v3/syntax"
)

// Limits on what Analyze looks at. Anything beyond them is reported as a
// concern (Ask), never silently skipped.
const (
	// MaxCommandBytes is the longest command string analyzed.
	MaxCommandBytes = 64 << 10
	// maxCodeDepth bounds nested code strings: bash -c 'bash -c "…"', eval.
	maxCodeDepth = 8
	// maxNesting bounds syntax nesting: subshells, substitutions, blocks.
	maxNesting = 64
	// maxUnwrap bounds how many wrappers one command may stack.
	maxUnwrap = 16
	// maxBudget bounds the statements and commands visited in total.
	maxBudget = 4096
)

// Analysis is what Analyze found in a shell command.
type Analysis struct {
	// Commands are the simple commands that run, after unwrapping
	// wrappers (env, timeout, xargs, bash -c, …), in source order.
	Commands []Command
	// Invocations are the argv of every level, wrappers included
	// (`env X=1 go test` gives both `env X=1 go test` and `go test`).
	Invocations [][]string
	// Redirects are every redirection, in source order.
	Redirects []Redirect
	// Findings are hard denials and concerns (reasons to ask).
	Findings []Finding
}

// Command is one simple command.
type Command struct {
	// Args is the argv: quotes removed, escapes processed, braces
	// expanded; run-time expansions ($x, $(cmd)) are kept as written.
	Args []string
	// Dynamic says the command name is not known statically.
	Dynamic bool
	// Via lists the wrappers that were unwrapped to reach the command,
	// outermost first ("env", "timeout", "bash -c").
	Via []string

	// Norm is the argv rules match on: an absolute command path reduced
	// to its base name, git's global options removed.
	Norm []string
	// Words are the arguments as paths are checked, Args[0] included.
	Words []Arg
	// UnknownArgs says more arguments are appended at run time (xargs).
	UnknownArgs bool
	// RunsCode says why the command runs code rein cannot see (a script,
	// a Makefile, package scripts); only an explicit allow rule lifts it.
	RunsCode string
	// Cwds are the directories the command may run in; CwdUnknown says a
	// dynamic cd made it unknowable.
	Cwds       []string
	CwdUnknown bool
	// words are Words as the analyzer saw them, for the read-only check.
	words []word
	// AfterLink names an earlier command of the same command line that
	// may create links or files (ln, tar -x, git checkout, …): the paths
	// of this one cannot be resolved at decision time. "" when none did.
	AfterLink string
}

// Redirect is one redirection of a statement.
type Redirect struct {
	// Op is the operator as written: ">", ">>", "<", "<<", "&>", ….
	Op string
	// Target is the file (or here-document delimiter) as resolved.
	Target string
	// Write says the redirect writes to Target.
	Write bool
	// Dynamic says Target is only known at run time.
	Dynamic bool

	// Path is Target as a path (~ and $HOME expanded); PathOK says it
	// is known statically, Glob that it holds an unquoted glob.
	Path   string
	PathOK bool
	Glob   bool
	// Cwds, CwdUnknown and AfterLink are as in Command.
	Cwds       []string
	CwdUnknown bool
	AfterLink  string
}

// Finding is a hard denial or a concern found by the analysis.
type Finding struct {
	// Hard marks a hard denial; otherwise the finding is a concern that
	// makes the call Ask.
	Hard bool
	// ID names the check: "privilege", "rm-root", "raw-device", "mkfs",
	// "fork-bomb", "download-exec", "force-push" (hard); "unparsable",
	// "dynamic-command", "dynamic-code", "too-complex", … (concerns).
	ID string
	// Reason is one line the model and the user see.
	Reason string
}

// Hard returns the hard denials.
func (an *Analysis) Hard() []Finding { return an.filter(true) }

// Concerns returns the findings that make the call Ask.
func (an *Analysis) Concerns() []Finding { return an.filter(false) }

func (an *Analysis) filter(hard bool) []Finding {
	var out []Finding
	for _, f := range an.Findings {
		if f.Hard == hard {
			out = append(out, f)
		}
	}
	return out
}

// Options are the facts a command's meaning depends on.
type Options struct {
	// Workspace is the absolute directory the command runs in.
	Workspace string
	// Home is the user's home directory, for ~ and $HOME.
	Home string
	// Dir is the directory the command starts in (absolute; default
	// Workspace).
	Dir string
}

// Analyze parses a shell command (bash syntax) and extracts every simple
// command that would run: in pipelines, lists, subshells, groups, control
// structures, function bodies, command and process substitutions, and in
// what wrappers (env, xargs, find -exec, bash -c, eval, …) run. It never
// panics and its work is bounded by the limits above. It is safe for
// concurrent use.
func Analyze(cmd string, opts Options) *Analysis {
	a := &analyzer{
		res:       &Analysis{},
		home:      wspath.CleanOr(opts.Home, wspath.UnknownHome),
		ws:        wspath.CleanOr(opts.Workspace, wspath.UnknownWorkspace),
		vars:      map[string]string{},
		seen:      map[Finding]bool{},
		execFuncs: map[string]bool{},
		evalFuncs: map[string]bool{},
		aliases:   map[string]word{},
		assigned:  map[string]bool{},
		funcBody:  map[string]*syntax.Stmt{},
		dlVars:    map[string]bool{},
		walking:   map[string]bool{},
		resolved:  map[string]string{},
		calls:     map[string]map[string]bool{},
	}
	a.cwds = []string{wspath.CleanOr(opts.Dir, a.ws)}
	a.code(cmd, frame{})
	if len(a.dlFiles) > 0 || len(a.dlVars) > 0 || a.dlUnknown || a.netFD {
		// What a download writes may run before it in source order
		// (sh x.sh & curl -o x.sh …, a FIFO, a loop): the command is
		// walked again, for hard denials only, knowing every download.
		a.guessing++
		a.guessBudget = 0
		a.code(cmd, frame{})
		a.guessing--
	}
	return a.res
}

// analyzer holds the state of one Analyze call.
type analyzer struct {
	res  *Analysis
	home string
	ws   string
	// vars are variables assigned a literal value so far (last wins), for
	// guessing what `$x` runs.
	vars map[string]string
	// cwds are the directories commands may run in, after the literal cd
	// commands seen so far; cwdUnknown is set by a dynamic cd.
	cwds       []string
	cwdUnknown bool
	// funcs are the functions whose bodies are being walked; execFuncs
	// are functions that run their arguments as a command (f() { "$@"; }),
	// and aliases the aliases defined so far.
	funcs     []*funcFrame
	execFuncs map[string]bool
	evalFuncs map[string]bool
	aliases   map[string]word
	// downloads counts commands seen whose output may come from the
	// network (downloaders, programs rein cannot see, names only known
	// at run time), so a pipeline can tell whether an earlier stage may
	// download; fetched counts those that certainly do (a fetcher, a
	// word or file holding a download): only after one does a program
	// rein cannot see count as running what was downloaded.
	downloads int
	fetched   int
	// guessing is set while checking a guessed argv for hard denials;
	// nothing but findings is recorded then.
	guessing int
	budget   int
	// guessBudget is the budget of guesses.
	guessBudget int
	// runsCode is the reason the command being unwrapped runs code rein
	// cannot see, handed to the command that is finally recorded.
	runsCode string
	// dlFiles are files a downloader of this command writes (curl -o,
	// wget -O, a redirect of its output): running one is download-exec.
	dlFiles map[string]bool
	// linkedBy names the first command seen that may create links or
	// files whose paths later commands use (see Command.AfterLink).
	linkedBy string
	seen     map[Finding]bool
	// assigned are the names any part of the command may assign (an
	// assignment, env NAME=, for NAME in, read NAME): git's configuration
	// depends on some of them (gitpin.go).
	assigned map[string]bool
	// funcBody are the bodies of the functions defined so far, walked
	// again where a call is fed a download; calls are the function call
	// graph (caller -> callee -> called in a pipeline or the background),
	// for fork bombs through several functions.
	funcBody map[string]*syntax.Stmt
	calls    map[string]map[string]bool
	// dlVars are variables assigned from a download ($(curl …), read in
	// a stage fed by one).
	dlVars map[string]bool
	// dlUnknown says the command extracted or unpacked a download: files
	// rein cannot name came from the network.
	dlUnknown bool
	// levelRuns is why the level being checked runs code rein cannot
	// see (set while guessing too, unlike runsCode); walking are the
	// functions whose bodies are being walked again.
	levelRuns string
	walking   map[string]bool
	// resolved caches resolve.
	resolved map[string]string
	// netFD says a redirect opened bash's /dev/tcp or /dev/udp: input
	// duplicated from another descriptor may be the network.
	netFD bool
}

type funcFrame struct {
	name  string
	calls int
	risky bool
	// execsArgs says the body runs its positional parameters as a
	// command.
	execsArgs bool
	// evalsArgs says the body runs its positional parameters as shell
	// code (f() { eval "$1"; }, f() { bash -c "$*"; }).
	evalsArgs bool
}

// frame is the context a piece of syntax is analyzed in.
type frame struct {
	src   string
	depth int
	nest  int
	// taint says stdin may carry downloaded data; pipeIn says stdin comes
	// from another command of a pipeline.
	taint  bool
	pipeIn bool
	// stdinCode is a literal here-document or here-string on stdin;
	// stdinFile says stdin is redirected from a file.
	stdinCode *word
	stdinFile bool
	inPipe    bool
	bg        bool
	// via are the wrappers around the code being walked (bash -c, eval).
	via []string
}

func (fr frame) nested() frame {
	fr.nest++
	return fr
}

// slice returns the source text of a node, or "" when its positions do
// not fit the source (defensive: recovered nodes have no position).
func (fr frame) slice(n syntax.Node) string {
	start, end := n.Pos().Offset(), n.End().Offset()
	if !n.Pos().IsValid() || !n.End().IsValid() || start > end || end > uint(len(fr.src)) {
		return ""
	}
	return fr.src[start:end]
}

func (a *analyzer) finding(hard bool, id, reason string) {
	f := Finding{Hard: hard, ID: id, Reason: reason}
	if a.seen[f] {
		return
	}
	a.seen[f] = true
	a.res.Findings = append(a.res.Findings, f)
}

func (a *analyzer) hard(id, reason string) { a.finding(true, id, reason) }

func (a *analyzer) concern(id, reason string) {
	if a.guessing > 0 {
		return
	}
	a.finding(false, id, reason)
}

// spend takes one unit of the work budget; it reports false when the
// budget is exhausted.
//
// What the analysis does not reach may be any hard denial, so running
// out of the main budget (or any other limit on what is walked) is a hard
// denial itself; guesses (guess, hidden code) spend a budget of their
// own, whose end only stops guessing.
func (a *analyzer) spend() bool {
	if a.guessing > 0 {
		a.guessBudget++
		return a.guessBudget <= maxBudget
	}
	a.budget++
	if a.budget > maxBudget {
		a.tooComplex("the command is too complex for rein to analyze")
		return false
	}
	return true
}

// tooComplex records that part of the command is beyond rein's limits:
// a hard denial, since an approval would cover whatever hides there.
func (a *analyzer) tooComplex(reason string) {
	a.hard("too-complex", reason+", so it may hide a hard denial; it is never allowed — split it into simpler commands")
}

// code parses and walks a piece of shell code: the whole command, or a
// string run by bash -c, eval, a here-document fed to a shell.
func (a *analyzer) code(src string, fr frame) {
	if len(src) > MaxCommandBytes {
		a.tooComplex("the command is longer than rein analyzes")
		a.scanText(src)
		return
	}
	if fr.depth > maxCodeDepth {
		a.tooComplex("the command nests shell code deeper than rein analyzes")
		a.scanText(src)
		return
	}
	fr.src = src
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	// Statements are walked as they parse: bash also runs a -c string
	// statement by statement, so whatever precedes a syntax error runs.
	// The sequence is always drained: mvdan/sh v3.14.1 yields its final
	// error even after the loop body stopped, which panics.
	var err error
	for s, serr := range p.StmtsSeq(strings.NewReader(src)) {
		if serr != nil && err == nil {
			err = serr
		}
		if s != nil && a.budget <= maxBudget && a.guessBudget <= maxBudget {
			a.stmt(s, fr)
		}
	}
	if err != nil {
		a.concern("unparsable", "rein cannot parse the command ("+firstLine(err.Error())+")")
		a.scanText(src)
	}
}

// parsers reuses parsers across calls: a parser carries buffers worth
// keeping, and code() nests (bash -c inside a statement being walked), so
// each level takes its own.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// stmtList walks statements and reports whether a downloader ran in them.
func (a *analyzer) stmtList(stmts []*syntax.Stmt, fr frame) bool {
	before := a.downloads
	for _, s := range stmts {
		a.stmt(s, fr)
	}
	return a.downloads > before
}

// scanNested walks the command and process substitutions inside a node
// that is not itself a command (a parameter expansion, arithmetic, a
// test expression) and reports whether a downloader ran in them.
func (a *analyzer) scanNested(n syntax.Node, fr frame) bool {
	if n == nil {
		return false
	}
	dl := false
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			dl = a.stmtList(n.Stmts, fr.nested()) || dl
			return false
		case *syntax.ProcSubst:
			dl = a.stmtList(n.Stmts, fr.nested()) || dl
			return false
		}
		return true
	})
	return dl
}

func (a *analyzer) stmt(s *syntax.Stmt, fr frame) {
	if s == nil || !a.spend() {
		return
	}
	if fr.nest > maxNesting {
		a.tooComplex("the command nests deeper than rein analyzes")
		return
	}
	fr.nest++
	fr.bg = fr.bg || s.Background || s.Coprocess || s.Disown
	fr = a.redirects(s.Redirs, fr)
	before := a.downloads
	a.command(s.Cmd, fr)
	if a.downloads > before || fr.taint {
		for _, r := range s.Redirs {
			switch r.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
				w := a.singleWord(r.Word, fr)
				if w.pathOK {
					a.markDownloaded(w.path)
				}
			}
		}
	}
}

func (a *analyzer) command(cmd syntax.Command, fr frame) {
	switch c := cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		a.call(c, fr)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			a.pipeline(c, fr)
			return
		}
		a.stmt(c.X, fr)
		a.stmt(c.Y, fr)
	case *syntax.Block:
		a.stmtList(c.Stmts, fr)
	case *syntax.Subshell:
		a.stmtList(c.Stmts, fr)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			a.stmtList(c.Cond, fr)
			a.stmtList(c.Then, fr)
		}
	case *syntax.WhileClause:
		a.whileClause(c, fr)
	case *syntax.ForClause:
		a.forClause(c, fr)
	case *syntax.CaseClause:
		a.caseClause(c, fr)
	case *syntax.FuncDecl:
		a.dynamic("defining a function makes what later commands run unknowable to rein; run the commands directly")
		a.funcDecl(c, fr)
	case *syntax.ArithmCmd:
		a.dynamic("arithmetic `((…))` is evaluated at run time and runs code through array subscripts; compute the value yourself")
		a.scanNested(c.X, fr)
	case *syntax.TestClause:
		a.testClause(c, fr)
	case *syntax.DeclClause:
		a.declClause(c, fr)
	case *syntax.LetClause:
		a.dynamic("`let` evaluates arithmetic at run time and runs code through array subscripts; compute the value yourself")
		for _, x := range c.Exprs {
			a.scanNested(x, fr)
		}
	case *syntax.TimeClause:
		a.stmt(c.Stmt, fr)
	case *syntax.CoprocClause:
		// A coprocess reads what later commands write to it, which may
		// be a download (coproc sh; curl … >&"${COPROC[1]}").
		cf := fr
		cf.taint, cf.pipeIn, cf.stdinCode, cf.stdinFile = true, true, nil, false
		a.stmt(c.Stmt, cf)
	case *syntax.TestDecl:
		a.stmt(c.Body, fr)
	default:
		a.concern("unparsable", "the command uses shell syntax rein does not analyze")
	}
}

func (a *analyzer) whileClause(c *syntax.WhileClause, fr frame) {
	if endless(c) && spawnsInBackground(c.Do) {
		a.hard("fork-bomb", "an endless loop that starts background jobs exhausts the process table; it is never allowed")
	}
	a.stmtList(c.Cond, fr)
	a.stmtList(c.Do, fr)
}

func (a *analyzer) forClause(c *syntax.ForClause, fr frame) {
	if cl, ok := c.Loop.(*syntax.CStyleLoop); ok {
		a.dynamic("a C-style for loop evaluates arithmetic at run time; write the iterations out")
		if cl.Cond == nil && spawnsInBackground(c.Do) {
			a.hard("fork-bomb", "an endless loop that starts background jobs exhausts the process table; it is never allowed")
		}
	}
	if wi, ok := c.Loop.(*syntax.WordIter); ok && wi.Name != nil {
		a.setVar(wi.Name.Value, word{})
	}
	a.scanNested(c.Loop, fr)
	a.stmtList(c.Do, fr)
}

func (a *analyzer) caseClause(c *syntax.CaseClause, fr frame) {
	a.scanNested(c.Word, fr)
	for _, it := range c.Items {
		for _, p := range it.Patterns {
			a.scanNested(p, fr)
		}
		a.stmtList(it.Stmts, fr)
	}
}
