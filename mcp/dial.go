package mcp

//lint:file-ignore SA1019 roots and sampling serve servers of the 2025 revisions, which rein supports.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// methodDiscover is the 2026-07-28 probe.
const methodDiscover = "server/discover"

// connect opens a session with the server. For a stdio server it also
// returns the connection it tried last (the session's, on success), so a
// failure can be explained with the process's exit and stderr.
func (s *server) connect(ctx context.Context) (*session, *stdioConn, error) {
	if s.cfg.Transport == TransportStdio {
		return s.connectStdio(ctx)
	}
	sess, err := s.connectHTTP(ctx)
	return sess, nil, err
}

// version picks the protocol version to open with and the bound on the
// discover probe (0: none). A pinned version is used as is; a remembered
// legacy era skips the probe; a server known to be modern is probed
// without a bound (it answers, but may be slow to start); otherwise the
// probe is bounded so that a legacy server that ignores it costs at most
// ProbeTimeout.
func (s *server) version() (string, time.Duration) {
	if s.cfg.ProtocolVersion != "" {
		return s.cfg.ProtocolVersion, 0
	}
	s.mu.Lock()
	era := s.era
	s.mu.Unlock()
	switch {
	case era == "":
		return ProtocolModern, s.cfg.ProbeTimeout
	case era < ProtocolModern:
		return era, 0
	}
	return ProtocolModern, 0
}

// connectStdio starts the server's process and opens a session over its
// stdio. When the bounded probe went unanswered and the initialize
// fallback failed as well, the server may be a modern one that was slow
// to start and has bound its connection to the probe's era; rein then
// tries once more on a fresh process, probing without a bound.
func (s *server) connectStdio(ctx context.Context) (*session, *stdioConn, error) {
	version, probe := s.version()
	var probeTimedOut atomic.Bool
	sess, conn, err := s.stdioAttempt(ctx, version, probe, &probeTimedOut)
	if err == nil || !probeTimedOut.Load() || ctx.Err() != nil || s.cfg.ProtocolVersion != "" {
		return sess, conn, err
	}
	s.m.logger.Info("mcp: discover probe unanswered and initialize failed; retrying without a probe bound", "server", s.cfg.Name, "error", s.redact(err))
	_ = conn.Close()
	sess2, conn2, err2 := s.stdioAttempt(ctx, ProtocolModern, 0, nil)
	if err2 == nil {
		return sess2, conn2, nil
	}
	return nil, conn2, fmt.Errorf("no answer to %s within %v and the initialize handshake failed (%v); a second attempt failed too: %w", methodDiscover, probe, err, err2)
}

func (s *server) stdioAttempt(ctx context.Context, version string, probe time.Duration, timedOut *atomic.Bool) (*session, *stdioConn, error) {
	proc, err := startProcess(s.cfg, s.m.cfg.Environ, s.m.cfg.WorkDir, s.m.cfg.Confine)
	if err != nil {
		return nil, nil, err
	}
	conn := newStdioConn(proc, s.m.cfg.MaxMessageBytes, s.m.stopAsync)
	s.mu.Lock()
	s.trying = conn
	s.mu.Unlock()
	cs, err := s.newClient(probe, timedOut).Connect(ctx, s.watchTasks(&stdioTransport{conn: conn}), &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		_ = conn.Close()
		return nil, conn, err
	}
	return s.newSession(cs, conn, TransportStdio), conn, nil
}

// connectHTTP opens a session over Streamable HTTP, falling back to the
// legacy HTTP+SSE transport when the server refuses Streamable HTTP with a
// 4xx (TransportAuto). A server that is not listening yet, or answers with
// a transient 5xx, is retried until the startup timeout.
func (s *server) connectHTTP(ctx context.Context) (*session, error) {
	delay := 100 * time.Millisecond
	for {
		sess, trip, err := s.httpAttempt(ctx)
		if err != nil && trip != nil && trip.sawUnauthorized() && s.cfg.OAuth == nil && !errors.Is(err, ErrNeedsLogin) {
			return nil, fmt.Errorf("%w; the server requires authorization: set bearer_token_env_var (or headers), or configure [mcp_servers.%s.oauth]", err, s.cfg.Name)
		}
		if err == nil || ctx.Err() != nil || !(errors.Is(err, syscall.ECONNREFUSED) || (trip != nil && trip.sawTransient())) {
			return sess, err
		}
		s.m.logger.Debug("mcp: transient connection failure, retrying", "server", s.cfg.Name, "error", s.redact(err))
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		delay = min(2*delay, 2*time.Second)
	}
}

func (s *server) httpAttempt(ctx context.Context) (*session, *httpTrip, error) {
	hc, trip, err := s.httpClient()
	if err != nil {
		return nil, nil, err
	}
	oauth, err := s.oauthHandler()
	if err != nil {
		return nil, nil, err
	}
	version, probe := s.version()
	opts := &sdk.ClientSessionOptions{ProtocolVersion: version}
	kind := s.cfg.Transport
	s.mu.Lock()
	if kind == TransportAuto && s.transport == TransportSSE {
		kind = TransportSSE // remembered from an earlier fallback
	}
	s.mu.Unlock()

	if kind != TransportSSE {
		t := &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc, MaxEventSize: s.m.cfg.MaxMessageBytes, OAuthHandler: oauth}
		cs, err := s.newClient(probe, nil).Connect(ctx, t, opts)
		if err == nil {
			return s.newSession(cs, nil, TransportStreamable), trip, nil
		}
		status := trip.refusedStatus()
		if kind == TransportStreamable || status == 0 || ctx.Err() != nil {
			return nil, trip, err
		}
		s.m.logger.Info("mcp: Streamable HTTP refused, trying the legacy SSE transport", "server", s.cfg.Name, "status", status)
		sess, sseErr := s.sseAttempt(ctx, hc, probe, opts)
		if sseErr != nil {
			return nil, trip, fmt.Errorf("the server refused Streamable HTTP (HTTP %d: %v) and the legacy SSE transport failed too: %w", status, err, sseErr)
		}
		return sess, trip, nil
	}
	sess, err := s.sseAttempt(ctx, hc, probe, opts)
	return sess, trip, err
}

func (s *server) sseAttempt(ctx context.Context, hc *http.Client, probe time.Duration, opts *sdk.ClientSessionOptions) (*session, error) {
	t := &sseTransport{inner: &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc, MaxEventSize: s.m.cfg.MaxMessageBytes}, life: s.m.ctx}
	cs, err := s.newClient(probe, nil).Connect(ctx, t, opts)
	if err != nil {
		return nil, err
	}
	return s.newSession(cs, nil, TransportSSE), nil
}

// httpClient builds the HTTP client for one connection attempt, with the
// configured headers and bearer token.
func (s *server) httpClient() (*http.Client, *httpTrip, error) {
	h := http.Header{}
	for k, v := range s.cfg.Headers {
		h.Set(k, v)
	}
	if n := s.cfg.BearerTokenEnvVar; n != "" {
		tok := s.m.cfg.Getenv(n)
		if tok == "" {
			return nil, nil, fmt.Errorf("bearer_token_env_var names $%s, which is not set: export the token in it", n)
		}
		s.scrub.add(tok)
		h.Set("Authorization", "Bearer "+tok)
	}
	trip := &httpTrip{base: s.m.cfg.HTTPTransport, headers: h, limit: int64(s.m.cfg.MaxMessageBytes), notes: &s.taskWatch}
	return &http.Client{Transport: trip}, trip, nil
}

// newSession wraps a connected client session.
func (s *server) newSession(cs *sdk.ClientSession, conn *stdioConn, tr Transport) *session {
	era := ""
	if r := cs.InitializeResult(); r != nil {
		era = r.ProtocolVersion
	}
	return &session{cs: cs, stdio: conn, transport: tr, era: era, gone: make(chan struct{})}
}

// newClient builds an SDK client for one connection attempt. Its
// capabilities are exactly what rein supports here: roots only when
// configured, elicitation and sampling only with an Interaction, and the
// 2026-07-28 tasks extension unless the server's tasks setting is "never".
func (s *server) newClient(probe time.Duration, probeTimedOut *atomic.Bool) *sdk.Client {
	caps := &sdk.ClientCapabilities{}
	if s.cfg.Tasks != TasksNever {
		caps.Extensions = map[string]any{TasksExtension: map[string]any{}}
	}
	if len(s.m.cfg.Roots) > 0 {
		caps.RootsV2 = &sdk.RootCapabilities{}
	}
	opts := &sdk.ClientOptions{
		Capabilities:                caps,
		Logger:                      s.m.logger,
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { s.listChanged("tools") },
		PromptListChangedHandler:    func(context.Context, *sdk.PromptListChangedRequest) { s.listChanged("prompts") },
		ResourceListChangedHandler:  func(context.Context, *sdk.ResourceListChangedRequest) { s.listChanged("resources") },
		ProgressNotificationHandler: s.m.onProgress,
	}
	s.notifyHandlers(opts)
	if in := s.m.cfg.Interaction; in != nil {
		// Both modes: the Interaction shows a URL and opens it only if
		// the user asks (headless, Decline declines either).
		caps.Elicitation = &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}
		opts.ElicitationHandler = elicitHandler(s.cfg.Name, in)
		if s.cfg.Sampling != SamplingNever {
			opts.CreateMessageWithToolsHandler = sampleHandler(s.cfg.Name, s.cfg.Sampling, s.cfg.Project, in) //nolint:staticcheck // sampling is deprecated in 2026-07-28 but still served
		}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: s.m.cfg.ClientName, Version: s.m.cfg.ClientVersion}, opts)
	registerTaskMethods(c)
	c.AddSendingMiddleware(legacyCapsMiddleware, resultTypeMiddleware(s.cfg.Name), logLevelMiddleware(s.m))
	if probe > 0 {
		c.AddSendingMiddleware(probeMiddleware(probe, probeTimedOut))
	}
	if len(s.m.cfg.Roots) > 0 {
		c.AddRoots(s.rootList()...) //nolint:staticcheck // roots are offered only when configured
	}
	return c
}

// probeMiddleware bounds the server/discover probe, which the SDK sends
// with the connect context: a legacy stdio server that ignores unknown
// methods would otherwise hold the connection until the startup timeout.
// When the bound expires the SDK sends notifications/cancelled for the
// probe and falls back to the initialize handshake on the same connection.
func probeMiddleware(bound time.Duration, timedOut *atomic.Bool) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method != methodDiscover {
				return next(ctx, method, req)
			}
			pctx, cancel := context.WithTimeout(ctx, bound)
			defer cancel()
			res, err := next(pctx, method, req)
			if err != nil && pctx.Err() != nil && ctx.Err() == nil {
				if timedOut != nil {
					timedOut.Store(true)
				}
				return nil, fmt.Errorf("no answer to %s within %v", methodDiscover, bound)
			}
			return res, err
		}
	}
}
