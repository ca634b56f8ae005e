package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// goServer is a go-sdk MCP server on a loopback httptest server, with
// knobs for faults and a count of the methods it received.
type goServer struct {
	srv     *sdk.Server
	url     string
	fail    atomic.Int32 // answer this many POSTs with 500
	require http.Header  // headers every request must carry (else 401)

	mu      sync.Mutex
	methods map[string]int
}

func (g *goServer) count(method string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.methods[method]
}

type textIn struct {
	Text string `json:"text,omitempty"`
	Size int    `json:"size,omitempty"`
}

// newGoServer starts the server. Stateless servers speak 2026-07-28 (the
// SDK serves that era only statelessly); stateful ones the 2025 eras.
func newGoServer(t testing.TB, stateless bool, opts *sdk.ServerOptions) *goServer {
	t.Helper()
	g := &goServer{methods: map[string]int{}}
	g.srv = sdk.NewServer(&sdk.Implementation{Name: "go-peer", Version: "1"}, opts)
	sdk.AddTool(g.srv, &sdk.Tool{Name: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
		text := in.Text
		if in.Size > 0 {
			text = strings.Repeat("x", in.Size)
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return g.srv }, &sdk.StreamableHTTPOptions{Stateless: stateless})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k := range g.require {
			if r.Header.Get(k) != g.require.Get(k) {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		if r.Method == http.MethodPost {
			if m := r.Header.Get("Mcp-Method"); m != "" {
				g.mu.Lock()
				g.methods[m]++
				g.mu.Unlock()
			}
			if g.fail.Load() > 0 && g.fail.Add(-1) >= 0 {
				http.Error(w, "internal error (injected)", http.StatusInternalServerError)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	g.url = ts.URL + "/mcp"
	return g
}

// TestHTTP500ThenRecovers: 500s while a server starts are retried within
// the startup timeout; a 500 on a call fails that call only.
func TestHTTP500ThenRecovers(t *testing.T) {
	g := newGoServer(t, false, nil)
	g.fail.Store(3)
	m, pr := newManager(t, Config{Servers: []ServerConfig{{Name: "flaky", URL: g.url}}})
	ctx := testCtx(t, 30*time.Second)
	tools := mustTools(t, ctx, m)
	if len(tools) != 1 || len(pr.all()) != 0 {
		t.Fatalf("tools = %d, problems = %v; want the server up after its 500s", len(tools), pr.all())
	}
	g.fail.Store(1)
	res := call(t, ctx, tools[0], `{"text":"a"}`)
	if !res.IsError || !strings.Contains(res.Content, "Internal Server Error") {
		t.Errorf("call during the outage = %+v, want an is_error naming the 500", res)
	}
	wantContent(t, call(t, ctx, tools[0], `{"text":"back"}`), "back")
}

func TestHTTPHeadersAndBearer(t *testing.T) {
	const token = "tok-abcdef-123456"
	g := newGoServer(t, false, nil)
	g.require = http.Header{"Authorization": {"Bearer " + token}, "X-Team": {"core"}}
	env := map[string]string{"MCP_TOKEN": token}
	sc := ServerConfig{Name: "authd", URL: g.url, Headers: Secrets{"X-Team": "core"}, BearerTokenEnvVar: "MCP_TOKEN"}
	m, _ := newManager(t, Config{Servers: []ServerConfig{sc}, Getenv: func(k string) string { return env[k] }})
	ctx := testCtx(t, 30*time.Second)
	wantContent(t, call(t, ctx, mustTools(t, ctx, m)[0], `{"text":"in"}`), "in")

	// A wrong token is refused; the error never shows it.
	env["MCP_TOKEN"] = "wrong-token-999999"
	bad, pr := newManager(t, Config{Servers: []ServerConfig{sc}, Getenv: func(k string) string { return env[k] }})
	if tools := mustTools(t, ctx, bad); len(tools) != 0 {
		t.Errorf("tools of a refused server: %d", len(tools))
	}
	p := pr.all()
	if len(p) != 1 || strings.Contains(p[0].Err.Error(), "wrong-token") || !strings.Contains(p[0].Err.Error(), "Unauthorized") ||
		!strings.Contains(p[0].Err.Error(), "the server requires authorization") {
		t.Errorf("problems = %v, want one naming the 401 and the fix, without the token", p)
	}

	delete(env, "MCP_TOKEN")
	unset, pr2 := newManager(t, Config{Servers: []ServerConfig{sc}, Getenv: func(k string) string { return env[k] }})
	mustTools(t, ctx, unset)
	if p := pr2.all(); len(p) != 1 || !strings.Contains(p[0].Err.Error(), "bearer_token_env_var names $MCP_TOKEN, which is not set") {
		t.Errorf("problems = %v", p)
	}
}

// TestModernTTLCache: in the 2026-07-28 era the tool list is cached for
// its ttlMs; a zero TTL re-lists on every use.
func TestModernTTLCache(t *testing.T) {
	for _, tc := range []struct {
		ttl   int
		lists int // after connecting (one listing) and three Tools calls
	}{{60000, 1}, {0, 4}} {
		g := newGoServer(t, true, &sdk.ServerOptions{SetCacheable: func(_ context.Context, _ sdk.Request, c *sdk.Cacheable) {
			c.TTLMs, c.CacheScope = tc.ttl, "private"
		}})
		m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "cached", URL: g.url}}})
		ctx := testCtx(t, 30*time.Second)
		for range 3 {
			mustTools(t, ctx, m)
		}
		if got := g.count("tools/list"); got != tc.lists {
			t.Errorf("ttl %d: tools/list sent %d times, want %d", tc.ttl, got, tc.lists)
		}
		if st := m.Status(ctx)[0]; st.Era != ProtocolModern {
			t.Fatalf("era = %q, want %s", st.Era, ProtocolModern)
		}
	}
}

// TestHTTPListChanged: a legacy-era HTTP server that adds a tool says so,
// and the next Tools call has it.
func TestHTTPListChanged(t *testing.T) {
	g := newGoServer(t, false, nil)
	changed := make(chan struct{}, 1)
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "grow", URL: g.url}}, OnToolsChanged: func(string) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	ctx := testCtx(t, 30*time.Second)
	if n := len(mustTools(t, ctx, m)); n != 1 {
		t.Fatalf("tools = %d", n)
	}
	time.Sleep(200 * time.Millisecond) // let the standalone SSE stream open
	sdk.AddTool(g.srv, &sdk.Tool{Name: "added"}, func(context.Context, *sdk.CallToolRequest, textIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "new"}}}, nil, nil
	})
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed")
	}
	wantContent(t, call(t, ctx, toolByName(t, mustTools(t, ctx, m), "grow__added"), `{}`), "new")
}

// TestHTTPResponseLimit: a JSON response over the message limit fails that
// call with a clear error; the connection survives.
func TestHTTPResponseLimit(t *testing.T) {
	g := newGoServer(t, false, nil)
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "big", URL: g.url}}, MaxMessageBytes: 64 << 10})
	ctx := testCtx(t, 30*time.Second)
	echo := mustTools(t, ctx, m)[0]
	res := call(t, ctx, echo, `{"size":200000}`)
	if !res.IsError || !strings.Contains(res.Content, "exceeded 65536 bytes") {
		t.Errorf("oversized = %.200q, want a limit error", res.Content)
	}
	wantContent(t, call(t, ctx, echo, `{"text":"small"}`), "small")
}

// TestHTTPCancel: cancelling a call over Streamable HTTP ends it at once
// and the server's handler sees its context cancelled (the SDK closes the
// request and sends notifications/cancelled).
func TestHTTPCancel(t *testing.T) {
	g := newGoServer(t, false, nil)
	started, stopped := make(chan struct{}, 1), make(chan struct{}, 1)
	sdk.AddTool(g.srv, &sdk.Tool{Name: "wait"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ textIn) (*sdk.CallToolResult, any, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			stopped <- struct{}{}
			return nil, nil, ctx.Err()
		case <-time.After(30 * time.Second):
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "waited"}}}, nil, nil
		}
	})
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "w", URL: g.url}}})
	ctx := testCtx(t, 30*time.Second)
	wait := toolByName(t, mustTools(t, ctx, m), "w__wait")
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		<-started
		cancel()
	}()
	start := time.Now()
	if _, err := wait.Call(cctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Error("the server never saw the cancellation")
	}
}

// TestPagination: tools/list pages are followed to the end. (A stateless
// server speaks 2026-07-28, whose Mcp-Method header lets it count pages.)
func TestPagination(t *testing.T) {
	g := newGoServer(t, true, &sdk.ServerOptions{PageSize: 2, SetCacheable: func(_ context.Context, _ sdk.Request, c *sdk.Cacheable) {
		c.TTLMs, c.CacheScope = 60000, "private"
	}})
	for _, n := range []string{"a", "b", "c", "d"} {
		sdk.AddTool(g.srv, &sdk.Tool{Name: n}, func(context.Context, *sdk.CallToolRequest, textIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: n}}}, nil, nil
		})
	}
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "paged", URL: g.url}}})
	ctx := testCtx(t, 30*time.Second)
	tools := mustTools(t, ctx, m)
	if len(tools) != 5 || g.count("tools/list") != 3 {
		t.Errorf("got %d tools over %d pages, want 5 over 3", len(tools), g.count("tools/list"))
	}
	wantContent(t, call(t, ctx, toolByName(t, tools, "paged__d"), `{}`), "d")
}
