package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Limits on what rein keeps of a server's state.
const (
	// maxDiagnosticsPerFile caps what is stored for one document.
	maxDiagnosticsPerFile = 200
	// maxOpenFiles caps the documents kept open; the oldest is closed.
	maxOpenFiles = 200
	// maxFileBytes is the largest file sent to a server.
	maxFileBytes = 4 << 20
)

// Server is one running language server for one workspace root.
type Server struct {
	cfg  Config
	root string
	proc *process
	conn *conn

	mu      sync.Mutex
	open    map[string]*document // by URI
	order   []string             // URIs in opening order
	diags   map[string][]Diagnostic
	changed chan struct{}  // closed and replaced on every publishDiagnostics
	gen     map[string]int // publishDiagnostics count per URI
}

type document struct {
	version int
	text    string
}

// Start starts cfg's server in root and initializes it.
func Start(ctx context.Context, cfg Config, root string, environ []string, conf Confinement) (*Server, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	p, err := startProcess(cfg, root, environ, conf)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, root: root, proc: p, open: map[string]*document{}, diags: map[string][]Diagnostic{},
		changed: make(chan struct{}), gen: map[string]int{}}
	s.conn = newConn(p.stdout, p.stdin, s.notified, s.requested)
	if err := s.initialize(ctx); err != nil {
		p.stop()
		return nil, s.explain(err)
	}
	return s, nil
}

func (s *Server) initialize(ctx context.Context) error {
	uri := fileURI(s.root)
	params := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          uri,
		"rootPath":         s.root,
		"clientInfo":       map[string]string{"name": "rein"},
		"workspaceFolders": []map[string]string{{"uri": uri, "name": filepath.Base(s.root)}},
		"capabilities": map[string]any{
			"workspace": map[string]any{"workspaceFolders": true, "configuration": true,
				"symbol": map[string]any{"dynamicRegistration": false}},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"relatedInformation": false, "versionSupport": true},
				"definition":         map[string]any{"linkSupport": true},
				"references":         map[string]any{},
				"hover":              map[string]any{"contentFormat": []string{"plaintext", "markdown"}},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
			},
			"window": map[string]any{"workDoneProgress": false},
		},
	}
	if err := s.conn.Call(ctx, "initialize", params, nil); err != nil {
		return err
	}
	return s.conn.Notify("initialized", map[string]any{})
}

// notified handles the server's notifications; only diagnostics matter.
func (s *Server) notified(method string, params json.RawMessage) {
	if method != "textDocument/publishDiagnostics" {
		return
	}
	var p publishDiagnosticsParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	// Servers escape URIs their own way (vscode-uri encodes more than
	// Go's net/url does): key by rein's spelling of the same path.
	if path := uriPath(p.URI); path != p.URI {
		p.URI = fileURI(path)
	}
	if len(p.Diagnostics) > maxDiagnosticsPerFile {
		p.Diagnostics = p.Diagnostics[:maxDiagnosticsPerFile]
	}
	s.mu.Lock()
	if len(s.diags) >= maxOpenFiles*4 && s.diags[p.URI] == nil {
		s.mu.Unlock()
		return // a server reporting on the whole world is not stored whole
	}
	if len(p.Diagnostics) == 0 {
		delete(s.diags, p.URI)
	} else {
		s.diags[p.URI] = p.Diagnostics
	}
	s.gen[p.URI]++
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// requested answers the server's requests: empty configuration, and
// acknowledgement of registrations and progress tokens.
func (s *Server) requested(method string, params json.RawMessage) (any, error) {
	switch method {
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		return make([]any, len(p.Items)), nil
	case "workspace/workspaceFolders":
		return []map[string]string{{"uri": fileURI(s.root), "name": filepath.Base(s.root)}}, nil
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create",
		"window/showMessageRequest", "workspace/applyEdit":
		if method == "workspace/applyEdit" {
			return map[string]any{"applied": false}, nil // rein's tools are read-only
		}
		return nil, nil
	}
	return nil, fmt.Errorf("method %s not supported by rein", method)
}

// Alive reports whether the server process still runs.
func (s *Server) Alive() bool { return s.proc.running() }

// Config returns the server's configuration.
func (s *Server) Config() Config { return s.cfg }

// Sync sends path's current content to the server: didOpen the first
// time, didChange when it changed since. A missing file is closed.
func (s *Server) Sync(path string) error {
	_, err := s.sync(path)
	return err
}

// sync is Sync, also reporting whether anything was sent.
func (s *Server) sync(path string) (bool, error) {
	abs := s.abs(path)
	uri := fileURI(abs)
	data, err := s.readInside(abs)
	s.mu.Lock()
	defer s.mu.Unlock()
	doc := s.open[uri]
	if err != nil {
		if doc != nil && errors.Is(err, os.ErrNotExist) {
			s.closeLocked(uri)
			return true, nil
		}
		return false, err
	}
	if len(data) > maxFileBytes {
		return false, fmt.Errorf("%s is larger than %d MiB", path, maxFileBytes>>20)
	}
	text := string(data)
	if doc == nil {
		if len(s.order) >= maxOpenFiles {
			s.closeLocked(s.order[0])
		}
		s.open[uri] = &document{version: 1, text: text}
		s.order = append(s.order, uri)
		return true, s.conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": s.cfg.languageID(abs), "version": 1, "text": text}})
	}
	if doc.text == text {
		return false, nil
	}
	doc.version++
	doc.text = text
	if err := s.conn.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": doc.version},
		"contentChanges": []map[string]string{{"text": text}},
	}); err != nil {
		return true, err
	}
	return true, s.conn.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

// readInside reads abs unless it, or a symlink on its way, leads out of
// the root: a server must not be handed, and quote back in diagnostics,
// a file the workspace's own tools could not read.
func (s *Server) readInside(abs string) ([]byte, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(s.root)
	if err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s leads outside the workspace", abs)
	}
	return os.ReadFile(real)
}

func (s *Server) closeLocked(uri string) {
	delete(s.open, uri)
	for i, u := range s.order {
		if u == uri {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	_ = s.conn.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

// Close shuts the server down politely (shutdown, exit), then stops it.
func (s *Server) Close() {
	if s.proc.running() {
		ctx, cancel := context.WithTimeout(context.Background(), processGrace)
		if s.conn.Call(ctx, "shutdown", nil, nil) == nil {
			_ = s.conn.Notify("exit", nil)
			s.proc.wait(processGrace)
		}
		cancel()
	}
	s.proc.stop()
}

// explain adds how the server ended, and its last words, to err.
func (s *Server) explain(err error) error {
	if s.proc.wait(200 * time.Millisecond) {
		msg := fmt.Sprintf("language server %s exited", s.cfg.Name)
		if s.proc.waitErr != nil {
			msg += " (" + s.proc.waitErr.Error() + ")"
		}
		if t := strings.TrimSpace(s.stderrTail()); t != "" {
			msg += ": " + t
		}
		return fmt.Errorf("%s: %w", msg, err)
	}
	return err
}

func (s *Server) stderrTail() string {
	t := s.proc.stderr.String()
	if len(t) > 500 {
		t = "…" + t[len(t)-500:]
	}
	return t
}

func (s *Server) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(s.root, path)
}

// Rel shows uri relative to the root when it is inside.
func (s *Server) Rel(uri string) string {
	p := uriPath(uri)
	if rel, err := filepath.Rel(s.root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.FromSlash(u.Path)
}
