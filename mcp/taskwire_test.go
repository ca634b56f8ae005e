package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func mustDecode(t testing.TB, s string) jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.DecodeMessage([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTaskWireRoundTrip: a tools/call marked for a task goes out with a
// task parameter, and its task handle comes back in _meta; a tools/list
// result's execution is copied to each tool's _meta; responses to
// requests rein did not track pass untouched.
func TestTaskWireRoundTrip(t *testing.T) {
	var w wireMethods
	out := w.outbound(mustDecode(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b","_meta":{"`+metaTaskRequest+`":{"ttl":5},"progressToken":3}}}`))
	var p map[string]json.RawMessage
	if err := json.Unmarshal(out.(*jsonrpc.Request).Params, &p); err != nil {
		t.Fatal(err)
	}
	if string(p["task"]) != `{"ttl":5}` || strings.Contains(string(p["_meta"]), metaTaskRequest) || !strings.Contains(string(p["_meta"]), "progressToken") {
		t.Errorf("lowered params = %s", out.(*jsonrpc.Request).Params)
	}
	in := w.inbound(mustDecode(t, `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working"}}}`))
	if r := string(in.(*jsonrpc.Response).Result); !strings.Contains(r, metaCreatedTask) || !strings.Contains(r, `"content":[]`) {
		t.Errorf("lifted result = %s", r)
	}
	again := mustDecode(t, `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1"}}}`)
	if w.inbound(again) != again {
		t.Error("a second response to the same id was lifted")
	}

	w.outbound(mustDecode(t, `{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{}}`))
	in = w.inbound(mustDecode(t, `{"jsonrpc":"2.0","id":"l","result":{"tools":[{"name":"a","execution":{"taskSupport":"required"}},{"name":"b"}]}}`))
	if r := string(in.(*jsonrpc.Response).Result); !strings.Contains(r, `"_meta":{"`+metaExecution+`":{"taskSupport":"required"}}`) {
		t.Errorf("lifted list = %s", r)
	}
	// A numeric and a string id of the same text are different requests.
	w.outbound(mustDecode(t, `{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{"name":"x"}}`))
	other := mustDecode(t, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"t"}}`)
	if w.inbound(other) != other {
		t.Error("a response to an untracked id was lifted")
	}
}

// TestTaskWireHostile: results that only look like task handles or
// listings, or are not JSON at all, pass unchanged.
func TestTaskWireHostile(t *testing.T) {
	for _, tc := range []struct{ method, result string }{
		{"tools/call", `{"content":[{"type":"text","text":"\"task\""}]}`},
		{"tools/call", `{"task":"not an object"}`},
		{"tools/call", `{"task":null}`},
		{"tools/call", `{"resultType":"task"}`},
		{"tools/call", `{"resultType":"task","taskId":7}`},
		{"tools/call", `{"task":`},
		{"tools/call", `[1,2]`},
		{"tools/list", `{"tools":"execution"}`},
		{"tools/list", `{"tools":[null,{"name":"a","execution":1,"_meta":"x"}]}`},
		{"tools/list", `{"tools":[{"execution":`},
		{"tools/list", strings.Repeat(`[`, 10000) + `"execution"`},
		{"other", `{"task":{"taskId":"x"}}`},
	} {
		if got, changed := liftResult(tc.method, json.RawMessage(tc.result)); changed || string(got) != tc.result {
			t.Errorf("%s %q: lifted to %q", tc.method, clip(tc.result, 80), clip(string(got), 80))
		}
	}
	for _, params := range []string{`{"_meta":"` + metaTaskRequest + `"}`, `{"_meta":{"` + metaTaskRequest, `null`} {
		if got, changed := lowerTaskParam(json.RawMessage(params)); changed || string(got) != params {
			t.Errorf("%q: lowered to %q", params, got)
		}
	}
}

// sseLift runs body through liftedSSE with w and returns what comes out,
// reading one byte at a time to exercise partial reads.
func sseLift(t testing.TB, w *wireMethods, body string, limit int) string {
	t.Helper()
	rc := io.NopCloser(strings.NewReader(body))
	s := &liftedSSE{rc: rc, br: bufioReader(rc), wire: w, limit: limit}
	out, err := io.ReadAll(iotest.OneByteReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestLiftedSSE: in an event stream, the event answering a tracked
// tools/call is lifted (its other fields kept), every other byte passes
// as sent, and an event over the limit or cut off passes raw.
func TestLiftedSSE(t *testing.T) {
	var w wireMethods
	w.outbound(mustDecode(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}`))
	body := ": comment\r\nevent: message\nid: 9\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\n" + "data: \"result\":{\"resultType\":\"task\",\"taskId\":\"t9\"}}\r\nid: 10\n\n"
	got := sseLift(t, &w, body, 1<<20)
	first := ": comment\r\nevent: message\nid: 9\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"
	if !strings.HasPrefix(got, first) {
		t.Errorf("untracked event changed:\n%q", got)
	}
	rest := strings.TrimPrefix(got, first)
	if !strings.HasPrefix(rest, "event: message\nid: 10\ndata: {") || !strings.Contains(rest, metaCreatedTask) || !strings.HasSuffix(rest, "}\n\n") {
		t.Errorf("lifted event = %q", rest)
	}

	var w2 wireMethods
	w2.outbound(mustDecode(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}`))
	big := "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"task\",\"taskId\":\"" + strings.Repeat("x", 200) + "\"}}\n\n"
	if got := sseLift(t, &w2, big, 100); got != big {
		t.Errorf("an event over the limit was changed: %q", clip(got, 100))
	}
	cut := "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"task\",\"taskId\":\"t\"}}"
	if got := sseLift(t, &w2, cut, 1<<20); got != cut {
		t.Errorf("a truncated event was changed: %q", got)
	}
}

// TestLiftedJSONBody: over HTTP, a JSON response to a tracked tools/call
// is lifted, and a POST body that cannot be read fails the request.
func TestLiftedJSONBody(t *testing.T) {
	trip := &httpTrip{}
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"b","_meta":{"`+metaTaskRequest+`":{}}}}`))
	low, tracked := trip.lowerBody(req)
	if !tracked {
		t.Fatal("tools/call not tracked")
	}
	sent, _ := io.ReadAll(low.Body)
	if !bytes.Contains(sent, []byte(`"task":{}`)) || int64(len(sent)) != low.ContentLength {
		t.Errorf("sent %s (length %d)", sent, low.ContentLength)
	}
	resp := &http.Response{Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":4,"result":{"task":{"taskId":"j1","status":"working"}}}`))}
	trip.liftBody(resp, true)
	got, _ := io.ReadAll(resp.Body)
	if !bytes.Contains(got, []byte(metaCreatedTask)) {
		t.Errorf("lifted body = %s", got)
	}
	notif, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if _, tracked := trip.lowerBody(notif); tracked {
		t.Error("a notification was tracked")
	}
}

// FuzzTaskWire: no input panics the lifting; lifted results are JSON;
// an event stream with no tracked request passes byte for byte.
func FuzzTaskWire(f *testing.F) {
	f.Add(`{"task":{"taskId":"a"}}`, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	f.Add(`{"tools":[{"name":"a","execution":{"taskSupport":"required"}}]}`, ": x\r\nevent: m\ndata:\ndata: y\n\n\n")
	f.Add(`{"resultType":"task","taskId":"t","_meta":{"k":1}}`, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"taskId\":\"q\"}}}")
	f.Fuzz(func(t *testing.T, result, stream string) {
		for _, m := range []string{"tools/call", "tools/list"} {
			if out, changed := liftResult(m, json.RawMessage(result)); changed && !json.Valid(out) {
				t.Fatalf("%s lifted %q to invalid JSON %q", m, result, out)
			}
		}
		_, _ = lowerTaskParam(json.RawMessage(result))
		if got := sseLift(t, &wireMethods{}, stream, 1<<16); got != stream {
			t.Fatalf("untracked stream %q came out as %q", stream, got)
		}
		var w wireMethods
		w.outbound(mustDecode(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`))
		_ = sseLift(t, &w, stream, 1<<16)
	})
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }
