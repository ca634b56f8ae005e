package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// FileDiagnostics are the diagnostics of one file, relative to the root.
type FileDiagnostics struct {
	Path        string
	Diagnostics []Diagnostic
}

// Diagnostics syncs paths and returns the diagnostics of every file the
// server reported on (paths first). Servers publish asynchronously and
// often more than once per change (gopls: parse errors, then type
// errors), so it waits for a first publication for each changed path and
// then until none came for settle, all within ctx.
func (s *Server) Diagnostics(ctx context.Context, paths []string, settle time.Duration) ([]FileDiagnostics, error) {
	s.mu.Lock()
	start := map[string]int{}
	for _, p := range paths {
		start[fileURI(s.abs(p))] = s.gen[fileURI(s.abs(p))]
	}
	s.mu.Unlock()
	waitFor := map[string]bool{}
	for _, p := range paths {
		sent, err := s.sync(p)
		if err != nil {
			return nil, err
		}
		if sent {
			waitFor[fileURI(s.abs(p))] = true
		}
	}
	s.waitPublished(ctx, start, waitFor, settle)
	if !s.Alive() {
		return nil, s.explain(errClosed)
	}
	return s.collect(paths), nil
}

// firstPublishWait bounds the wait for a server's first publication on a
// changed file: some servers (typescript-language-server on a file
// without problems, at times) publish nothing, and an edit must not wait
// for the whole deadline then.
var firstPublishWait = 10 * time.Second

func (s *Server) waitPublished(ctx context.Context, start map[string]int, waitFor map[string]bool, settle time.Duration) {
	quiet := time.NewTimer(settle)
	defer quiet.Stop()
	giveUp := time.Now().Add(firstPublishWait)
	for {
		s.mu.Lock()
		pending := false
		for uri := range waitFor {
			if s.gen[uri] == start[uri] {
				pending = true
			}
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
			quiet.Reset(settle)
		case <-quiet.C:
			if !pending || time.Now().After(giveUp) {
				return
			}
			quiet.Reset(settle)
		case <-ctx.Done():
			return
		case <-s.proc.exited:
			return
		}
	}
}

// Published returns, for each of paths the server has reported on, the
// diagnostics it last published (an empty list: it found nothing). A path
// it never reported on is absent: nothing is known of it. Nothing is
// synced or waited for.
func (s *Server) Published(paths []string) map[string][]Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]Diagnostic{}
	for _, p := range paths {
		if d, ok := s.diags[fileURI(s.abs(p))]; ok {
			out[p] = append([]Diagnostic{}, d...)
		}
	}
	return out
}

func (s *Server) collect(paths []string) []FileDiagnostics {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := map[string]int{}
	for i, p := range paths {
		first[fileURI(s.abs(p))] = i + 1
	}
	uris := make([]string, 0, len(s.diags))
	for uri := range s.diags {
		uris = append(uris, uri)
	}
	sort.Slice(uris, func(i, j int) bool {
		a, b := first[uris[i]], first[uris[j]]
		if (a > 0) != (b > 0) {
			return a > 0
		}
		if a != b {
			return a < b
		}
		return uris[i] < uris[j]
	})
	var out []FileDiagnostics
	for _, uri := range uris {
		out = append(out, FileDiagnostics{Path: s.Rel(uri), Diagnostics: append([]Diagnostic{}, s.diags[uri]...)})
	}
	return out
}

// Definition returns where the symbol at line and column (1-based, column
// counted in characters) of path is defined.
func (s *Server) Definition(ctx context.Context, path string, line, column int) ([]Location, error) {
	var raw json.RawMessage
	if err := s.positionCall(ctx, "textDocument/definition", path, line, column, nil, &raw); err != nil {
		return nil, err
	}
	return decodeLocations(raw)
}

// References returns the uses of the symbol at line and column of path,
// its declaration included.
func (s *Server) References(ctx context.Context, path string, line, column int) ([]Location, error) {
	var locs []Location
	extra := map[string]any{"context": map[string]bool{"includeDeclaration": true}}
	err := s.positionCall(ctx, "textDocument/references", path, line, column, extra, &locs)
	return locs, err
}

// Hover returns the server's description of what is at line and column.
func (s *Server) Hover(ctx context.Context, path string, line, column int) (string, error) {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := s.positionCall(ctx, "textDocument/hover", path, line, column, nil, &h); err != nil {
		return "", err
	}
	return hoverText(h.Contents), nil
}

// WorkspaceSymbols searches the workspace's symbols by name.
func (s *Server) WorkspaceSymbols(ctx context.Context, query string) ([]SymbolInformation, error) {
	var syms []SymbolInformation
	err := s.conn.Call(ctx, "workspace/symbol", map[string]string{"query": query}, &syms)
	return syms, s.explainIfDead(err)
}

// DocumentSymbols lists path's symbols, flattened, containers named.
func (s *Server) DocumentSymbols(ctx context.Context, path string) ([]SymbolInformation, error) {
	if err := s.Sync(path); err != nil {
		return nil, err
	}
	uri := fileURI(s.abs(path))
	var raw []documentSymbol
	if err := s.conn.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": uri}}, &raw); err != nil {
		return nil, s.explainIfDead(err)
	}
	var out []SymbolInformation
	var walk func([]documentSymbol, string)
	walk = func(ds []documentSymbol, container string) {
		for _, d := range ds {
			loc := Location{URI: uri, Range: d.SelectionRange}
			if d.Location != nil {
				loc = *d.Location
			}
			out = append(out, SymbolInformation{Name: d.Name, Kind: d.Kind, Location: loc, ContainerName: container})
			walk(d.Children, d.Name)
		}
	}
	walk(raw, "")
	return out, nil
}

func (s *Server) positionCall(ctx context.Context, method, path string, line, column int, extra map[string]any, result any) error {
	if err := s.Sync(path); err != nil {
		return err
	}
	s.mu.Lock()
	doc := s.open[fileURI(s.abs(path))]
	text := ""
	if doc != nil {
		text = doc.text
	}
	s.mu.Unlock()
	pos, err := toPosition(text, line, column)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	params := map[string]any{"textDocument": map[string]string{"uri": fileURI(s.abs(path))}, "position": pos}
	for k, v := range extra {
		params[k] = v
	}
	return s.explainIfDead(s.conn.Call(ctx, method, params, result))
}

func (s *Server) explainIfDead(err error) error {
	if err != nil && !s.Alive() {
		return s.explain(err)
	}
	return err
}

// toPosition converts a 1-based line and character column into the
// protocol's zero-based line and UTF-16 offset.
func toPosition(text string, line, column int) (Position, error) {
	lines := strings.Split(text, "\n")
	if line < 1 || line > len(lines) {
		return Position{}, fmt.Errorf("line %d is outside the file (%d lines)", line, len(lines))
	}
	l := strings.TrimSuffix(lines[line-1], "\r")
	if column < 1 {
		column = 1
	}
	units := 0
	for i := 1; i < column && l != ""; i++ {
		r, size := utf8.DecodeRuneInString(l)
		l = l[size:]
		units += len(utf16.Encode([]rune{r}))
	}
	return Position{Line: line - 1, Character: units}, nil
}

// Column converts a protocol position back to a 1-based character column
// using the file's text on disk ("" when unreadable: UTF-16 is assumed to
// be the characters).
func Column(path string, p Position) int {
	data, err := os.ReadFile(uriPath(path))
	if err != nil {
		return p.Character + 1
	}
	lines := strings.Split(string(data), "\n")
	if p.Line >= len(lines) {
		return p.Character + 1
	}
	units, col := 0, 1
	for _, r := range lines[p.Line] {
		if units >= p.Character {
			break
		}
		units += len(utf16.Encode([]rune{r}))
		col++
	}
	return col
}

func decodeLocations(raw json.RawMessage) ([]Location, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one Location
	if raw[0] == '{' {
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		return []Location{one}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	var out []Location
	for _, it := range items {
		var l locationLink
		if json.Unmarshal(it, &l) == nil && l.TargetURI != "" {
			out = append(out, Location{URI: l.TargetURI, Range: l.TargetSelectionRange})
			continue
		}
		if json.Unmarshal(it, &one) == nil && one.URI != "" {
			out = append(out, one)
		}
	}
	return out, nil
}

// hoverText flattens the three shapes of Hover.contents into text.
func hoverText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind, Language, Value string
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, it := range list {
			if t := hoverText(it); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// Format renders diagnostics one a line, "path:line:col: severity: msg",
// errors first when onlyErrors is false, at most max lines (0: all).
func Format(files []FileDiagnostics, onlyErrors bool, max int) string {
	var b strings.Builder
	n, dropped := 0, 0
	for _, f := range files {
		for _, d := range f.Diagnostics {
			if onlyErrors && d.Severity != SeverityError && d.Severity != 0 {
				continue
			}
			if max > 0 && n >= max {
				dropped++
				continue
			}
			n++
			msg := strings.ReplaceAll(strings.TrimSpace(d.Message), "\n", " ")
			src := ""
			if d.Source != "" {
				src = " (" + d.Source + ")"
			}
			fmt.Fprintf(&b, "%s:%d:%d: %s: %s%s\n", f.Path, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Severity, clip(msg, 500), src)
		}
	}
	if dropped > 0 {
		fmt.Fprintf(&b, "… and %d more\n", dropped)
	}
	return b.String()
}
