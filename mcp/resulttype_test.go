package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultKinds are the results whose resultType the client checks, each
// decoded as the SDK decodes it.
var resultKinds = []func() sdk.Result{
	func() sdk.Result { return &sdk.ListToolsResult{} },
	func() sdk.Result { return &sdk.ListPromptsResult{} },
	func() sdk.Result { return &sdk.ListResourcesResult{} },
	func() sdk.Result { return &sdk.ListResourceTemplatesResult{} },
	func() sdk.Result { return &sdk.CompleteResult{} },
	func() sdk.Result { return &sdk.DiscoverResult{} },
	func() sdk.Result { return &sdk.CallToolResult{} },
	func() sdk.Result { return &sdk.GetPromptResult{} },
	func() sdk.Result { return &sdk.ReadResourceResult{} },
}

// TestResultTypeOfEveryResult pins resultTypeOf to the SDK's layout: for
// every result kind the decoded resultType is found, present or absent.
// An SDK upgrade that moves the field fails here, not silently.
func TestResultTypeOfEveryResult(t *testing.T) {
	for _, mk := range resultKinds {
		for _, tc := range []struct{ body, want string }{
			{`{"resultType":"complete"}`, "complete"},
			{`{"resultType":"input_required"}`, "input_required"},
			{`{}`, ""},
		} {
			res := mk()
			if err := json.Unmarshal([]byte(tc.body), res); err != nil {
				t.Fatalf("%T: decoding %s: %v", res, tc.body, err)
			}
			got, known := resultTypeOf(res)
			if !known || got != tc.want {
				t.Errorf("%T from %s: resultTypeOf = %q, %v; want %q, true", res, tc.body, got, known, tc.want)
			}
			err := checkResultType("srv", true, res)
			if (err != nil) != (tc.want == "") {
				t.Errorf("%T from %s, modern: err = %v", res, tc.body, err)
			}
			if err := checkResultType("srv", false, res); err != nil {
				t.Errorf("%T from %s, legacy: err = %v; older eras are lenient", res, tc.body, err)
			}
		}
	}
	if _, known := resultTypeOf(nil); known {
		t.Error("a nil result has a resultType")
	}
}

// TestResultTypeEnforced: a 2026-07-28 server whose results lack
// resultType is refused with an error naming it; the same server speaking
// 2025-11-25 (which has no resultType) is served.
func TestResultTypeEnforced(t *testing.T) {
	sc, _ := fixture(t, "sloppy", map[string]string{"FIXTURE_MODERN": "1", "FIXTURE_NO_RESULT_TYPE": "1"})
	m, pr := newManager(t, Config{Servers: []ServerConfig{sc}})
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	var msgs []string
	if err != nil {
		msgs = append(msgs, err.Error())
	}
	for _, p := range pr.all() {
		msgs = append(msgs, p.Err.Error())
	}
	all := strings.Join(msgs, "\n")
	if len(tools) != 0 || !strings.Contains(all, "server sloppy sent a 2026-07-28 result without resultType") {
		t.Fatalf("tools = %d; errors:\n%s\nwant none served and an error naming the server", len(tools), all)
	}

	sc, _ = fixture(t, "older", map[string]string{"FIXTURE_NO_RESULT_TYPE": "1"})
	m, pr = newManager(t, Config{Servers: []ServerConfig{sc}})
	tools, err = m.Tools(ctx)
	if err != nil || len(tools) == 0 {
		t.Fatalf("legacy server without resultType: tools = %d, err = %v, problems %v", len(tools), err, pr.all())
	}
	wantContent(t, call(t, ctx, toolByName(t, tools, "older__echo"), `{"text":"old"}`), "echo: old")
}

// FuzzResultDecoding decodes arbitrary bytes as each result kind, in both
// eras, and checks the verdict against the bytes themselves: a modern
// result is refused exactly when it has no resultType (a created-task
// handle excepted); an older one never is.
func FuzzResultDecoding(f *testing.F) {
	for _, s := range []string{`{}`, `{"resultType":"complete","tools":[]}`, `{"resultType":""}`, `{"content":[]}`,
		`{"resultType":7}`, `{"_meta":{"io.github.reinharness/created-task":{"taskId":"t"}}}`, `{"resultType":"task"`, `[]`, `null`} {
		f.Add([]byte(s), uint8(0), true)
		f.Add([]byte(s), uint8(6), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8, modern bool) {
		res := resultKinds[int(kind)%len(resultKinds)]()
		if json.Unmarshal(data, res) != nil {
			return
		}
		err := checkResultType("srv", modern, res)
		if !modern {
			if err != nil {
				t.Fatalf("legacy result refused: %v", err)
			}
			return
		}
		var raw struct {
			ResultType string                     `json:"resultType"`
			Meta       map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(data, &raw) != nil {
			return // the SDK's decoder accepted what encoding/json does not; no oracle
		}
		// encoding/json matches member names in any case, the SDK's own
		// decoder (CallToolResult's) exactly: where the two readings
		// differ the bytes have no single meaning to check against.
		exact := raw
		exact.ResultType, exact.Meta = "", nil
		if jsonv2.Unmarshal(data, &exact, jsonv2.RejectUnknownMembers(false)) != nil ||
			exact.ResultType != raw.ResultType || len(exact.Meta) != len(raw.Meta) ||
			string(exact.Meta[metaCreatedTask]) != string(raw.Meta[metaCreatedTask]) {
			return
		}
		_, isCall := res.(*sdk.CallToolResult)
		task := isCall && len(raw.Meta[metaCreatedTask]) > 0 && string(raw.Meta[metaCreatedTask]) != "null"
		if want := raw.ResultType == "" && !task; (err != nil) != want {
			t.Fatalf("%T from %q: err = %v, want error %v", res, data, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "server srv sent a 2026-07-28 result without resultType") {
			t.Fatalf("error does not name the server: %v", err)
		}
	})
}
