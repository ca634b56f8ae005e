package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResourceUpdate says a subscribed resource changed: whoever shows it
// tells the user, and the model can read the resource again.
type ResourceUpdate struct {
	Server string
	URI    string
}

// maxSubscriptions bounds the subscriptions one server may hold.
const maxSubscriptions = 100

// ErrNoSubscribe is returned for a server that does not offer resource
// subscriptions.
var ErrNoSubscribe = errors.New("the server does not offer resource subscriptions")

// Subscribe asks server to notify rein when the resource at uri changes.
// The subscription is renewed on each later connection to the server.
func (m *Manager) Subscribe(ctx context.Context, serverName, uri string) error {
	s, sess, err := m.ready(ctx, serverName)
	if err != nil {
		return err
	}
	if uri == "" || len(uri) > maxURILen {
		return fmt.Errorf("a resource URI of 1 to %d bytes is needed", maxURILen)
	}
	if !canSubscribe(sess) {
		return fmt.Errorf("server %s: %w", s.cfg.Name, ErrNoSubscribe)
	}
	n := &m.notes
	n.mu.Lock()
	subs := n.subs[s.cfg.Name]
	if !subs[uri] && len(subs) >= maxSubscriptions {
		n.mu.Unlock()
		return fmt.Errorf("server %s: at most %d subscriptions", s.cfg.Name, maxSubscriptions)
	}
	n.mu.Unlock()
	if err := sess.cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		return fmt.Errorf("server %s: subscribing to %s: %s", s.cfg.Name, clip(oneLine(uri), 200), s.redact(err))
	}
	n.mu.Lock()
	if n.subs == nil {
		n.subs = map[string]map[string]bool{}
	}
	if n.subs[s.cfg.Name] == nil {
		n.subs[s.cfg.Name] = map[string]bool{}
	}
	n.subs[s.cfg.Name][uri] = true
	n.mu.Unlock()
	return nil
}

// Unsubscribe ends a subscription made with Subscribe.
func (m *Manager) Unsubscribe(ctx context.Context, serverName, uri string) error {
	s, sess, err := m.ready(ctx, serverName)
	if err != nil {
		return err
	}
	n := &m.notes
	n.mu.Lock()
	had := n.subs[s.cfg.Name][uri]
	delete(n.subs[s.cfg.Name], uri)
	n.mu.Unlock()
	if !had {
		return fmt.Errorf("server %s: not subscribed to %s", s.cfg.Name, clip(oneLine(uri), 200))
	}
	if err := sess.cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		return fmt.Errorf("server %s: unsubscribing from %s: %s", s.cfg.Name, clip(oneLine(uri), 200), s.redact(err))
	}
	return nil
}

// Subscriptions lists server's subscribed URIs.
func (m *Manager) Subscriptions(serverName string) []string {
	m.notes.mu.Lock()
	defer m.notes.mu.Unlock()
	var out []string
	for uri := range m.notes.subs[serverName] {
		out = append(out, uri)
	}
	return out
}

// canSubscribe reports whether the session's server declares
// resources.subscribe.
func canSubscribe(sess *session) bool {
	ir := sess.cs.InitializeResult()
	return ir != nil && ir.Capabilities != nil && ir.Capabilities.Resources != nil && ir.Capabilities.Resources.Subscribe
}

// resubscribe renews the server's subscriptions on a new session (a
// reconnection after a crash starts without them). Failures are logged:
// the connection itself is fine.
func (s *server) resubscribe(ctx context.Context, sess *session) {
	uris := s.m.Subscriptions(s.cfg.Name)
	if len(uris) == 0 || !canSubscribe(sess) {
		return
	}
	for _, uri := range uris {
		if err := sess.cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
			s.m.logger.Debug("mcp: renewing a subscription failed", "server", s.cfg.Name, "uri", clip(uri, 200), "err", s.redact(err))
		}
	}
}

// onResourceUpdated passes on an update of a subscribed resource. An
// update for a URI rein did not subscribe to is dropped (a server may
// not send those), and updates have a rate bound like log messages (a
// bucket of their own, so neither hides the other), so a flooding server
// cannot flood the chat.
func (s *server) onResourceUpdated(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
	f := s.m.cfg.OnResourceUpdated
	if f == nil || req == nil || req.Params == nil {
		return
	}
	uri := req.Params.URI
	n := &s.m.notes
	n.mu.Lock()
	subscribed := n.subs[s.cfg.Name][uri]
	ok := false
	if subscribed {
		ok, _ = n.bucket(s.cfg.Name + "\x00updates").take(time.Now())
	}
	n.mu.Unlock()
	if ok {
		f(ResourceUpdate{Server: s.cfg.Name, URI: uri})
	}
}

// onSessionUp does what a new session needs beyond its listings: the log
// level and subscriptions set before it connected. It runs on the
// Manager's goroutine, bounded by the server's startup timeout.
func (s *server) onSessionUp(sess *session) {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.cfg.StartupTimeout)
	defer cancel()
	if err := s.applyLogLevel(ctx, sess); err != nil {
		s.m.logger.Debug("mcp: setting the log level failed", "server", s.cfg.Name, "err", s.redact(err))
	}
	s.resubscribe(ctx, sess)
}
