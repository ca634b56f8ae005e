package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/internal/secret"
)

// Reconnection backoff after a failed connection attempt.
const (
	minRetryDelay = time.Second
	maxRetryDelay = 30 * time.Second
)

// errClosed is returned after Manager.Close.
var errClosed = errors.New("the MCP client was closed")

// server is the state of one configured server: its live session, the era
// and transport it speaks, its cached listings, and its failure history.
// All fields after mu are guarded by it.
type server struct {
	m     *Manager
	cfg   ServerConfig
	scrub scrubber

	begunOnce sync.Once
	started   time.Time     // set by begin, read-only after
	ready     chan struct{} // closed when the first connection attempt ended

	listMu sync.Mutex // serialises refreshes of the listings

	mu        sync.Mutex
	sess      *session
	dialing   chan struct{} // non-nil while a connection attempt runs
	era       string        // protocol version last negotiated
	transport Transport     // transport that worked (stdio, streamable or sse)
	lastErr   error
	failures  int // consecutive failed attempts
	retryAt   time.Time
	reported  bool // the current failure episode was reported
	closed    bool
	listing   listing
	listGen   uint64            // counts tools/list_changed notifications
	trying    *stdioConn        // the stdio connection being opened, for messages
	oauth     auth.OAuthHandler // created on first use; keeps tokens across reconnections
	untasked  map[string]bool   // required-task tools already reported as not offered
	taskWatch taskWatch         // routes task status notifications (tasknotify.go)
}

// session is one live connection.
type session struct {
	cs        *sdk.ClientSession
	stdio     *stdioConn // nil for HTTP
	transport Transport
	era       string
	gone      chan struct{} // closed when the connection ended
	endErr    error         // why it ended; valid after gone is closed
	closing   bool          // guarded by server.mu: rein closed it on purpose
}

// ended waits up to d for the session to end and returns why, or nil
// when it has not ended or ended cleanly.
func (sess *session) ended(d time.Duration) (bool, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-sess.gone:
		if sess.endErr == nil || errors.Is(sess.endErr, io.EOF) || errors.Is(sess.endErr, sdk.ErrConnectionClosed) {
			return true, nil
		}
		return true, sess.endErr
	case <-t.C:
		return false, nil
	}
}

func newServer(m *Manager, sc ServerConfig) *server {
	s := &server{m: m, cfg: sc, ready: make(chan struct{})}
	for _, v := range sc.Env {
		s.scrub.add(v)
	}
	for _, v := range sc.Headers {
		s.scrub.add(v)
	}
	if sc.OAuth != nil {
		s.scrub.add(sc.OAuth.ClientSecret.Reveal())
	}
	if sc.BearerTokenEnvVar != "" {
		s.scrub.add(m.cfg.Getenv(sc.BearerTokenEnvVar))
	}
	return s
}

// begin starts the first connection attempt.
func (s *server) begin() {
	s.begunOnce.Do(func() {
		s.started = time.Now()
		s.mu.Lock()
		ch := s.startDialLocked()
		s.mu.Unlock()
		go func() {
			<-ch
			close(s.ready)
		}()
	})
}

// startDialLocked launches a connection attempt; s.mu must be held.
func (s *server) startDialLocked() chan struct{} {
	ch := make(chan struct{})
	s.dialing = ch
	s.m.wg.Add(1)
	go func() {
		defer s.m.wg.Done()
		s.dial(ch)
	}()
	return ch
}

// dial makes one connection attempt, lists the server's tools, and
// records the outcome.
func (s *server) dial(done chan struct{}) {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.cfg.StartupTimeout)
	defer cancel()
	sess, conn, err := s.connect(ctx)
	if err == nil {
		if err = s.refreshListing(ctx, sess, true); err != nil {
			err = fmt.Errorf("listing its tools: %w", err)
			s.closeSession(sess)
		}
	}
	if err != nil {
		err = s.explain(ctx, err, conn)
	}
	s.mu.Lock()
	s.dialing, s.trying = nil, nil
	switch {
	case s.closed:
		if err == nil {
			defer s.closeSession(sess)
		}
		err = errClosed
	case err == nil:
		s.sess, s.era, s.transport = sess, sess.era, sess.transport
		s.lastErr, s.failures, s.retryAt, s.reported = nil, 0, time.Time{}, false
		s.m.wg.Add(1)
		go func() {
			defer s.m.wg.Done()
			s.watch(sess)
		}()
	default:
		s.lastErr = err
		s.failures++
		s.retryAt = time.Now().Add(retryDelay(s.failures))
	}
	s.mu.Unlock()
	// Report before waking waiters, so that whoever saw the attempt end
	// also sees its problem reported.
	if err != nil && !errors.Is(err, errClosed) {
		s.reportOnce(err)
	}
	close(done)
	if err == nil {
		s.onSessionUp(sess)
	}
	if err == nil && s.m.cfg.OnConnected != nil {
		s.m.cfg.OnConnected(s.cfg.Name)
	}
}

// retryDelay is the backoff after n consecutive failures.
func retryDelay(n int) time.Duration {
	d := minRetryDelay
	for i := 1; i < n && d < maxRetryDelay; i++ {
		d *= 2
	}
	return min(d, maxRetryDelay)
}

// watch waits for a session to end and, unless rein ended it, reports why
// (a crash, a dropped connection) — once, since a session ends once. The
// next call reconnects.
func (s *server) watch(sess *session) {
	sess.endErr = sess.cs.Wait()
	close(sess.gone)
	s.mu.Lock()
	if s.sess == sess {
		s.sess = nil
	}
	deliberate := sess.closing || s.closed
	s.mu.Unlock()
	_ = sess.cs.Close() // stop the process if the connection broke first
	if deliberate {
		return
	}
	cause := errors.New("the connection ended")
	if sess.stdio != nil {
		cause = errors.New("the server process stopped")
	}
	err := s.explain(context.Background(), cause, sess.stdio)
	s.mu.Lock()
	if s.sess == nil && s.dialing == nil {
		s.lastErr = err // shown by Status until the next connection
	}
	s.mu.Unlock()
	s.m.report(Problem{Server: s.cfg.Name, Required: s.cfg.Required, Err: fmt.Errorf("%w; rein restarts it for the next call", err)})
}

// reportOnce reports err unless the current failure episode was already
// reported; an episode ends when a connection succeeds.
func (s *server) reportOnce(err error) {
	s.mu.Lock()
	if s.reported {
		s.mu.Unlock()
		return
	}
	s.reported = true
	s.mu.Unlock()
	s.m.report(Problem{Server: s.cfg.Name, Required: s.cfg.Required, Err: err})
}

// session returns the live session, connecting (or reconnecting after a
// crash) when there is none. It waits for a running attempt; after a
// failed attempt it fails fast until the backoff has passed.
func (s *server) session(ctx context.Context) (*session, error) {
	s.m.Start()
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, errClosed
		}
		if s.sess != nil {
			sess := s.sess
			s.mu.Unlock()
			return sess, nil
		}
		ch := s.dialing
		if ch == nil {
			if wait := time.Until(s.retryAt); wait > 0 && s.lastErr != nil {
				err := s.lastErr
				s.mu.Unlock()
				return nil, fmt.Errorf("%w (rein retries in %v)", err, wait.Round(100*time.Millisecond))
			}
			ch = s.startDialLocked()
		}
		s.mu.Unlock()
		select {
		case <-ch:
			s.mu.Lock()
			sess, err := s.sess, s.lastErr
			s.mu.Unlock()
			if sess != nil {
				return sess, nil
			}
			if err == nil {
				err = errClosed
			}
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// redialInBackground starts a connection attempt for a server that is down
// when its backoff has passed, without waiting for it.
func (s *server) redialInBackground() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.sess != nil || s.dialing != nil || time.Now().Before(s.retryAt) {
		return
	}
	s.startDialLocked()
}

// closeSession ends a session rein no longer wants.
func (s *server) closeSession(sess *session) {
	if sess == nil {
		return
	}
	s.mu.Lock()
	sess.closing = true
	s.mu.Unlock()
	_ = sess.cs.Close()
}

// close ends the server's session for good.
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	sess := s.sess
	s.sess = nil
	s.mu.Unlock()
	s.closeSession(sess)
}

// state returns a snapshot for Status.
func (s *server) state() (sess *session, era string, tr Transport, lastErr error, dialing bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess, s.era, s.transport, s.lastErr, s.dialing != nil
}

// explain turns a connection or call error into one line naming the
// cause: the timeout, the process's exit, garbage on its stdout, and the
// tail of its stderr. Secrets are removed.
func (s *server) explain(ctx context.Context, err error, conn *stdioConn) error {
	var parts []string
	switch {
	case errors.As(err, new(*needsLoginError)) || errors.Is(err, ErrNeedsLogin):
		// The SDK's wrapping ("calling initialize: rejected: …") hides
		// the one thing the user must do.
		parts = append(parts, needsLoginText(err))
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		parts = append(parts, fmt.Sprintf("did not finish connecting within %v (startup_timeout)", s.cfg.StartupTimeout))
	case conn != nil && conn.garbage() != nil:
		// The SDK's wrapping ("connection closed: calling …") adds nothing.
		parts = append(parts, conn.garbage().Error())
	case conn != nil && closedByPeer(err) && conn.p.waitExit(300*time.Millisecond):
		// The process died: its exit and stderr say why; the SDK's
		// "connection closed" says nothing more.
		parts = append(parts, "the server process stopped while rein was connecting to it")
	default:
		parts = append(parts, oneLine(err.Error()))
	}
	if conn != nil {
		for _, f := range processFacts(conn) {
			if !strings.Contains(parts[0], f) {
				parts = append(parts, f)
			}
		}
	}
	msg := secret.Redact(s.scrub.scrub(strings.Join(parts, "; ")))
	return &serverError{server: s.cfg.Name, msg: msg, err: err}
}

// processFacts describes a stdio server's state: its exit, problems on
// stdout, the tail of stderr. It waits briefly for the exit to be known.
func processFacts(c *stdioConn) []string {
	var facts []string
	c.p.settle(300 * time.Millisecond)
	if ex := c.p.exitSummary(); ex != "" {
		facts = append(facts, "the process "+ex)
	}
	if p := c.problem(); p != "" {
		facts = append(facts, p)
	}
	if tail := lastLines(c.p.stderr.String(), 6); tail != "" {
		facts = append(facts, fmt.Sprintf("stderr: %q", clip(tail, 800)))
	}
	return facts
}

// redact renders err for a log line, without secrets.
func (s *server) redact(err error) string {
	return secret.Redact(s.scrub.scrub(oneLine(err.Error())))
}

// closedByPeer reports an error that only says the connection went away.
func closedByPeer(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// serverError is an error about one server, with its name in front.
type serverError struct {
	server string
	msg    string
	err    error
}

// Error implements error.
func (e *serverError) Error() string { return fmt.Sprintf("mcp server %q: %s", e.server, e.msg) }

// Unwrap returns the underlying error.
func (e *serverError) Unwrap() error { return e.err }
