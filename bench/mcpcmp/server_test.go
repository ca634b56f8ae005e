package mcpcmp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mgserver "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp/mcpserver"
)

// legacyEra is the protocol version the client speaks to every server:
// the one all three serve over both transports.
const legacyEra = "2025-11-25"

var callerCounts = []int{1, 8, 64}

// serverImpl starts one server on a transport and returns a go-sdk
// client session to it; calls counts the tool's executions.
type serverImpl struct {
	name  string
	stdio func(ctx context.Context, calls *atomic.Int64, in io.Reader, out io.Writer) error
	http  func(tb testing.TB, calls *atomic.Int64) string // the endpoint URL
}

var serverImpls = []serverImpl{
	{"rein", nil, nil}, // filled in init: it needs a testing.TB
	{"go-sdk",
		func(ctx context.Context, calls *atomic.Int64, in io.Reader, out io.Writer) error {
			srv, _ := goSDKServer(calls)
			return srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
		},
		func(tb testing.TB, calls *atomic.Int64) string {
			_, h := goSDKServer(calls)
			return serveHTTP(tb, h, "")
		}},
	{"mcp-go",
		func(ctx context.Context, calls *atomic.Int64, in io.Reader, out io.Writer) error {
			return mgserver.NewStdioServer(mcpGoServer(calls)).Listen(ctx, in, out)
		},
		func(tb testing.TB, calls *atomic.Int64) string {
			return serveHTTP(tb, mgserver.NewStreamableHTTPServer(mcpGoServer(calls)), "/mcp")
		}},
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func serveHTTP(tb testing.TB, h http.Handler, path string) string {
	ts := httptest.NewServer(h)
	tb.Cleanup(ts.Close)
	return ts.URL + path
}

// connect starts impl on the transport and returns a client session.
func connect(tb testing.TB, impl serverImpl, transport string, calls *atomic.Int64) *sdk.ClientSession {
	opts := &sdk.ClientSessionOptions{ProtocolVersion: legacyEra}
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	if transport == "http" {
		url := ""
		if impl.name == "rein" {
			url = serveHTTP(tb, reinServer(tb, calls).Handler(), mcpserver.EndpointPath)
		} else {
			url = impl.http(tb, calls)
		}
		cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, opts)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { cs.Close() })
		return cs
	}
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	serve := impl.stdio
	if impl.name == "rein" {
		s := reinServer(tb, calls)
		serve = func(ctx context.Context, _ *atomic.Int64, in io.Reader, out io.Writer) error {
			return s.ServeStdio(ctx, in, out)
		}
	}
	go func() {
		defer close(done)
		serve(ctx, calls, serverIn, serverOut)
	}()
	cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cs.Close()
		cancel()
		clientOut.Close()
		serverOut.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			tb.Errorf("%s stdio server did not stop", impl.name)
		}
	})
	return cs
}

// hammer makes n echo calls from callers goroutines and returns the
// first wrong answer or error.
func hammer(ctx context.Context, cs *sdk.ClientSession, callers, n int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	echo := sdkEcho(cs)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				text := "c" + strconv.FormatInt(i, 10)
				if got, err := echo(ctx, text); err != nil || got != text {
					errs <- fmt.Errorf("echo(%q) = %q, %v", text, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// TestCorrectMCPServer checks every server answers every concurrent
// call with its own text and ran the tool exactly once per call.
func TestCorrectMCPServer(t *testing.T) {
	for _, tr := range []string{"stdio", "http"} {
		for _, im := range serverImpls {
			t.Run(tr+"/"+im.name, func(t *testing.T) {
				var calls atomic.Int64
				cs := connect(t, im, tr, &calls)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				const n = 500
				if err := hammer(ctx, cs, 64, n); err != nil {
					t.Fatal(err)
				}
				if got := calls.Load(); got != n {
					t.Fatalf("tool ran %d times for %d calls", got, n)
				}
			})
		}
	}
}

// BenchmarkMCPServer reports calls/s at each number of callers.
func BenchmarkMCPServer(b *testing.B) {
	for _, tr := range []string{"stdio", "http"} {
		for _, callers := range callerCounts {
			for _, im := range serverImpls {
				b.Run(fmt.Sprintf("transport=%s/callers=%d/impl=%s", tr, callers, im.name), func(b *testing.B) {
					var calls atomic.Int64
					cs := connect(b, im, tr, &calls)
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
					defer cancel()
					b.ReportAllocs()
					b.ResetTimer()
					if err := hammer(ctx, cs, callers, b.N); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
				})
			}
		}
	}
}
