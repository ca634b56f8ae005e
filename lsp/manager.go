package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

// Backoff between restarts of a server that crashed: it doubles from
// restartBase up to restartMax, and after maxRestarts crashes the server
// stays down for the session.
var (
	restartBase = 500 * time.Millisecond
	restartMax  = 30 * time.Second
)

const maxRestarts = 5

// startTimeout bounds a server's start and initialize handshake.
var startTimeout = 60 * time.Second

// ErrNoServer reports that no language server handles a file.
var ErrNoServer = errors.New("no language server is configured for this file type")

// Manager runs one server per configured language for one workspace,
// each started on first use and restarted with backoff after a crash.
type Manager struct {
	root    string
	environ []string
	confine func(Config) (Confinement, error)

	mu      sync.Mutex
	entries []*entry
	closed  bool
}

type entry struct {
	cfg     Config
	mu      sync.Mutex // held while starting
	srv     *Server
	crashes int
	retryAt time.Time
	lastErr error
}

// NewManager returns a manager for configs in root. environ is the
// servers' base environment; confine says how each one runs (nil: no
// sandbox).
func NewManager(root string, configs []Config, environ []string, confine func(Config) (Confinement, error)) *Manager {
	m := &Manager{root: root, environ: environ, confine: confine}
	for _, c := range configs {
		m.entries = append(m.entries, &entry{cfg: c})
	}
	return m
}

// Configs returns the languages the manager knows.
func (m *Manager) Configs() []Config {
	out := make([]Config, len(m.entries))
	for i, e := range m.entries {
		out[i] = e.cfg
	}
	return out
}

// Handles reports whether some server is configured for path.
func (m *Manager) Handles(path string) bool { return m.entryFor(path) != nil }

func (m *Manager) entryFor(path string) *entry {
	for _, e := range m.entries {
		if e.cfg.Handles(path) {
			return e
		}
	}
	return nil
}

// For returns the running server for path, starting it when needed.
func (m *Manager) For(ctx context.Context, path string) (*Server, error) {
	e := m.entryFor(path)
	if e == nil {
		return nil, fmt.Errorf("%s: %w", path, ErrNoServer)
	}
	return m.server(ctx, e)
}

// Running returns the servers started so far and still alive.
func (m *Manager) Running() []*Server {
	var out []*Server
	for _, e := range m.entries {
		e.mu.Lock()
		if e.srv != nil && e.srv.Alive() {
			out = append(out, e.srv)
		}
		e.mu.Unlock()
	}
	return out
}

// Server starts (or returns) the server named name.
func (m *Manager) Server(ctx context.Context, name string) (*Server, error) {
	for _, e := range m.entries {
		if e.cfg.Name == name {
			return m.server(ctx, e)
		}
	}
	return nil, fmt.Errorf("no language server named %q", name)
}

func (m *Manager) server(ctx context.Context, e *entry) (*Server, error) {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return nil, errors.New("language servers are shut down")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.srv != nil {
		if e.srv.Alive() {
			return e.srv, nil
		}
		// It crashed: note it, and wait out the backoff.
		e.lastErr = e.srv.explain(errClosed)
		e.srv.proc.stop()
		e.srv = nil
		e.crashes++
		e.retryAt = time.Now().Add(backoff(e.crashes))
	}
	if e.crashes > maxRestarts {
		return nil, fmt.Errorf("language server %s crashed %d times and stays off: %w", e.cfg.Name, e.crashes, e.lastErr)
	}
	if wait := time.Until(e.retryAt); wait > 0 {
		return nil, fmt.Errorf("language server %s is restarting after a crash (retry in %s): %w", e.cfg.Name, wait.Round(time.Millisecond), e.lastErr)
	}
	conf := Confinement{Policy: sandbox.Policy{Mode: sandbox.Off}}
	if m.confine != nil {
		var err error
		if conf, err = m.confine(e.cfg); err != nil {
			return nil, fmt.Errorf("language server %s: %w", e.cfg.Name, err)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	srv, err := Start(sctx, e.cfg, m.root, m.environ, conf)
	if err != nil {
		// A server that fails to start counts as a crash, so a broken
		// command is not retried on every tool call.
		e.crashes++
		e.lastErr = err
		e.retryAt = time.Now().Add(backoff(e.crashes))
		return nil, err
	}
	e.srv = srv
	return srv, nil
}

func backoff(crashes int) time.Duration {
	d := restartBase
	for i := 1; i < crashes && d < restartMax; i++ {
		d *= 2
	}
	return min(d, restartMax)
}

// Close shuts every server down, in parallel.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range m.entries {
		e.mu.Lock()
		srv := e.srv
		e.srv = nil
		e.mu.Unlock()
		if srv != nil {
			wg.Add(1)
			go func() { defer wg.Done(); srv.Close() }()
		}
	}
	wg.Wait()
}
