package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// pipeline walks the stages of a pipeline; a stage's stdin is tainted
// when an earlier stage runs a downloader.
func (a *analyzer) pipeline(c *syntax.BinaryCmd, fr frame) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) &&
			len(s.Redirs) == 0 && !s.Negated && len(stages) < maxBudget {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(c.X)
	flatten(c.Y)
	downloaded := false
	for i, s := range stages {
		sf := fr
		sf.inPipe = true
		if i > 0 {
			sf.pipeIn, sf.taint, sf.stdinCode, sf.stdinFile = true, downloaded, nil, false
		}
		before := a.downloads
		a.stmt(s, sf)
		downloaded = downloaded || a.downloads > before
	}
}

func (a *analyzer) funcDecl(c *syntax.FuncDecl, fr frame) {
	names := c.Names
	if c.Name != nil {
		names = append([]*syntax.Lit{c.Name}, names...)
	}
	start := len(a.funcs)
	for _, n := range names {
		a.funcs = append(a.funcs, &funcFrame{name: unescapeUnquoted(n.Value)})
	}
	// The body runs when the function is called, not where it is
	// declared: it is not part of a pipeline or background job here.
	body := fr
	body.inPipe, body.bg = false, false
	a.stmt(c.Body, body)
	for _, f := range a.funcs[start:] {
		if len(a.funcBody) < 256 {
			a.funcBody[f.name] = c.Body
		}
		if f.risky || f.calls >= 2 || a.recursesRisky(f.name) {
			a.hard("fork-bomb", "a function that calls itself in a pipeline or in the background is a fork bomb")
		}
		if f.evalsArgs {
			a.evalFuncs[f.name] = true
		}
		if f.execsArgs {
			a.execFuncs[f.name] = true
		}
	}
	a.funcs = a.funcs[:start]
}

func (a *analyzer) declClause(c *syntax.DeclClause, fr frame) {
	argv := []word{litWord(c.Variant.Value)}
	for _, as := range c.Args {
		w := a.assign(as, fr)
		if as.Name != nil && !as.Naked {
			argv = append(argv, litWord(as.Name.Value+"=").concat(w))
		} else if as.Naked && as.Name != nil {
			argv = append(argv, litWord(as.Name.Value))
		} else if as.Value != nil {
			argv = append(argv, w)
		}
	}
	a.exec(argv, fr, fr.via)
}

// assign analyzes a variable assignment: substitutions in its value run,
// literal values are remembered, and variables that change how commands
// are found or loaded are a concern.
func (a *analyzer) assign(as *syntax.Assign, fr frame) word {
	var w word
	if as.Value != nil {
		w = a.singleWord(as.Value, fr)
	}
	if as.Array != nil {
		a.dynamic("an array assignment takes subscripts bash evaluates as arithmetic; assign plain values")
		a.scanNested(as.Array, fr)
	}
	if as.Index != nil {
		a.dynamic("the subscript of " + wspath.Quote(fr.slice(as)) + " is evaluated as arithmetic, which can run code")
	}
	a.scanNested(as.Index, fr)
	if as.Name == nil || as.Naked {
		return w
	}
	a.setVar(as.Name.Value, w)
	return w
}

func (a *analyzer) setVar(name string, w word) {
	if len(a.assigned) < 256 {
		a.assigned[name] = true
	}
	if w.download {
		a.dlVars[name] = true
	}
	if a.guessing > 0 {
		return
	}
	if w.literal && len(a.vars) < 256 {
		a.vars[name] = w.text
	} else {
		a.vars[name] = w.alt
	}
	if sensitiveEnv[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") {
		a.concern("environment", "the command sets "+name+", which changes how programs are found or loaded")
	}
}

// sensitiveEnv are variables that change which program runs or what a
// shell executes on start.
var sensitiveEnv = map[string]bool{
	"PATH": true, "BASH_ENV": true, "ENV": true, "IFS": true, "PROMPT_COMMAND": true,
	"SHELLOPTS": true, "BASHOPTS": true, "PS4": true, "CDPATH": true, "GIT_SSH": true, "GIT_SSH_COMMAND": true,
	"GIT_EXEC_PATH": true, "GIT_ASKPASS": true, "GIT_EDITOR": true, "GIT_PAGER": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true,
	"GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true, "PAGER": true, "EDITOR": true,
	"VISUAL": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true, "PYTHONSTARTUP": true,
	"PERL5OPT": true, "RUBYOPT": true, "NODE_OPTIONS": true,
}

func (a *analyzer) call(c *syntax.CallExpr, fr frame) {
	for _, as := range c.Assigns {
		a.assign(as, fr)
	}
	var ws []word
	for _, w := range c.Args {
		ws = append(ws, a.expandWord(w, fr)...)
	}
	a.exec(ws, fr, fr.via)
}
