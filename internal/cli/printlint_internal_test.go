package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// safePrinters are the functions whose result may be printed raw: the
// escapers, and helpers that build text from rein's own words and
// numbers only.
var safePrinters = []string{
	"termsafe.Line", "termsafe.Escape", "termsafe.Text", "termsafe.JSON", "termText",
	"plural", "versionString", "strconv.Itoa", "strconv.Quote", "len",
	"sandbox.FormatSize", // a byte count
}

// reviewedRaw are arguments printed raw on stdout that were checked by
// hand: file, then the expression, with why it is safe. Keep it short; a
// new entry needs a reason a reviewer accepts.
var reviewedRaw = map[string]string{
	"hookscmd.go g.Event":      "a hook event name, one of rein's fixed list",
	"hookscmd.go p.SHA256[:]":  "a hex digest rein computed",
	"version.go versionString": "rein's own build information",
	"diffcmd.go d":             "redacted and escaped whole by termsafe.Text before colorDiff, which adds only SGR codes",
}

// stdoutTakers may be handed a raw Stdout: they escape what is written
// through them, or are the protocol and stream writers whose output is
// escaped where it is made (stream-json through termsafe.JSON, the chat
// UI's frames, mcp serve's JSON-RPC).
var stdoutTakers = []string{
	"termsafe.NewWriter", "termsafe.NewJSONWriter",
	"isTerminal",              // asks, writes nothing
	"root.SetOut",             // cobra's help and usage: rein's own words
	"tui.NewProgram",          // the chat UI escapes what it draws (internal/tui)
	"tui.Pick",                // the session picker escapes its items (TestPickViewEscapes)
	"newRenderer",             // text mode escapes (render.go), JSON modes use termsafe.JSON
	"newClaudeStreamRenderer", // Claude-shaped stream-json, through writeJSONLine (termsafe.JSON)
	"printIcons",              // inline-image sequences of rein's own making around base64 PNG data (fully decoded first, mcp/icons.go); the names through termsafe.Line
	"newProgressReporter",     // stream-json progress, through termsafe.JSON
	"srv.ServeStdio",          // mcp serve: JSON-RPC, not a terminal
}

// TestPrintersEscapeUntrustedText is a lint over internal/cli, the front
// ends below it and internal/host (frontEndFiles): every
// fmt.Fprint, Fprintf (%s and %v verbs) and Fprintln straight to an
// App's Stdout (or a variable holding it) must print literals, escaped
// text (termsafe, termText) or rein's own words — not a string that may
// hold a model's, server's or repository's text. Stderr is escaped as a
// whole (App.defaults), and a command that writes through
// termsafe.NewWriter is not a raw write. It cannot see through helper
// functions: it is a tripwire for the common mistake, not a proof.
func TestPrintersEscapeUntrustedText(t *testing.T) {
	files, err := frontEndFiles()
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range f.Decls {
			if fd, ok := fn.(*ast.FuncDecl); ok && fd.Body != nil {
				problems = append(problems, rawPrints(fset, name, fd.Body)...)
			}
		}
	}
	if len(problems) > 0 {
		t.Errorf("stdout printers that may print untrusted text raw (escape with termsafe.Line/Escape, or write through termsafe.NewWriter):\n%s", strings.Join(problems, "\n"))
	}
}

// frontEndFiles are the Go files the print lint reads: internal/cli's,
// its front ends' packages below it, and the composition root
// (internal/host), which front ends call and which must not print
// untrusted text raw either. Names in "." stay bare, the others are
// relative paths ("acpcmd/acp.go"), as reviewedRaw spells them.
func frontEndFiles() ([]string, error) {
	var files []string
	for _, pattern := range []string{"*.go", "*/*.go", "../host/*.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	return files, nil
}

// rawPrints reports the unescaped arguments of prints to stdout in body.
func rawPrints(fset *token.FileSet, file string, body *ast.BlockStmt) []string {
	raw := map[string]bool{} // variables holding X.Stdout
	var out []string
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, rhs := range n.Rhs {
				if isStdout(rhs) && i < len(n.Lhs) {
					if id, ok := n.Lhs[i].(*ast.Ident); ok {
						raw[id.Name] = true
					}
				}
			}
		case *ast.CallExpr:
			fun := exprString(n.Fun)
			if !slices.Contains([]string{"fmt.Fprint", "fmt.Fprintf", "fmt.Fprintln", "io.WriteString"}, fun) || len(n.Args) == 0 {
				for _, a := range n.Args {
					id, ok := a.(*ast.Ident)
					if (isStdout(a) || ok && raw[id.Name]) && !slices.Contains(stdoutTakers, fun) && reviewedRaw[file+" "+fun+"(Stdout)"] == "" {
						out = append(out, fmt.Sprintf("  %s: %s gets the raw Stdout", fset.Position(a.Pos()), fun))
					}
				}
				return true
			}
			w := n.Args[0]
			if id, ok := w.(*ast.Ident); !isStdout(w) && !(ok && raw[id.Name]) {
				return true
			}
			for _, a := range printedArgs(fun, n.Args[1:]) {
				if e := exprString(a); !safeArg(a) && reviewedRaw[file+" "+e] == "" {
					out = append(out, fmt.Sprintf("  %s: %s", fset.Position(a.Pos()), e))
				}
			}
		}
		return true
	})
	return out
}

// isStdout reports an expression X.Stdout.
func isStdout(e ast.Expr) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "Stdout"
}

// printedArgs are the arguments printed as text: for Fprintf those of
// %s and %v verbs (others print numbers, or quote as %q does).
func printedArgs(fun string, args []ast.Expr) []ast.Expr {
	if fun != "fmt.Fprintf" {
		return args
	}
	lit, ok := args[0].(*ast.BasicLit)
	if !ok {
		return args // a dynamic format: everything counts
	}
	var out []ast.Expr
	verbs := formatVerbs(lit.Value)
	for i, a := range args[1:] {
		if i >= len(verbs) || verbs[i] == 's' || verbs[i] == 'v' {
			out = append(out, a)
		}
	}
	return out
}

// formatVerbs lists the verbs of a format string literal, in order.
func formatVerbs(format string) []byte {
	var verbs []byte
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[i]) >= 0 {
			i++
		}
		if i < len(format) && format[i] != '%' {
			verbs = append(verbs, format[i])
		}
	}
	return verbs
}

// safeArg reports literals and calls to safePrinters.
func safeArg(a ast.Expr) bool {
	switch a := a.(type) {
	case *ast.BasicLit:
		return true
	case *ast.CallExpr:
		name := exprString(a.Fun)
		if sel, ok := a.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Format" {
			return true // a time's Format: rein's layout, digits
		}
		return slices.Contains(safePrinters, name)
	}
	return false
}

// exprString prints an expression compactly.
func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.CallExpr:
		return exprString(e.Fun) + "(…)"
	case *ast.IndexExpr:
		return exprString(e.X) + "[…]"
	case *ast.SliceExpr:
		return exprString(e.X) + "[:]"
	case *ast.BasicLit:
		return e.Value
	}
	return fmt.Sprintf("%T", e)
}
