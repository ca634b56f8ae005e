package mcpserver

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBothErasOneEndpoint interleaves a 2026-07-28 client (stateless:
// server/discover, no session) and a 2025-11-25 client (initialize, a
// session) on one endpoint.
func TestBothErasOneEndpoint(t *testing.T) {
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{})})
	ts := httpServer(t, s)

	mod := httpSession(t, ts.URL, modern)
	leg := httpSession(t, ts.URL, legacy)
	if got := mod.InitializeResult().ProtocolVersion; got != modern {
		t.Errorf("modern client negotiated %q, want %q", got, modern)
	}
	if got := leg.InitializeResult().ProtocolVersion; got != legacy {
		t.Errorf("legacy client negotiated %q, want %q", got, legacy)
	}
	if mod.ID() != "" {
		t.Errorf("the modern client got session %q; 2026-07-28 is stateless", mod.ID())
	}
	if leg.ID() == "" {
		t.Error("the legacy client got no session ID")
	}
	for i := range 3 {
		for _, c := range []struct {
			era string
			cs  *sdk.ClientSession
		}{{modern, mod}, {legacy, leg}} {
			want := fmt.Sprintf("%s-%d", c.era, i)
			if text, isErr := call(t, c.cs, "echo", map[string]any{"text": want}); isErr || text != want {
				t.Fatalf("%s call %d: got isError=%v %q, want %q", c.era, i, isErr, text, want)
			}
		}
	}
	// The legacy session survives the modern traffic and is still listed.
	if n := countSessions(s); n != 1 {
		t.Errorf("the server holds %d HTTP sessions, want the legacy client's 1", n)
	}
}

func countSessions(s *Server) int {
	n := 0
	for ss := range s.sdk.Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}

// post sends one JSON-RPC body with the given extra headers.
func post(t *testing.T, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const (
	initBody  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	listBody  = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
	modernMet = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// TestRouting checks where requests go, by the answers only the intended
// handler gives.
func TestRouting(t *testing.T) {
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{}), MaxRequestBytes: 4096})
	ts := httpServer(t, s)
	modernList := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":` + modernMet + `}}`
	tests := []struct {
		name       string
		method     string
		body       string
		headers    map[string]string
		wantStatus int
		wantBody   string // substring
		wantSessID bool
	}{
		{name: "initialize opens a session", method: "POST", body: initBody, wantStatus: 200, wantSessID: true},
		{name: "initialize in a batch opens a session", method: "POST", body: "[" + initBody + "]", wantStatus: 200, wantSessID: true},
		{name: "a legacy request without a session is served statelessly", method: "POST", body: listBody,
			headers: map[string]string{"Mcp-Protocol-Version": legacy}, wantStatus: 200, wantBody: `"echo"`},
		{name: "a modern request is served statelessly", method: "POST", body: modernList,
			headers: map[string]string{"Mcp-Protocol-Version": modern, "Mcp-Method": "tools/list"}, wantStatus: 200, wantBody: `"echo"`},
		{name: "a modern request without its header is rejected as a header mismatch", method: "POST", body: modernList,
			wantStatus: 400, wantBody: "-32020"},
		{name: "initialize is removed in the modern protocol", method: "POST", body: `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"_meta":` + modernMet + `}}`,
			headers: map[string]string{"Mcp-Protocol-Version": modern, "Mcp-Method": "initialize"}, wantStatus: 404, wantBody: "-32601"},
		{name: "an unknown session is gone", method: "POST", body: listBody,
			headers: map[string]string{"Mcp-Session-Id": "no-such-session", "Mcp-Protocol-Version": legacy}, wantStatus: 404},
		{name: "GET needs a session", method: "GET", headers: map[string]string{"Accept": "text/event-stream"}, wantStatus: 400, wantBody: "Mcp-Session-Id"},
		{name: "DELETE needs a session", method: "DELETE", wantStatus: 400, wantBody: "Mcp-Session-Id"},
		{name: "GET is not part of the modern protocol", method: "GET",
			headers: map[string]string{"Accept": "text/event-stream", "Mcp-Protocol-Version": modern}, wantStatus: 405},
		{name: "an oversized body is refused before routing", method: "POST", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`,
			wantStatus: 413},
		{name: "garbage is a bad request", method: "POST", body: `{"jsonrpc":`, wantStatus: 400},
		{name: "an unsupported legacy version is refused", method: "POST", body: listBody,
			headers: map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, wantStatus: 400, wantBody: "Unsupported protocol version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, ts.URL, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.method == "POST" {
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
			}
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			resp := do(t, req)
			got := body(t, resp)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(got, tt.wantBody) {
				t.Fatalf("got %d %q; want %d containing %q", resp.StatusCode, clipText(got), tt.wantStatus, tt.wantBody)
			}
			if sid := resp.Header.Get("Mcp-Session-Id"); (sid != "") != tt.wantSessID {
				t.Errorf("Mcp-Session-Id = %q, want one: %v", sid, tt.wantSessID)
			}
		})
	}
}

// TestSessionLifecycle: a session issued by initialize is live, DELETE
// ends it, and afterwards it answers 404.
func TestSessionLifecycle(t *testing.T) {
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{})})
	ts := httpServer(t, s)
	resp := post(t, ts.URL, initBody, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	body(t, resp)
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": legacy}
	var statuses []int
	resp = post(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	statuses = append(statuses, resp.StatusCode)
	resp = post(t, ts.URL, listBody, h)
	statuses = append(statuses, resp.StatusCode)
	if b := body(t, resp); !strings.Contains(b, `"write_note"`) {
		t.Errorf("tools/list in the session: %q", clipText(b))
	}
	del, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	del.Header.Set("Mcp-Session-Id", sid)
	statuses = append(statuses, do(t, del).StatusCode)
	statuses = append(statuses, post(t, ts.URL, listBody, h).StatusCode)
	if diff := cmp.Diff([]int{202, 200, 204, 404}, statuses); diff != "" {
		t.Errorf("initialized, list, DELETE, list after DELETE (-want +got):\n%s", diff)
	}
}

func TestOrigin(t *testing.T) {
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{}), AllowedOrigins: []string{"https://App.Example:8443/"}})
	ts := httpServer(t, s)
	tests := []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{"http://localhost:3000", true},
		{"http://LOCALHOST", true},
		{"http://dev.localhost:5173", true},
		{"http://127.0.0.1:8080", true},
		{"http://127.1.2.3", true},
		{"https://[::1]:8443", true},
		{"https://app.example:8443", true},
		{"https://app.example", false},
		{"http://app.example:8443", false},
		{"https://evil.example", false},
		{"http://localhost.evil.example", false},
		{"http://127.0.0.1.evil.example", false},
		{"null", false},
		{"file://", false},
		{"http://user@localhost", false},
		{"ws://localhost", false},
		{"http://%zz", false},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			h := map[string]string{"Mcp-Protocol-Version": legacy}
			if tt.origin != "" {
				h["Origin"] = tt.origin
			}
			resp := post(t, ts.URL, listBody, h)
			b := body(t, resp)
			if got := resp.StatusCode != http.StatusForbidden; got != tt.ok {
				t.Fatalf("Origin %q: status %d %q; want allowed=%v", tt.origin, resp.StatusCode, clipText(b), tt.ok)
			}
			if !tt.ok && !strings.Contains(b, "Origin") {
				t.Errorf("the 403 does not say why: %q", b)
			}
		})
	}
}

// TestHostRebinding: a request reaching the loopback listener under a
// foreign Host name (DNS rebinding) is refused.
func TestHostRebinding(t *testing.T) {
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{})})
	ts := httpServer(t, s)
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(initBody))
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp := do(t, req); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("Host evil.example: got %d, want 403", resp.StatusCode)
	}
}
