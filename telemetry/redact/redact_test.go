package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/telemetry/redact"
)

const knownKey = "redact-test-known-key-XYZ123"

func init() { redact.Register(knownKey) }

func TestJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean stays byte for byte", `{ "path" : "a.go",  "n": 1 }`, `{ "path" : "a.go",  "n": 1 }`},
		{"secret-named string", `{"path":"a","api_key":"abc123"}`, `{"path":"a","api_key":"[REDACTED]"}`},
		{"nested strings are redacted", `{"credentials":{"user":"u","password":"p"},"x":["Bearer abcdefgh1"]}`, `{"credentials":{"user":"u","password":"[REDACTED]"},"x":["Bearer [REDACTED]"]}`},
		{"a secret-named escaped string", `{"to\u006ben":"v\"q"}`, `{"token":"[REDACTED]"}`},
		{"secret-named number is kept", `{"password":12,"ok":true}`, `{"password":12,"ok":true}`},
		{"member order kept", `{"z":"Bearer abcdefgh123","a":"x"}`, `{"z":"Bearer [REDACTED]","a":"x"}`},
		{"known value in a nested string", `{"cmd":["curl","-H","X: ` + knownKey + `"]}`, `{"cmd":["curl","-H","X: [REDACTED]"]}`},
		{"escaped text", `{"s":"line\n\"key\" sk-proj-ABCDEFGH1234\u00e9"}`, `{"s":"line\n\"key\" [REDACTED]é"}`},
		{"not JSON is redacted as text", `{"api_key": "abc123" oops`, `{"api_key": "[REDACTED]" oops`},
	}
	for _, tt := range tests {
		got := string(redact.JSON(json.RawMessage(tt.in)))
		if got != tt.want {
			t.Errorf("%s: JSON(%s)\n got %s\nwant %s", tt.name, tt.in, got, tt.want)
		}
		if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
			t.Errorf("%s: valid input became invalid JSON: %s", tt.name, got)
		}
	}
}

func TestEventRedactsEveryTextAndNeverMutatesItsInput(t *testing.T) {
	s := "see " + knownKey
	args := json.RawMessage(`{"q":"` + knownKey + `"}`)
	msg := model.Message{Role: model.RoleAssistant, Parts: []model.Part{
		model.TextPart(s),
		{Kind: model.PartReasoning, Text: s, Signature: "opaque-signature-kept"},
		model.ToolCallPart(model.ToolCall{ID: "c", Name: "n", Args: args}),
		model.ToolResultPart(model.ToolResult{CallID: "c", Content: s}),
	}}
	orig := msg
	origParts := append([]model.Part(nil), msg.Parts...)
	ev := agent.Event{
		Type: agent.EventMessage, Text: s, Err: s, Message: &msg,
		ToolCall:   &model.ToolCall{ID: "c", Name: "n", Args: args},
		ToolResult: &model.ToolResult{CallID: "c", Content: s},
		Decision:   &agent.Decision{CallID: "c", Reason: s},
		Outcome:    &agent.Outcome{Text: s, Err: s, Reason: s},
		Verify:     &agent.VerifyInfo{Check: s, Output: s, Err: s},
		Plan:       []agent.PlanItem{{Content: "plain"}, {Content: s, ActiveForm: s}},
	}
	got := redact.Event(ev)
	enc, _ := json.Marshal(got)
	if strings.Contains(string(enc), knownKey) {
		t.Fatalf("redacted event still holds the key: %s", enc)
	}
	if !strings.Contains(string(enc), "opaque-signature-kept") {
		t.Error("the reasoning signature was changed; it must travel back unchanged")
	}
	if diff := cmp.Diff(origParts, msg.Parts); diff != "" || orig.Parts[0].Text != s {
		t.Errorf("the input message was modified (-before +after):\n%s", diff)
	}
	if ev.ToolResult.Content != s || ev.Decision.Reason != s || ev.Outcome.Text != s || string(ev.ToolCall.Args) != string(args) ||
		ev.Verify.Output != s || ev.Plan[1].Content != s {
		t.Error("the input event's parts were modified")
	}
	// Nothing to redact: the same pointers come back.
	clean := model.UserText("hello")
	ev2 := agent.Event{Type: agent.EventMessage, Message: &clean}
	if got := redact.Event(ev2); got.Message != ev2.Message {
		t.Error("a clean message was copied")
	}
}

func TestMemo(t *testing.T) {
	var m redact.Memo
	long := strings.Repeat("a", 300) + " " + knownKey
	first := m.String(long)
	if strings.Contains(first, knownKey) || m.String(long) != first {
		t.Errorf("memo result %q", first)
	}
	m.Reset()
	if m.String(long) != first {
		t.Error("memo after Reset differs")
	}
	var nilMemo *redact.Memo
	if nilMemo.String(long) != first {
		t.Error("nil memo differs")
	}
}

// FuzzJSON checks that redacting valid JSON gives valid JSON without the
// known secret, whatever the input.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `"x"`, `{"api_key":"v"}`, `{"a":{"token":["x",{"b":1}]}}`,
		`{"s":"` + knownKey + `"}`, `{"Authorization":"Bearer abcdefgh"}`, `[1,2,{"password":"p"}]`,
		`{"a":"\ud800"}`, `{"a":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := redact.JSON(data)
		if json.Valid(data) && !json.Valid(got) {
			t.Fatalf("valid input became invalid JSON:\n in %q\nout %q", data, got)
		}
		var v any
		if json.Unmarshal(got, &v) == nil {
			enc, _ := json.Marshal(v)
			if strings.Contains(string(enc), knownKey) {
				t.Fatalf("the known key survived: %q", got)
			}
		}
	})
}
