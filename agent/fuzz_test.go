package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

// FuzzModelOutput feeds hostile tool calls (odd ids, names and argument
// bytes) through the loop: the run must never panic, must end Complete once
// the model answers, must give every call exactly one result, and must only
// send JSON-object arguments back to the model and record only events that
// encode.
func FuzzModelOutput(f *testing.F) {
	f.Add("1", "echo", []byte(`{"a":1}`), "2", "typed", []byte(`{"path":"x"}`))
	f.Add("", "", []byte(``), "", "echo", []byte(`null`))
	f.Add("x", "echo", []byte(`{"a":1,"a":2}`), "x", "echo", []byte(`{`))
	f.Add("dup", "nosuch", []byte(`[1,2,3]`), "dup", "typed", []byte(`{"path":7}`))
	f.Add("\x00", "echo\xff", []byte("{\"k\":\"\xff\"}"), "id", "ECHO", []byte(`"str"`))
	f.Add("a", "typed", []byte(`{"path":"a"}   `), "b", "typed", []byte(` {"path" : "a"}`))
	type in struct {
		Path string `json:"path"`
	}
	typed := tool.Func("typed", "needs a path", func(_ context.Context, v in) (string, error) { return v.Path, nil })
	set, err := tool.NewSet(echoTool(), typed)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, id1, name1 string, args1 []byte, id2, name2 string, args2 []byte) {
		p := modeltest.NewScripted(
			modeltest.Events(
				model.Event{Kind: model.EventTextDelta, Text: "calling"},
				model.Event{Kind: model.EventToolCallStart, ToolCall: &model.ToolCall{ID: id1, Name: name1}},
				model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: id1, Name: name1, Args: args1}},
				model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: id2, Name: name2, Args: args2}},
				model.Event{Kind: model.EventStop, StopReason: model.StopToolUse},
			),
			modeltest.Text("done"),
		)
		// The journal encodes every event: no unusable argument bytes
		// may reach one.
		a, err := New(Config{Provider: p, Tools: set, IDs: &seqIDs{}, FanOut: Sequential{}, Journal: &marshalJournal{}})
		if err != nil {
			t.Fatal(err)
		}
		c := NewConversation("fuzz")
		out, err := a.RunToEnd(context.Background(), c, "go")
		if err != nil || out.Kind != Complete || out.ToolCalls != 2 {
			t.Fatalf("outcome %+v, err %v", out, err)
		}
		if p := historyProblem(c.Messages(), true); p != "" {
			t.Fatalf("%s\n%s", p, dumpHistory(c.Messages()))
		}
		for _, tc := range p.Requests()[1].Messages[1].ToolCalls() {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(tc.Args, &obj); err != nil {
				t.Fatalf("arguments sent back are not a JSON object: %q (%v)", tc.Args, err)
			}
		}
	})
}
