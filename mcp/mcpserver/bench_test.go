package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkToolsCall measures a tools/call round trip through rein's
// server (policy decision, tool.Invoke with its timeout and result cap,
// result rendering) against the same tool written directly on the go-sdk,
// over stdio pipes and over HTTP in both eras. The difference is the cost
// of rein's adapter.
func BenchmarkToolsCall(b *testing.B) {
	args := map[string]any{"text": "hello"}
	for _, tr := range []struct {
		name    string
		connect func(b *testing.B, srv *sdk.Server, h http.Handler) *sdk.ClientSession
	}{
		{"stdio", func(b *testing.B, srv *sdk.Server, _ http.Handler) *sdk.ClientSession {
			return benchStdio(b, srv)
		}},
		{"http-2025-11-25", func(b *testing.B, _ *sdk.Server, h http.Handler) *sdk.ClientSession {
			return benchHTTP(b, h, legacy)
		}},
		{"http-2026-07-28", func(b *testing.B, _ *sdk.Server, h http.Handler) *sdk.ClientSession {
			return benchHTTP(b, h, modern)
		}},
	} {
		for _, impl := range []string{"rein", "go-sdk"} {
			b.Run(tr.name+"/"+impl, func(b *testing.B) {
				srv, h := reinServerForBench(b)
				if impl == "go-sdk" {
					srv, h = rawServerForBench(tr.name)
				}
				cs := tr.connect(b, srv, h)
				ctx := context.Background()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: args})
					if err != nil || res.IsError {
						b.Fatalf("call: %v %+v", err, res)
					}
				}
			})
		}
	}
}

// reinServerForBench is rein's server with the echo tool and a policy
// allowing it.
func reinServerForBench(b *testing.B) (*sdk.Server, http.Handler) {
	s := newTestServer(b, Config{Tools: testTools(b, &keyRecorder{})})
	return s.sdk, s.Handler()
}

// rawServerForBench is the echo tool on the go-sdk alone, with the handler
// a go-sdk server uses for the era.
func rawServerForBench(transport string) (*sdk.Server, http.Handler) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "raw", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
		})
	get := func(*http.Request) *sdk.Server { return srv }
	return srv, sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{Stateless: transport == "http-2026-07-28"})
}

func benchStdio(b *testing.B, srv *sdk.Server) *sdk.ClientSession {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Run(ctx, &sdk.IOTransport{Reader: serverIn, Writer: serverOut})
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, &sdk.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		cancel()
		clientOut.Close()
		serverOut.Close()
		<-done
	})
	return cs
}

func benchHTTP(b *testing.B, h http.Handler, version string) *sdk.ClientSession {
	ts := httptest.NewServer(h)
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		ts.Close()
	})
	return cs
}
