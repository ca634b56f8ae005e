package mcpserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestListenRefusesBeyondLoopback(t *testing.T) {
	s := newTestServer(t, Config{})
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.0.2.1:0", "example.com:8080", "10.0.0.1"} {
		t.Run(addr, func(t *testing.T) {
			ln, err := s.Listen(addr)
			if err == nil {
				ln.Close()
				t.Fatalf("Listen(%q) bound %s; want a refusal", addr, ln.Addr())
			}
			if !errors.Is(err, ErrNotLoopback) && !errors.Is(err, ErrAddress) {
				t.Fatalf("Listen(%q): %v; want ErrNotLoopback", addr, err)
			}
		})
	}
}

func TestListenLoopback(t *testing.T) {
	s := newTestServer(t, Config{})
	tests := []struct{ addr, wantHost string }{
		{"", "127.0.0.1"},
		{":0", "127.0.0.1"},
		{"127.0.0.1:0", "127.0.0.1"},
		{"localhost:0", ""}, // 127.0.0.1 or ::1, whichever the system resolves
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			ln, err := s.Listen(tt.addr)
			if err != nil {
				t.Fatalf("Listen(%q): %v", tt.addr, err)
			}
			defer ln.Close()
			tcp := ln.Addr().(*net.TCPAddr)
			if !tcp.IP.IsLoopback() || (tt.wantHost != "" && tcp.IP.String() != tt.wantHost) {
				t.Errorf("Listen(%q) bound %s; want %s", tt.addr, tcp, tt.wantHost)
			}
		})
	}
	if _, err := s.Listen("127.0.0.1:port"); err == nil {
		t.Error("Listen accepted a non-numeric port")
	}
	if _, err := s.Listen("no-port-here"); !errors.Is(err, ErrAddress) || !strings.Contains(err.Error(), "host:port") {
		t.Errorf("Listen(no-port-here): %v; want an explanation of the form", err)
	}
}

// TestServeShutdown: Serve mounts the endpoint at /mcp, and ending its
// context closes live sessions (standalone streams included) and returns
// nil promptly, well within the grace period.
func TestServeShutdown(t *testing.T) {
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{}), ShutdownGrace: 10 * time.Second})
	ln, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()

	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /: %d, want 404", resp.StatusCode)
	}

	// A legacy client keeps a standalone SSE stream open.
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + EndpointPath, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if text, isErr := call(t, cs, "echo", map[string]any{"text": "up"}); isErr || text != "up" {
		t.Fatalf("call before shutdown: %v %q", isErr, text)
	}

	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve returned %v after its context ended; want nil", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("shutdown took %v; open sessions should not hold it for the grace period", took)
	}
	if n := countSessions(s); n != 0 {
		t.Errorf("%d HTTP sessions survived shutdown", n)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("the listener still accepts connections after shutdown")
	}
}

func TestServeFailure(t *testing.T) {
	s := newTestServer(t, Config{})
	ln, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // serving a closed listener fails at once
	err = s.Serve(context.Background(), ln)
	if err == nil || !strings.Contains(err.Error(), "serving") {
		t.Fatalf("Serve on a closed listener: %v; want an error", err)
	}
}
