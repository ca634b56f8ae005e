package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkToolsCall compares one tools/call round trip through rein's
// adapter (Manager, tool.Tool.Call, rendering) with the same call made on
// a raw go-sdk ClientSession, against the same go-sdk peer: over stdio (the
// test binary re-executed as a go-sdk server) and over Streamable HTTP (a
// loopback httptest server).
func BenchmarkToolsCall(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"text":"ping"}`)

	b.Run("stdio/raw-sdk", func(b *testing.B) {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "REIN_MCP_FIXTURE=gosdk")
		benchRaw(b, &sdk.CommandTransport{Command: cmd})
	})
	b.Run("stdio/rein", func(b *testing.B) {
		benchRein(b, ServerConfig{Name: "bench", Command: exe, Env: Secrets{"REIN_MCP_FIXTURE": "gosdk"}}, args)
	})

	srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	b.Run("http/raw-sdk", func(b *testing.B) {
		benchRaw(b, &sdk.StreamableClientTransport{Endpoint: ts.URL})
	})
	b.Run("http/rein", func(b *testing.B) {
		benchRein(b, ServerConfig{Name: "bench", URL: ts.URL}, args)
	})
}

func benchRaw(b *testing.B, t sdk.Transport) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.ResetTimer()
	for range b.N {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping"}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

func benchRein(b *testing.B, sc ServerConfig, args json.RawMessage) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	m, err := New(Config{Servers: []ServerConfig{sc}})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	tools, err := m.Tools(ctx)
	if err != nil || len(tools) != 1 {
		b.Fatalf("tools: %v, %v", tools, err)
	}
	echo := tools[0]
	b.ResetTimer()
	for range b.N {
		res, err := echo.Call(ctx, args)
		if err != nil || res.IsError || res.Content != "ping" {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkAdapterOverhead measures the same comparison in pairs: each
// iteration makes one call on a raw go-sdk session and one through rein's
// adapter, against the same peer, alternating which goes first, so that
// both see the same machine load. It reports the mean of each and rein's
// overhead in percent.
func BenchmarkAdapterOverhead(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	for _, tc := range []struct {
		name string
		raw  func() sdk.Transport
		rein ServerConfig
	}{
		{"stdio", func() sdk.Transport {
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), "REIN_MCP_FIXTURE=gosdk")
			return &sdk.CommandTransport{Command: cmd}
		}, ServerConfig{Name: "bench", Command: exe, Env: Secrets{"REIN_MCP_FIXTURE": "gosdk"}}},
		{"http", func() sdk.Transport { return &sdk.StreamableClientTransport{Endpoint: ts.URL} },
			ServerConfig{Name: "bench", URL: ts.URL}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
			cs, err := c.Connect(ctx, tc.raw(), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			m, err := New(Config{Servers: []ServerConfig{tc.rein}})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			tools, err := m.Tools(ctx)
			if err != nil || len(tools) != 1 {
				b.Fatalf("tools: %v, %v", tools, err)
			}
			echo, args := tools[0], json.RawMessage(`{"text":"ping"}`)
			raw := func() {
				if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping"}}); err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			rein := func() {
				if res, err := echo.Call(ctx, args); err != nil || res.IsError || res.Content != "ping" {
					b.Fatal(err, res)
				}
			}
			var rawT, reinT time.Duration
			b.ResetTimer()
			for i := range b.N {
				first, second, t1, t2 := raw, rein, &rawT, &reinT
				if i%2 == 1 {
					first, second, t1, t2 = rein, raw, &reinT, &rawT
				}
				s := time.Now()
				first()
				mid := time.Now()
				second()
				*t1 += mid.Sub(s)
				*t2 += time.Since(mid)
			}
			b.ReportMetric(float64(rawT.Nanoseconds())/float64(b.N), "raw-ns/call")
			b.ReportMetric(float64(reinT.Nanoseconds())/float64(b.N), "rein-ns/call")
			b.ReportMetric(100*(float64(reinT)-float64(rawT))/float64(rawT), "overhead-%")
		})
	}
}
