package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// event is the part of a stream-json line (agent.Event's JSON) the tests
// compare.
type event struct {
	Type      string `json:"type"`
	SessionID string `json:"session_id"`
	Text      string `json:"text"`
	ToolCall  *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"tool_call"`
	Decision *struct {
		Tool   string `json:"tool"`
		Action string `json:"action"`
		Reason string `json:"reason"`
		By     string `json:"by"`
	} `json:"decision"`
	ToolResult *struct {
		CallID  string `json:"call_id"`
		Content string `json:"content"`
		IsError bool   `json:"is_error"`
	} `json:"tool_result"`
	Message *struct {
		Role string `json:"role"`
	} `json:"message"`
	Outcome *struct {
		Kind   string `json:"kind"`
		Text   string `json:"text"`
		Reason string `json:"reason"`
	} `json:"outcome"`
}

// parseEvents decodes stream-json lines, failing the test on a line that
// is not an event.
func parseEvents(t testing.TB, ls []string) []event {
	t.Helper()
	out := make([]event, 0, len(ls))
	for i, l := range ls {
		var ev event
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Type == "" {
			t.Fatalf("stream-json line %d is not an event (%v): %s", i+1, err, l)
		}
		out = append(out, ev)
	}
	return out
}

// submitOutput splits `rein submit --follow --format stream-json` output:
// the session id (the first line), then the events.
func submitOutput(t testing.TB, stdout string) (id string, events []event) {
	t.Helper()
	ls := lines(stdout)
	if len(ls) == 0 {
		t.Fatalf("rein submit printed nothing on stdout")
	}
	return strings.TrimSpace(ls[0]), parseEvents(t, ls[1:])
}

// shape is what two runs of one script share, timings, ids and tool
// result texts aside: one line per event — its type, and the tool's
// name and canonical arguments, the decision, the message role or the
// outcome where the event has them.
func shape(events []event) []string {
	var out []string
	for _, ev := range events {
		s := ev.Type
		switch {
		case ev.ToolCall != nil && ev.Type != "tool.decision":
			s += " " + ev.ToolCall.Name
			if ev.Type == "tool.call" {
				s += " " + canonicalJSON(ev.ToolCall.Args)
			}
		case ev.Decision != nil:
			s += fmt.Sprintf(" %s %s", ev.Decision.Tool, ev.Decision.Action)
		case ev.Message != nil:
			s += " " + ev.Message.Role
		case ev.Outcome != nil:
			s += fmt.Sprintf(" %s %q", ev.Outcome.Kind, ev.Outcome.Text)
		case ev.Type == "text.delta":
			s += fmt.Sprintf(" %q", ev.Text)
		}
		out = append(out, s)
	}
	return out
}

// canonicalJSON re-encodes raw JSON (object keys sorted, no spacing) so
// that equal arguments compare equal; invalid JSON is returned as is (the
// comparison then shows it).
func canonicalJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// final is the last event's outcome, nil when the last event is not
// session.completed.
func final(events []event) *event {
	if len(events) == 0 || events[len(events)-1].Type != "session.completed" || events[len(events)-1].Outcome == nil {
		return nil
	}
	return &events[len(events)-1]
}

// toolResults are the tool.result events' contents, in order.
func toolResults(events []event) []string {
	var out []string
	for _, ev := range events {
		if ev.Type == "tool.result" && ev.ToolResult != nil {
			out = append(out, ev.ToolResult.Content)
		}
	}
	return out
}

// decisions are the tool.decision events as "TOOL ACTION BY".
func decisions(events []event) []string {
	var out []string
	for _, ev := range events {
		if ev.Type == "tool.decision" && ev.Decision != nil {
			out = append(out, ev.Decision.Tool+" "+ev.Decision.Action+" "+ev.Decision.By)
		}
	}
	return out
}
