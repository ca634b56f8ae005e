package mcpserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler returns the Streamable HTTP handler: one endpoint serving both
// protocol eras side by side.
//
// The SDK serves the 2026-07-28 revision only from a stateless handler
// and the initialize handshake's sessions only from a stateful one, so
// each request is routed to one of two handlers sharing this server:
//
//   - a request naming a session (Mcp-Session-Id) → the stateful handler,
//     which owns the session (and answers 404 once it is gone);
//   - a request with Mcp-Protocol-Version ≥ 2026-07-28 → the stateless
//     handler;
//   - a POST holding an initialize request → the stateful handler, which
//     opens a session;
//   - any other POST (a legacy request without a session, a modern one
//     missing its header) → the stateless handler, which serves or rejects
//     it with the protocol's error;
//   - GET or DELETE without a session → the stateful handler, which says
//     a session is required.
//
// Before routing, a request whose Origin header is neither a loopback
// origin nor in Config.AllowedOrigins is refused with 403. The handler is
// path-agnostic; mount it where clients expect it (ListenAndServe uses
// /mcp).
func (s *Server) Handler() http.Handler {
	s.handlerOnce.Do(func() { s.handler = s.newRouter() })
	return s.handler
}

// router is the Handler.
type router struct {
	s                   *Server
	stateful, stateless http.Handler
	maxBody             int64
}

func (s *Server) newRouter() *router {
	maxBody := s.cfg.MaxRequestBytes
	if maxBody <= 0 {
		maxBody = DefaultMaxRequestBytes
	}
	timeout := s.cfg.SessionTimeout
	switch {
	case timeout == 0:
		timeout = DefaultSessionTimeout
	case timeout < 0:
		timeout = 0 // the SDK's "never"
	}
	get := func(*http.Request) *sdk.Server { return s.sdk }
	return &router{
		s: s,
		stateful: sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{
			SessionTimeout:      timeout,
			MaxRequestBodyBytes: maxBody,
			Logger:              s.cfg.Logger,
		}),
		stateless: sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{
			Stateless:           true,
			MaxRequestBodyBytes: maxBody,
			Logger:              s.cfg.Logger,
			// A 2026-07-28 call lives exactly as long as its POST: a
			// client that closes the stream has cancelled the call.
			PropagateRequestCancellation: true,
		}),
		maxBody: maxBody,
	}
}

// ServeHTTP implements http.Handler.
func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); !rt.s.originAllowed(origin) {
		http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed; this MCP server accepts loopback origins and those it was configured to allow", origin), http.StatusForbidden)
		return
	}
	to, ok := routeHead(r)
	if r.Method == http.MethodPost {
		// Every POST body is read here (within the same bound the SDK
		// applies): the router may need it to route, a 2025-11-25
		// tools/call may carry a task parameter to lift, and a tasks
		// request's Mcp-Name is checked against it.
		body, err := readBody(w, r, rt.maxBody)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", tooLarge.Limit), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, "failed to read the request body", http.StatusBadRequest)
			return
		}
		if checkTaskHeaders(w, r, body) {
			return
		}
		if lifted, changed := liftTaskParam(body); changed {
			r.Body = io.NopCloser(bytes.NewReader(lifted))
			r.ContentLength = int64(len(lifted))
		}
		if !ok {
			to = routeBody(body)
		}
	}
	if to == toStateful {
		rt.s.tasks.streams.serve(w, r, rt.stateful)
		return
	}
	rt.stateless.ServeHTTP(w, r)
}

// readBody reads r's body (at most max bytes) and puts it back for the
// handler that serves the request.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return body, nil
}

// originAllowed reports whether a request with this Origin header may be
// served. Browsers send Origin on cross-site requests; without this check
// any web page could drive a local server's tools (DNS rebinding, CSRF).
// Clients that are not browsers send no Origin.
func (s *Server) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	canon, host, ok := canonicalOrigin(origin)
	if !ok {
		return false // "null" (sandboxed frames, file://) and garbage
	}
	return isLoopbackHost(host) || s.origins[canon]
}

// canonicalOrigin returns scheme://host[:port], lower-cased, and the bare
// host, for an http or https origin.
func canonicalOrigin(origin string) (canon, host string, ok bool) {
	u, err := url.Parse(strings.TrimSuffix(origin, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), strings.ToLower(u.Hostname()), true
}

// isLoopbackHost reports whether host names this machine: localhost (and
// its subdomains, which RFC 6761 reserves for loopback) or a loopback IP.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// ValidateOrigin checks that origin can be given in Config.AllowedOrigins:
// an http or https scheme://host[:port] with nothing else.
func ValidateOrigin(origin string) error {
	if _, _, ok := canonicalOrigin(origin); !ok {
		return fmt.Errorf("%q is not an origin; write it as scheme://host[:port], e.g. https://app.example:8443", origin)
	}
	return nil
}

// normalizeOrigins checks and canonicalises Config.AllowedOrigins.
func normalizeOrigins(origins []string) (map[string]bool, error) {
	out := make(map[string]bool, len(origins))
	for _, o := range origins {
		canon, _, ok := canonicalOrigin(o)
		if !ok {
			return nil, fmt.Errorf("%w: allowed origin %w", ErrConfig, ValidateOrigin(o))
		}
		out[canon] = true
	}
	return out, nil
}
