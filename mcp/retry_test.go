package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// crashLog returns the idempotency keys of the crashonce calls the
// fixture received, in order.
func crashKeys(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, `"tools/call"`) || !strings.Contains(line, `"crashonce"`) {
			continue
		}
		_, after, ok := strings.Cut(line, `"`+MetaIdempotencyKey+`":"`)
		if !ok {
			keys = append(keys, "")
			continue
		}
		key, _, _ := strings.Cut(after, `"`)
		keys = append(keys, key)
	}
	return keys
}

// TestRetryAfterCrash: a stdio server that exits on the first call of a
// tool is restarted and the call sent once more, with the same
// idempotency key, when the tool declares itself read-only or idempotent;
// a tool without either hint is never replayed.
func TestRetryAfterCrash(t *testing.T) {
	for _, tc := range []struct {
		hint  string
		retry bool
	}{
		{"readOnlyHint", true},
		{"idempotentHint", true},
		{"destructiveHint", false},
		{"", false},
	} {
		t.Run("hint="+tc.hint, func(t *testing.T) {
			mark := filepath.Join(t.TempDir(), "crashed")
			sc, log := fixture(t, "flaky", map[string]string{"FIXTURE_CRASH_MARK": mark, "FIXTURE_CRASH_HINT": tc.hint})
			m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
			ctx := testCtx(t, 30*time.Second)
			tools, err := m.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ctx = tool.WithIdempotencyKey(ctx, "key-123")
			res, err := toolByName(t, tools, "flaky__crashonce").Call(ctx, nil)
			keys := crashKeys(t, log)
			if !tc.retry {
				if err == nil {
					t.Fatalf("result %+v, want the crash as an error", res)
				}
				if !strings.Contains(err.Error(), "not retried") || !strings.Contains(err.Error(), "exited with status 4") {
					t.Errorf("error %q does not say the call crashed and was not retried", err)
				}
				if len(keys) != 1 {
					t.Errorf("crashonce was sent %d times, want once", len(keys))
				}
				return
			}
			if err != nil {
				t.Fatalf("retried call failed: %v", err)
			}
			if !strings.Contains(res.Content, "key key-123") {
				t.Errorf("result %q, want the restarted server's answer with the key", res.Content)
			}
			if len(keys) != 2 || keys[0] != "key-123" || keys[1] != "key-123" {
				t.Errorf("crashonce calls carried keys %q, want key-123 twice", keys)
			}
		})
	}
}

// flakyHTTP is a go-sdk server on loopback whose next tools/call POSTs
// are answered with a status code instead (failCalls of them).
type flakyHTTP struct {
	url       string
	status    int
	failCalls atomic.Int32
	mu        sync.Mutex
	keys      map[string][]string // tool → idempotency keys of the calls that ran
}

func newFlakyHTTP(t *testing.T, status int) *flakyHTTP {
	f := &flakyHTTP{status: status, keys: map[string][]string{}}
	srv := sdk.NewServer(&sdk.Implementation{Name: "flaky-http", Version: "1"}, nil)
	handler := func(name string) sdk.ToolHandlerFor[textIn, any] {
		return func(_ context.Context, req *sdk.CallToolRequest, _ textIn) (*sdk.CallToolResult, any, error) {
			key, _ := req.Params.GetMeta()[MetaIdempotencyKey].(string)
			f.mu.Lock()
			f.keys[name] = append(f.keys[name], key)
			f.mu.Unlock()
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + " done"}}}, nil, nil
		}
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "lookup", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, handler("lookup"))
	sdk.AddTool(srv, &sdk.Tool{Name: "write"}, handler("write"))
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"tools/call"`)) && f.failCalls.Load() > 0 && f.failCalls.Add(-1) >= 0 {
				http.Error(w, "bad gateway (injected)", f.status)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	f.url = ts.URL + "/mcp"
	return f
}

func (f *flakyHTTP) ran(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.keys[name]...)
}

// TestRetryAfterHTTP502: a 502 to a tools/call is retried once, with the
// same key, for a read-only tool, and not for a tool without hints; two
// 502s in a row fail the read-only call after one retry.
func TestRetryAfterHTTP502(t *testing.T) {
	f := newFlakyHTTP(t, http.StatusBadGateway)
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "web", URL: f.url}}})
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ctx = tool.WithIdempotencyKey(ctx, "k-502")

	f.failCalls.Store(1)
	res, err := toolByName(t, tools, "web__lookup").Call(ctx, nil)
	if err != nil || res.Content != "lookup done" {
		t.Fatalf("lookup after one 502: %+v, %v", res, err)
	}
	if got := f.ran("lookup"); len(got) != 1 || got[0] != "k-502" {
		t.Errorf("lookup ran with keys %q, want once with k-502", got)
	}

	f.failCalls.Store(1)
	if res, err := toolByName(t, tools, "web__write").Call(ctx, nil); err == nil {
		t.Fatalf("write after a 502 = %+v, want the failure (no retry)", res)
	}
	if got := f.ran("write"); len(got) != 0 {
		t.Errorf("write ran %d times after a 502, want never", len(got))
	}
	if n := f.failCalls.Load(); n != 0 {
		t.Errorf("%d injected failures left", n)
	}

	f.failCalls.Store(2)
	_, err = toolByName(t, tools, "web__lookup").Call(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "retried once") {
		t.Errorf("lookup after two 502s: err %v, want a failure saying it was retried once", err)
	}
	if n := f.failCalls.Load(); n != 0 {
		t.Errorf("lookup was sent %d times fewer than twice", n)
	}
}
