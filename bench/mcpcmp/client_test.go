package mcpcmp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	mgclient "github.com/mark3labs/mcp-go/client"
	mgmcp "github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp"
)

// echoCall is one client's tools/call echo: it returns the text the
// server sent back.
type echoCall func(ctx context.Context, text string) (string, error)

type clientImpl struct {
	name    string
	connect func(tb testing.TB, stdio bool, url string) echoCall
}

var clientImpls = []clientImpl{
	{"rein", reinClient},
	{"go-sdk", goSDKClient},
	{"mcp-go", mcpGoClient},
}

func exe(tb testing.TB) string {
	p, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func reinClient(tb testing.TB, stdio bool, url string) echoCall {
	sc := mcp.ServerConfig{Name: "bench", URL: url}
	if stdio {
		sc = mcp.ServerConfig{Name: "bench", Command: exe(tb), Env: mcp.Secrets{serveEnv: "go-sdk"}}
	}
	m, err := mcp.New(mcp.Config{Servers: []mcp.ServerConfig{sc}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	tools, err := m.Tools(context.Background())
	if err != nil || len(tools) != 1 {
		tb.Fatalf("rein tools: %v, %v", tools, err)
	}
	echo := tools[0]
	return func(ctx context.Context, text string) (string, error) {
		args, _ := json.Marshal(echoIn{text})
		res, err := echo.Call(ctx, args)
		if err != nil {
			return "", err
		}
		return res.Content, nil
	}
}

func goSDKClient(tb testing.TB, stdio bool, url string) echoCall {
	var t sdk.Transport = &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}
	if stdio {
		cmd := exec.Command(exe(tb))
		cmd.Env = append(os.Environ(), serveEnv+"=go-sdk")
		t = &sdk.CommandTransport{Command: cmd}
	}
	cs := sdkSession(tb, t)
	return sdkEcho(cs)
}

func sdkSession(tb testing.TB, t sdk.Transport) *sdk.ClientSession {
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	cs, err := c.Connect(context.Background(), t, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

func sdkEcho(cs *sdk.ClientSession) echoCall {
	return func(ctx context.Context, text string) (string, error) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
		if err != nil {
			return "", err
		}
		if len(res.Content) != 1 {
			return "", nil
		}
		tc, _ := res.Content[0].(*sdk.TextContent)
		if tc == nil {
			return "", nil
		}
		return tc.Text, nil
	}
}

func mcpGoClient(tb testing.TB, stdio bool, url string) echoCall {
	var c *mgclient.Client
	var err error
	if stdio {
		c, err = mgclient.NewStdioMCPClient(exe(tb), append(os.Environ(), serveEnv+"=go-sdk"))
	} else {
		c, err = mgclient.NewStreamableHttpClient(url)
		if err == nil {
			err = c.Start(context.Background())
		}
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var init mgmcp.InitializeRequest
	// The era every client here speaks to the go-sdk server (its stateful
	// HTTP handler serves only the initialize era).
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mgmcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		tb.Fatal(err)
	}
	return func(ctx context.Context, text string) (string, error) {
		var req mgmcp.CallToolRequest
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"text": text}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return "", err
		}
		if len(res.Content) != 1 {
			return "", nil
		}
		tc, _ := mgmcp.AsTextContent(res.Content[0])
		if tc == nil {
			return "", nil
		}
		return tc.Text, nil
	}
}

// clientTransports are the client comparison's points; url starts the
// loopback go-sdk server when needed.
func clientTransports(tb testing.TB) []struct {
	name  string
	stdio bool
	url   string
} {
	_, h := goSDKServer(nil)
	ts := httptest.NewServer(h)
	tb.Cleanup(ts.Close)
	return []struct {
		name  string
		stdio bool
		url   string
	}{{"stdio", true, ""}, {"http", false, ts.URL}}
}

// TestCorrectMCPClient checks every client gets each distinct text back
// over both transports.
func TestCorrectMCPClient(t *testing.T) {
	for _, tr := range clientTransports(t) {
		for _, im := range clientImpls {
			t.Run(tr.name+"/"+im.name, func(t *testing.T) {
				call := im.connect(t, tr.stdio, tr.url)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				for _, text := range []string{"ping", "é\"\n<x>", ""} {
					got, err := call(ctx, text)
					if err != nil || got != text {
						t.Fatalf("echo(%q) = %q, %v", text, got, err)
					}
				}
			})
		}
	}
}

func BenchmarkMCPClient(b *testing.B) {
	for _, tr := range clientTransports(b) {
		for _, im := range clientImpls {
			b.Run("transport="+tr.name+"/impl="+im.name, func(b *testing.B) {
				call := im.connect(b, tr.stdio, tr.url)
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				b.ReportAllocs()
				for b.Loop() {
					if got, err := call(ctx, "ping"); err != nil || got != "ping" {
						b.Fatalf("echo = %q, %v", got, err)
					}
				}
			})
		}
	}
}
