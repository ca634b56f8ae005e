// Package lsp provides the code intelligence tools backed by language
// servers (package github.com/reinharness/rein/lsp): diagnostics,
// definition, references, symbols and hover. They only read: the servers
// see the workspace's files as they are on disk, and edits servers
// propose are refused.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	langserver "github.com/reinharness/rein/lsp"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// Defaults for Options fields left zero.
const (
	DefaultSettle     = 400 * time.Millisecond
	DefaultMaxResults = 100
)

// Options tunes the tools.
type Options struct {
	// Settle is how long diagnostics must stay unchanged before they are
	// reported (DefaultSettle).
	Settle time.Duration
	// MaxResults caps the lines of one answer (DefaultMaxResults).
	MaxResults int
}

func (o Options) withDefaults() Options {
	if o.Settle <= 0 {
		o.Settle = DefaultSettle
	}
	if o.MaxResults <= 0 {
		o.MaxResults = DefaultMaxResults
	}
	return o
}

// Tools returns the five tools over m, for files of ws.
func Tools(ws *workspace.Workspace, m *langserver.Manager, opts Options) []tool.Tool {
	t := tools{ws: ws, m: m, opts: opts.withDefaults()}
	return []tool.Tool{t.diagnostics(), t.definition(), t.references(), t.symbols(), t.hover()}
}

type tools struct {
	ws   *workspace.Workspace
	m    *langserver.Manager
	opts Options
}

func readOnly(title string) tool.Annotations {
	yes, no := true, false
	return tool.Annotations{Title: title, ReadOnlyHint: &yes, DestructiveHint: &no, IdempotentHint: &yes, OpenWorldHint: &no}
}

func effects() tool.Effects { return tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}} }

// DiagnosticsArgs are diagnostics' arguments.
type DiagnosticsArgs struct {
	Path string `json:"path,omitempty" jsonschema:"file to check (workspace-relative); omit for every file the language servers reported on"`
}

func (t tools) diagnostics() tool.Tool {
	return tool.Func("diagnostics", "Show compiler and linter errors and warnings from the language servers "+
		"(gopls, typescript-language-server, pyright, rust-analyzer, as configured), one per line as path:line:column: severity: message. Read-only.",
		func(ctx context.Context, in DiagnosticsArgs) (string, error) {
			var files []langserver.FileDiagnostics
			if in.Path != "" {
				rel, srv, err := t.server(ctx, in.Path)
				if err != nil {
					return "", err
				}
				if files, err = srv.Diagnostics(ctx, []string{rel}, t.opts.Settle); err != nil {
					return "", err
				}
			} else {
				running := t.m.Running()
				if len(running) == 0 {
					return "", errors.New("no language server has started yet: pass the path of a source file")
				}
				for _, srv := range running {
					fs, err := srv.Diagnostics(ctx, nil, t.opts.Settle)
					if err != nil {
						return "", err
					}
					files = append(files, fs...)
				}
			}
			out := langserver.Format(files, false, t.opts.MaxResults)
			if out == "" {
				return "no problems reported\n", nil
			}
			return out, nil
		}, tool.WithAnnotations(readOnly("Diagnostics")), tool.WithEffects(effects()))
}

// PositionArgs name a place in a file.
type PositionArgs struct {
	Path   string `json:"path" jsonschema:"file (workspace-relative)"`
	Line   int    `json:"line" jsonschema:"1-based line"`
	Column int    `json:"column" jsonschema:"1-based column (characters) on the identifier"`
}

// DefinitionArgs name a place in a file, or a symbol.
type DefinitionArgs struct {
	Path   string `json:"path,omitempty" jsonschema:"file (workspace-relative)"`
	Line   int    `json:"line,omitempty" jsonschema:"1-based line"`
	Column int    `json:"column,omitempty" jsonschema:"1-based column (characters) on the identifier"`
	Symbol string `json:"symbol,omitempty" jsonschema:"instead of path/line/column: the name of a symbol to look up in the workspace"`
}

func (t tools) definition() tool.Tool {
	return tool.Func("definition", "Find where the identifier at path:line:column, or the named symbol, is defined. Read-only.",
		func(ctx context.Context, in DefinitionArgs) (string, error) {
			if in.Path == "" {
				return t.symbolSearch(ctx, in.Symbol, true)
			}
			rel, srv, err := t.position(ctx, PositionArgs{Path: in.Path, Line: in.Line, Column: in.Column})
			if err != nil {
				return "", err
			}
			locs, err := srv.Definition(ctx, rel, in.Line, in.Column)
			if err != nil {
				return "", err
			}
			return t.locations(srv, locs, "no definition found"), nil
		}, tool.WithAnnotations(readOnly("Definition")), tool.WithEffects(effects()))
}

func (t tools) references() tool.Tool {
	return tool.Func("references", "List every reference to the identifier at path:line:column (declaration included), as path:line:column. Read-only.",
		func(ctx context.Context, in PositionArgs) (string, error) {
			rel, srv, err := t.position(ctx, in)
			if err != nil {
				return "", err
			}
			locs, err := srv.References(ctx, rel, in.Line, in.Column)
			if err != nil {
				return "", err
			}
			return t.locations(srv, locs, "no references found"), nil
		}, tool.WithAnnotations(readOnly("References")), tool.WithEffects(effects()))
}

func (t tools) hover() tool.Tool {
	return tool.Func("hover", "Show the type, signature and documentation of the identifier at path:line:column. Read-only.",
		func(ctx context.Context, in PositionArgs) (string, error) {
			rel, srv, err := t.position(ctx, in)
			if err != nil {
				return "", err
			}
			text, err := srv.Hover(ctx, rel, in.Line, in.Column)
			if err != nil {
				return "", err
			}
			if strings.TrimSpace(text) == "" {
				return "nothing known about this position\n", nil
			}
			return clipLines(text, t.opts.MaxResults*2), nil
		}, tool.WithAnnotations(readOnly("Hover")), tool.WithEffects(effects()))
}

// SymbolsArgs are symbols' arguments.
type SymbolsArgs struct {
	Query string `json:"query,omitempty" jsonschema:"search the workspace for symbols whose name matches"`
	Path  string `json:"path,omitempty" jsonschema:"instead: list the symbols of this file"`
}

func (t tools) symbols() tool.Tool {
	return tool.Func("symbols", "List the symbols (functions, types, …) of a file, or search the workspace's symbols by name. Read-only.",
		func(ctx context.Context, in SymbolsArgs) (string, error) {
			if in.Path == "" {
				return t.symbolSearch(ctx, in.Query, false)
			}
			rel, srv, err := t.server(ctx, in.Path)
			if err != nil {
				return "", err
			}
			syms, err := srv.DocumentSymbols(ctx, rel)
			if err != nil {
				return "", err
			}
			return t.symbolLines(srv, syms), nil
		}, tool.WithAnnotations(readOnly("Symbols")), tool.WithEffects(effects()))
}

// symbolSearch asks every server that can be started for query; with
// exact, only symbols named exactly query are kept.
func (t tools) symbolSearch(ctx context.Context, query string, exact bool) (string, error) {
	if strings.TrimSpace(query) == "" {
		return "", errors.New("give a path (with line and column) or a symbol name")
	}
	servers := t.m.Running()
	if len(servers) == 0 {
		for _, c := range t.m.Configs() {
			if srv, err := t.m.Server(ctx, c.Name); err == nil {
				servers = append(servers, srv)
			}
		}
	}
	if len(servers) == 0 {
		return "", errors.New("no language server could be started")
	}
	var b strings.Builder
	for _, srv := range servers {
		syms, err := srv.WorkspaceSymbols(ctx, query)
		if err != nil {
			return "", err
		}
		// Servers search dependencies and the standard library too
		// (gopls fuzzily): only the workspace's own symbols are shown.
		kept := syms[:0]
		for _, s := range syms {
			if filepath.IsAbs(srv.Rel(s.Location.URI)) {
				continue
			}
			if !exact || s.Name == query || strings.HasSuffix(s.Name, "."+query) {
				kept = append(kept, s)
			}
		}
		syms = kept
		b.WriteString(strings.TrimSuffix(t.symbolLines(srv, syms), "no symbols found\n"))
	}
	if b.Len() == 0 {
		return "no symbols found\n", nil
	}
	return b.String(), nil
}

func (t tools) symbolLines(srv *langserver.Server, syms []langserver.SymbolInformation) string {
	if len(syms) == 0 {
		return "no symbols found\n"
	}
	var b strings.Builder
	for i, s := range syms {
		if i == t.opts.MaxResults {
			fmt.Fprintf(&b, "… and %d more\n", len(syms)-i)
			break
		}
		name := s.Name
		if s.ContainerName != "" {
			name = s.ContainerName + "." + s.Name
		}
		fmt.Fprintf(&b, "%s %s %s\n", t.place(srv, s.Location), langserver.KindName(s.Kind), name)
	}
	return b.String()
}

func (t tools) locations(srv *langserver.Server, locs []langserver.Location, none string) string {
	if len(locs) == 0 {
		return none + "\n"
	}
	var b strings.Builder
	for i, l := range locs {
		if i == t.opts.MaxResults {
			fmt.Fprintf(&b, "… and %d more\n", len(locs)-i)
			break
		}
		b.WriteString(t.place(srv, l) + "\n")
	}
	return b.String()
}

func (t tools) place(srv *langserver.Server, l langserver.Location) string {
	return fmt.Sprintf("%s:%d:%d", srv.Rel(l.URI), l.Range.Start.Line+1, langserver.Column(l.URI, l.Range.Start))
}

func (t tools) position(ctx context.Context, in PositionArgs) (string, *langserver.Server, error) {
	if in.Path == "" || in.Line < 1 || in.Column < 1 {
		return "", nil, errors.New("path, line and column (1-based) are required")
	}
	return t.server(ctx, in.Path)
}

// server checks that path lies in the workspace and returns its server.
func (t tools) server(ctx context.Context, path string) (string, *langserver.Server, error) {
	rel, err := t.ws.Rel(path)
	if err != nil {
		return "", nil, err
	}
	srv, err := t.m.For(ctx, rel)
	return rel, srv, err
}

func clipLines(s string, max int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > max {
		return strings.Join(lines[:max], "") + fmt.Sprintf("… %d more lines\n", len(lines)-max)
	}
	return s
}
