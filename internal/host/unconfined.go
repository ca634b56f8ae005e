package host

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// errDynamic marks a word rein cannot resolve without running it.
var errDynamic = errors.New("is not a literal word")

// cwdRunners are programs that, given no file, run what they find in
// their working directory (a Makefile, package.json's scripts, a
// module by name): unconfined in the workspace they would run the
// repository's files.
var cwdRunners = []string{
	"make", "gmake", "just", "rake", "npm", "npx", "yarn", "pnpm", "bun", "deno",
	"cargo", "go", "gradle", "gradlew", "mvn", "ant", "tox", "nox", "pytest",
	"poetry", "pipenv", "uv", "hatch", "pdm", "bundle", "composer", "mix", "dotnet",
	"task", "invoke", "fab", "scons", "ninja", "cmake", "meson", "direnv",
}

// builtins are the shell builtins that run no file (their file
// arguments are checked like any other word).
var builtins = []string{
	"echo", "printf", "true", "false", "exit", "return", "test", "[", ":", "cd", "pwd",
	"read", "export", "set", "unset", "shift", "wait", "trap", "umask", "type", "hash",
	"kill", "times", "ulimit", "break", "continue", "local", "readonly",
}

// runners are builtins whose next word is the program they run.
var runners = []string{"exec", "command", "builtin"}

// inlineCodeFlags make an interpreter run code from its command line or
// stdin, or load a module by name: what it imports is then looked up in
// the working directory.
var inlineCodeFlags = []string{"-c", "-e", "-E", "-m", "-r", "-p", "-M", "-I", "-", "--eval", "--require", "--print", "--import", "--loader"}

// inlineCode reports an interpreter flag that runs code from the command
// line or stdin or loads a module by name, alone or in a cluster (-Sc).
func inlineCode(w string) bool {
	switch {
	case slices.Contains(inlineCodeFlags, w), strings.HasPrefix(w, "--require="), strings.HasPrefix(w, "--eval="),
		strings.HasPrefix(w, "--import="), strings.HasPrefix(w, "--loader="):
		return true
	case len(w) > 1 && w[0] == '-' && w[1] != '-':
		return strings.ContainsAny(w[1:], "cemrpEMI")
	}
	return false
}

// shellScriptFlag reports a shell option word after which the script
// comes: -c alone or in a cluster (-ec, -lc).
func shellScriptFlag(w string) bool {
	return len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.ContainsRune(w[1:], 'c')
}

// interpreter reports program names that import code by name: Python,
// Node, Ruby, Perl, PHP, Lua, R, Julia, Deno, Bun, Tcl.
func interpreter(base string) bool {
	for _, p := range []string{"python", "pypy", "node", "nodejs", "ruby", "perl", "php", "lua", "luajit", "Rscript", "julia", "deno", "bun", "tclsh", "wish", "pwsh"} {
		if base == p || strings.HasPrefix(base, p) && strings.Trim(base[len(p):], "0123456789.-") == "" {
			return true
		}
	}
	return false
}

// shells are the programs whose -c argument is a script rein parses to
// find what it runs.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"}

// CheckOutsideWorkspace says why a process that would run argv in dir
// outside the sandbox may not (nil when it may): the user's own config
// may opt an entry out of the sandbox (sandbox = false) only when
// nothing it runs lies in the workspace ws, so that no file the model
// can edit runs unconfined. The program (looked up in PATH) and every
// argument naming an existing file must resolve, symlinks followed,
// outside ws; a shell's -c script is parsed and each of its commands is
// held to the same rule; words rein cannot resolve statically
// (expansions, substitutions), python's -m and programs that run their
// working directory's files (make, npm, …) are refused.
func CheckOutsideWorkspace(ws, dir string, argv []string) error {
	if len(argv) == 0 {
		return errors.New("empty command")
	}
	home, _ := os.UserHomeDir()
	for len(argv) > 1 && slices.Contains(runners, argv[0]) {
		argv = argv[1:]
		for len(argv) > 1 && strings.HasPrefix(argv[0], "-") {
			argv = argv[1:] // exec -a NAME is not followed; a flag word is checked below
		}
	}
	// A wrapper (env, nice, timeout, xargs, …) runs the words after it:
	// an interpreter or shell anywhere on the line counts.
	interp, shell := "", false
	for i, w := range argv {
		base := filepath.Base(w)
		if interpreter(base) {
			interp = base
		}
		if slices.Contains(shells, base) {
			shell = true
		}
		if i > 0 && interp != "" && inlineCode(w) {
			return fmt.Errorf("%s %s runs code that imports from the working directory, which is the workspace", interp, ClipRunes(w, 40))
		}
		if i > 0 && shell && shellScriptFlag(argv[i-1]) {
			if err := checkScriptOutside(ws, dir, w); err != nil {
				return err
			}
			continue
		}
		if err := checkWord(ws, dir, home, w, i == 0); err != nil {
			return err
		}
	}
	return nil
}

// checkScriptOutside applies checkOutsideWorkspace to every simple
// command of a bash script run in dir.
func checkScriptOutside(ws, dir, script string) error {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return fmt.Errorf("cannot parse the command (%v)", err)
	}
	var problem error
	syntax.Walk(f, func(n syntax.Node) bool {
		if problem != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			var argv []string
			for _, w := range n.Args {
				lit, ok := literal(w)
				if !ok {
					problem = fmt.Errorf("%q %w: rein cannot tell what it runs", ClipRunes(printWord(w), 80), errDynamic)
					return false
				}
				argv = append(argv, lit)
			}
			if len(argv) > 0 {
				problem = CheckOutsideWorkspace(ws, dir, argv)
			}
		case *syntax.Redirect:
			if n.Word != nil {
				lit, ok := literal(n.Word)
				if !ok {
					problem = fmt.Errorf("%q %w: rein cannot tell what it reads", ClipRunes(printWord(n.Word), 80), errDynamic)
					return false
				}
				// bash < script runs it: a redirection is a file it uses.
				problem = checkPath(ws, dir, lit, lit, false)
			}
		case *syntax.FuncDecl, *syntax.ArithmCmd, *syntax.CoprocClause, *syntax.DeclClause, *syntax.LetClause, *syntax.TestClause:
			problem = fmt.Errorf("the command uses shell constructs rein cannot follow (%T)", n)
		}
		return true
	})
	return problem
}

// checkWord checks one word of a command line: the program when first.
func checkWord(ws, dir, home, w string, program bool) error {
	if strings.ContainsAny(w, "$`") && !program {
		// Not a shell script here, so not expanded — but a program
		// that evaluates it may be; refuse rather than guess.
		return fmt.Errorf("%q %w: rein cannot tell what it runs", ClipRunes(w, 80), errDynamic)
	}
	if w == "-m" {
		return errors.New("python's -m imports the module from the working directory, which is the workspace")
	}
	if base := filepath.Base(w); slices.Contains(cwdRunners, base) {
		return fmt.Errorf("%s runs files it finds in its working directory, which is the workspace", base)
	}
	if program {
		if w == "eval" || w == "source" || w == "." {
			return fmt.Errorf("%s runs code rein cannot follow", w)
		}
		if slices.Contains(builtins, w) {
			return nil
		}
		path := expandHome(w, home)
		if !strings.Contains(path, "/") {
			p, err := exec.LookPath(path)
			if err != nil {
				return fmt.Errorf("program %q was not found in PATH", ClipRunes(w, 80))
			}
			path = p
		}
		return checkPath(ws, dir, w, path, true)
	}
	cands := []string{w}
	if _, v, ok := strings.Cut(w, "="); ok {
		cands = append(cands, v) // --config=path
	}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if err := checkPath(ws, dir, w, expandHome(c, home), false); err != nil {
			return err
		}
	}
	return nil
}

// checkPath refuses p (relative to dir) when it exists and resolves into
// ws; a missing program is an error, a missing argument names no file.
func checkPath(ws, dir, word, p string, program bool) error {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if program {
			return fmt.Errorf("program %q cannot be resolved (%v)", ClipRunes(word, 80), err)
		}
		return nil
	}
	if InDir(real, ws) {
		what := "argument"
		if program {
			what = "program"
		}
		return fmt.Errorf("%s %q is in the workspace (%s), where the model can change it", what, ClipRunes(word, 80), real)
	}
	return nil
}

// InDir reports whether p is dir or lies under it.
func InDir(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func expandHome(w, home string) string {
	if home != "" && (w == "~" || strings.HasPrefix(w, "~/")) {
		return home + w[1:]
	}
	return w
}

// literal returns w after quote removal when it has no expansion.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[{\\") {
				// A glob, a brace or an escape: files rein would have
				// to guess.
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func printWord(w *syntax.Word) string {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, w)
	return b.String()
}
