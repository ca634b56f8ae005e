package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/model"
)

// TestShownJSONIsUnescaped: a tool call's arguments as an older rein
// stored them, HTML-escaped by json.Marshal (json.RawMessage keeps the
// escapes through decoding), are shown as the model wrote them, in the
// transcript and in --json; the key order is kept, arguments that do
// not parse are shown as they are, and what a terminal obeys stays
// escaped.
func TestShownJSONIsUnescaped(t *testing.T) {
	tests := []struct{ name, args, want string }{
		{"html escapes", `{"path":"n.txt","content":"a \u003e b \u0026\u0026 c \u003cd\u003e"}`, `{"path":"n.txt","content":"a > b && c <d>"}`},
		{"key order kept", `{"z":1,"a":"2\u003e\u00261"}`, `{"z":1,"a":"2>&1"}`},
		{"spaces dropped", `{ "a" : [1, 2] }`, `{"a":[1,2]}`},
		{"not json", `{"a": tru`, `{"a": tru`},
		{"escape stays escaped", `{"a":"\u001b[2J"}`, `{"a":"\u001b[2J"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := argsText(json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("argsText = %s, want %s", got, tt.want)
			}
		})
	}
	ev := agent.Event{Type: agent.EventToolCall, ToolCall: &model.ToolCall{ID: "c1", Name: "run_command",
		Args: json.RawMessage(`{"command":"make 2\u003e\u00261 | tee log","note":"\u009b31m\u202e"}`)}}
	line, err := shownJSON(ev)
	if err != nil {
		t.Fatal(err)
	}
	shown := termsafe.JSON(string(line))
	if !strings.Contains(shown, `"command":"make 2>&1 | tee log"`) || strings.ContainsAny(shown, "\u009b\u202e") {
		t.Errorf("shown line %q", shown)
	}
	var back agent.Event
	var args map[string]string
	if err := json.Unmarshal([]byte(shown), &back); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(back.ToolCall.Args, &args); err != nil || args["command"] != "make 2>&1 | tee log" || args["note"] != "\u009b31m\u202e" {
		t.Errorf("the shown line does not decode to the same call: %v %q", err, args)
	}
}
