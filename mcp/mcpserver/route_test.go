package mcpserver

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestHasInitialize(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, true},
		{`  {"jsonrpc":"2.0","id":"a","method":"initialize"}  `, true},
		{`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"\u0069nitialize"}`, true}, // JSON escapes decode to the same name
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
		{`{"jsonrpc":"2.0","method":"initialize"}`, false},           // a notification, not a request
		{`{"jsonrpc":"2.0","id":null,"method":"initialize"}`, false}, // a null id is no request id
		{`{"jsonrpc":"2.0","id":1,"METHOD":"initialize"}`, false},    // member names are case-sensitive
		{`{"jsonrpc":"2.0","id":1,"method":"Initialize"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, false},
		{`[1, {"jsonrpc":"2.0","id":1,"method":"initialize"}]`, true}, // one bad batch member does not hide the others
		{`[]`, false},
		{``, false},
		{`   `, false},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"`, false}, // truncated
		{`["initialize"]`, false},
		{`"initialize"`, false},
		{`{"method":"initialize","id":1,"method":"tools/list"}`, false}, // duplicate names are invalid JSON here
		{"\xff\xfe", false},
	}
	for _, tt := range tests {
		if got := hasInitialize([]byte(tt.body)); got != tt.want {
			t.Errorf("hasInitialize(%q) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

func TestRouteHead(t *testing.T) {
	tests := []struct {
		name    string
		method  string
		headers map[string]string
		want    route
		decided bool
	}{
		{"session", "POST", map[string]string{"Mcp-Session-Id": "s"}, toStateful, true},
		{"session beats a modern header", "POST", map[string]string{"Mcp-Session-Id": "s", "Mcp-Protocol-Version": modern}, toStateful, true},
		{"modern header", "POST", map[string]string{"Mcp-Protocol-Version": modern}, toStateless, true},
		{"a later revision", "POST", map[string]string{"Mcp-Protocol-Version": "2027-01-01"}, toStateless, true},
		{"modern GET", "GET", map[string]string{"Mcp-Protocol-Version": modern}, toStateless, true},
		{"legacy GET", "GET", nil, toStateful, true},
		{"DELETE", "DELETE", nil, toStateful, true},
		{"legacy POST needs the body", "POST", map[string]string{"Mcp-Protocol-Version": legacy}, toStateless, false},
		{"bare POST needs the body", "POST", nil, toStateless, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest(tt.method, "http://127.0.0.1/mcp", nil)
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			got, decided := routeHead(r)
			if decided != tt.decided || (decided && got != tt.want) {
				t.Errorf("routeHead = %v, %v; want %v, %v", got, decided, tt.want, tt.decided)
			}
		})
	}
}

// FuzzHasInitialize checks the router's body reader on hostile input: it
// never panics, and whatever it takes for an initialize is one by an
// independent decoding (a JSON object, or a batch member, whose "method"
// is exactly "initialize" and whose id is not null).
func FuzzHasInitialize(f *testing.F) {
	for _, s := range []string{
		initBody, listBody, "[" + initBody + "," + listBody + "]", `{"method":"initialize"}`,
		`[{"id":1,"method":"initialize"}]`, `{"id":{},"method":"initialize"}`, `{`, `[`, `null`, "",
		`{"id":1,"method":"initialize","params":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if hasInitialize(body) && !oracleInitialize(body) {
			t.Fatalf("hasInitialize found an initialize in %q", body)
		}
	})
}

// oracleInitialize decodes with encoding/json into generic values, whose
// object keys (unlike struct fields) match exactly.
func oracleInitialize(body []byte) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	one := func(v any) bool {
		m, ok := v.(map[string]any)
		id, hasID := m["id"]
		return ok && m["method"] == "initialize" && hasID && id != nil
	}
	if batch, ok := v.([]any); ok {
		for _, m := range batch {
			if one(m) {
				return true
			}
		}
		return false
	}
	return one(v)
}

// FuzzOrigin checks the Origin check on hostile headers: it never panics,
// and an origin it accepts is an http(s) origin naming this machine (or
// the one configured origin).
func FuzzOrigin(f *testing.F) {
	for _, s := range []string{
		"", "null", "http://localhost", "https://[::1]:443", "http://127.0.0.1.evil", "http://a.localhost.",
		"https://app.example:8443", "http://[::ffff:127.0.0.1]", "http://%31%32%37.0.0.1", "http://0x7f.1",
		"javascript:alert(1)", "http://user:pw@localhost", "http://localhost/path", "\x00", "http://[",
	} {
		f.Add(s)
	}
	s := &Server{origins: map[string]bool{"https://app.example:8443": true}}
	f.Fuzz(func(t *testing.T, origin string) {
		if !s.originAllowed(origin) || origin == "" {
			return
		}
		canon, host, ok := canonicalOrigin(origin)
		if !ok || !(strings.HasPrefix(canon, "http://") || strings.HasPrefix(canon, "https://")) {
			t.Fatalf("accepted %q, which is not an http(s) origin", origin)
		}
		host = strings.TrimSuffix(host, ".") // a fully qualified name
		if canon != "https://app.example:8443" && host != "localhost" && !strings.HasSuffix(host, ".localhost") {
			if ip := net.ParseIP(strings.Trim(host, "[]")); ip == nil || !ip.IsLoopback() {
				t.Fatalf("accepted %q (host %q), which is not loopback", origin, host)
			}
		}
	})
}
