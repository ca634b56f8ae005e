package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"time"
)

// EndpointPath is where ListenAndServe and Serve mount the MCP endpoint.
const EndpointPath = "/mcp"

// Listen's errors.
var (
	// ErrNotLoopback reports an address beyond this machine while
	// Config.AllowRemote is off.
	ErrNotLoopback = errors.New("mcpserver: refusing to listen beyond loopback")
	// ErrAddress reports a listen address that is not host:port.
	ErrAddress = errors.New("mcpserver: invalid listen address")
)

// ListenAndServe listens on addr (see Listen) and serves the MCP endpoint
// at EndpointPath until ctx ends, then shuts down gracefully (see Serve).
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := s.Listen(addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Listen opens a TCP listener for addr, which is host:port, :port or a
// bare port; an empty host means 127.0.0.1, and an empty addr
// 127.0.0.1 on a free port. Unless Config.AllowRemote is set, the host
// must be a loopback IP or localhost: the server runs tools on this
// machine and has no authentication of its own.
func (s *Server) Listen(addr string) (net.Listener, error) {
	host, port, err := splitAddr(addr)
	if err != nil {
		return nil, err
	}
	if !s.cfg.AllowRemote && !isLoopbackHost(host) {
		return nil, fmt.Errorf("%w: %q is not a loopback address; bind 127.0.0.1, [::1] or localhost, or allow remote access explicitly (and put authentication in front)", ErrNotLoopback, host)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("mcpserver: listening on %s: %w", net.JoinHostPort(host, port), err)
	}
	// localhost is resolved by the system; make sure it did mean loopback.
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !s.cfg.AllowRemote && !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("%w: %q resolved to %s", ErrNotLoopback, host, tcp.IP)
	}
	return ln, nil
}

// splitAddr splits a listen address, defaulting the host to 127.0.0.1.
func splitAddr(addr string) (host, port string, err error) {
	addr = strings.TrimSpace(addr)
	switch {
	case addr == "":
		return "127.0.0.1", "0", nil
	case isDigits(addr):
		return "127.0.0.1", addr, nil
	}
	host, port, err = net.SplitHostPort(addr)
	if err != nil {
		return "", "", fmt.Errorf("%w %q: write it as host:port, e.g. 127.0.0.1:8765", ErrAddress, addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "0"
	}
	return host, port, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// Serve serves the MCP endpoint at EndpointPath on ln until ctx ends or
// serving fails. When ctx ends it stops accepting connections, closes the
// initialize-era sessions (ending their streams and cancelling their
// calls), lets in-flight requests finish for Config.ShutdownGrace, closes
// what remains and returns nil. ln is closed on return.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, s.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not found: the MCP endpoint is "+EndpointPath, http.StatusNotFound)
	})
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// Connection-level noise (clients hanging up mid-stream) is not
		// the operator's problem; the SDK logs to Config.Logger.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("mcpserver: serving %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.closeHTTPSessions()
	grace := s.cfg.ShutdownGrace
	if grace <= 0 {
		grace = DefaultShutdownGrace
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-errc
	// Tasks outlive their requests but not the server: a command left
	// running by a task is killed with it.
	s.tasks.closeAll()
	return nil
}

// closeHTTPSessions closes the sessions the stateful handler keeps (they
// have IDs; stdio and stateless sessions do not), so their standalone
// streams end and shutdown need not wait for them.
func (s *Server) closeHTTPSessions() {
	for ss := range s.sdk.Sessions() {
		if ss.ID() != "" {
			ss.Close()
		}
	}
}
