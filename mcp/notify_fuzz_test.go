package mcp

//lint:file-ignore SA1019 the tests exercise logging, deprecated in 2026-07-28 but still served.

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzNotifications: whatever a server sends as a log message or a
// completion result, what rein passes on is bounded, printable and of a
// known level.
func FuzzNotifications(f *testing.F) {
	f.Add([]byte(`{"level":"error","logger":"db","data":"disk full"}`))
	f.Add([]byte(`{"level":"nope","data":{"a":[1,2,{"b":null}]}}`))
	f.Add([]byte(`{"completion":{"values":["a","b\u001b[2J"],"total":3,"hasMore":true}}`))
	f.Add([]byte(`{"data":"\u0000\u0007\ud800"}`))
	var got []ServerLog
	m, err := New(Config{Servers: []ServerConfig{{Name: "fz", Command: "true"}}, OnServerLog: func(l ServerLog) { got = append(got, l) }})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { m.Close() })
	s := m.servers[0]
	bad := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f })
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p sdk.LoggingMessageParams
		if json.Unmarshal(data, &p) == nil {
			got = got[:0]
			m.notes.mu.Lock()
			m.notes.buckets = nil // every input gets through the rate bound
			m.notes.mu.Unlock()
			s.onLog(t.Context(), &sdk.LoggingMessageRequest{Params: &p})
			for _, l := range got {
				if LogLevelRank(l.Level) < 0 || len(l.Text) > maxLogText+len("…") || len(l.Logger) > maxLogName+len("…") || bad(l.Text) || bad(l.Logger) || strings.Contains(l.Logger, "\n") {
					t.Fatalf("unsafe log passed on: %+v", l)
				}
			}
		}
		var r sdk.CompleteResult
		if json.Unmarshal(data, &r) == nil {
			c := completionOf(&r)
			if len(c.Values) > maxCompletions {
				t.Fatalf("%d completions", len(c.Values))
			}
			for _, v := range c.Values {
				if v == "" || len(v) > maxCompletionText+len("…") || bad(v) || strings.Contains(v, "\n") {
					t.Fatalf("unsafe completion %q", v)
				}
			}
		}
	})
}
