package mcpserver

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// The protocol versions the tests speak.
const (
	modern = "2026-07-28"
	legacy = "2025-11-25"
)

// deciderFunc is a policy.Decider from a function.
type deciderFunc func(context.Context, policy.Call) policy.Decision

func (f deciderFunc) Decide(ctx context.Context, c policy.Call) policy.Decision { return f(ctx, c) }

// allow is a policy allowing everything.
var allow = deciderFunc(func(context.Context, policy.Call) policy.Decision {
	return policy.Decision{Action: policy.Allow, Reason: "test allows", Rule: "test:allow"}
})

// approverFunc is a policy.Approver from a function.
type approverFunc func(context.Context, policy.Call, policy.Decision) (policy.Decision, error)

func (f approverFunc) Approve(ctx context.Context, c policy.Call, d policy.Decision) (policy.Decision, error) {
	return f(ctx, c, d)
}

// echoIn is the echo tool's input.
type echoIn struct {
	Text string `json:"text"`
}

// keyRecorder remembers the idempotency keys its tools were called with.
type keyRecorder struct {
	mu   sync.Mutex
	keys []string
}

func (k *keyRecorder) add(ctx context.Context) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys = append(k.keys, tool.IdempotencyKey(ctx))
}

func (k *keyRecorder) all() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.keys...)
}

// testTools returns a pure echo tool, a file writer and a command runner;
// each records its call's idempotency key in keys.
func testTools(t testing.TB, keys *keyRecorder) *tool.Set {
	t.Helper()
	set, err := buildTestTools(keys)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func buildTestTools(keys *keyRecorder) (*tool.Set, error) {
	echo := tool.Func("echo", "Echo the text back.", func(ctx context.Context, in echoIn) (string, error) {
		keys.add(ctx)
		return in.Text, nil
	})
	writer := tool.Func("write_note", "Write a note.", func(ctx context.Context, in echoIn) (string, error) {
		keys.add(ctx)
		return "wrote " + in.Text, nil
	}, tool.WithEffects(tool.Effects{WritesFiles: true}))
	type cmdIn struct {
		Command string `json:"command"`
	}
	runner := tool.Func("run", "Run a command.", func(ctx context.Context, in cmdIn) (string, error) {
		keys.add(ctx)
		return "ran " + in.Command, nil
	}, tool.WithEffects(tool.Effects{Exec: true, CommandArg: "command"}))
	return tool.NewSet(echo, writer, runner)
}

// newTestServer builds a server or fails the test.
func newTestServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Policy == nil {
		cfg.Policy = allow
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stdioSession serves s over a pair of pipes with ServeStdio and connects a
// go-sdk client speaking version.
func stdioSession(t testing.TB, s *Server, version string) *sdk.ClientSession {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(ctx, serverIn, serverOut)
		serverOut.Close()
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "rein-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		cancel()
		t.Fatalf("connecting over stdio (%s): %v", version, err)
	}
	t.Cleanup(func() {
		cs.Close()
		clientOut.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return after the client closed")
		}
	})
	return cs
}

// httpSession connects a go-sdk client speaking version to url.
func httpSession(t testing.TB, url, version string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "rein-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting over HTTP (%s): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// tryCall connects to url speaking version, calls a tool and hangs up; it
// is safe on any goroutine (it does not fail the test itself).
func tryCall(url, version, name string, args any) (string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "rein-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return "", false, err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false, err
	}
	return resultText(res), res.IsError, nil
}

// httpServer serves s.Handler on a loopback httptest server.
func httpServer(t testing.TB, s *Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return ts
}

// call calls a tool and returns its text and isError.
func call(t testing.TB, cs *sdk.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return resultText(res), res.IsError
}

func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var errTest = errors.New("test failure")
