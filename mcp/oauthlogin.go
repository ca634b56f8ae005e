package mcp

import (
	"context"
	"strings"
	"time"
)

// Reauthorize tells the Manager that the named server's sign-in changed
// (rein mcp login ran, here or in another process): a server that is down
// (for want of a sign-in, say) is reconnected at once instead of after its
// backoff, and Reauthorize waits for that attempt (at most until ctx
// ends), so the server's tools are there for the next Tools call. A
// connected server is left alone; it adopts the new sign-in when its old
// one is refused.
func (m *Manager) Reauthorize(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	m.Start()
	s.mu.Lock()
	if s.closed || s.sess != nil {
		s.mu.Unlock()
		return nil
	}
	ch := s.dialing
	if ch == nil {
		s.retryAt, s.reported = time.Time{}, false
		ch = s.startDialLocked()
	}
	s.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == nil && s.lastErr != nil {
		return s.lastErr
	}
	return nil
}

// Resource is the key under which the server's sign-in is stored: its
// URL, or "" for a server that is not an HTTP server.
func (sc ServerConfig) Resource() string { return sc.URL }

// UsesOAuth reports whether the server can be signed in to: an HTTP server
// with an oauth table, or one that sends no credentials of its own (no
// bearer_token_env_var, no Authorization header).
func (sc ServerConfig) UsesOAuth() bool {
	if sc.URL == "" {
		return false
	}
	if sc.OAuth != nil {
		return true
	}
	if sc.BearerTokenEnvVar != "" {
		return false
	}
	for k := range sc.Headers {
		if strings.EqualFold(k, "Authorization") {
			return false
		}
	}
	return true
}

// Server returns the configuration of the named enabled server, with its
// defaults applied.
func (m *Manager) Server(name string) (ServerConfig, error) {
	s, err := m.server(name)
	if err != nil {
		return ServerConfig{}, err
	}
	return s.cfg, nil
}

// Tokens returns the store of sign-ins the Manager was configured with.
func (m *Manager) Tokens() TokenStore { return m.cfg.Tokens }
