package telemetry

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// Truncate returns ev with tool arguments and results longer than max
// bytes cut, in the tool.call and tool.result events and in messages. Cut
// arguments become a JSON string holding their first max bytes and a
// marker (they are no longer an object, which tells a reader they were
// cut); cut results keep their first max bytes and a marker. ev is not
// modified.
func Truncate(ev agent.Event, max int) agent.Event {
	if ev.ToolCall != nil && len(ev.ToolCall.Args) > max {
		c := *ev.ToolCall
		c.Args = cutArgs(c.Args, max)
		ev.ToolCall = &c
	}
	if ev.ToolResult != nil && len(ev.ToolResult.Content) > max {
		r := *ev.ToolResult
		r.Content = cutText(r.Content, max)
		ev.ToolResult = &r
	}
	if ev.Message != nil {
		if m, ok := cutMessage(*ev.Message, max); ok {
			ev.Message = &m
		}
	}
	return ev
}

func cutMessage(m model.Message, max int) (model.Message, bool) {
	var parts []model.Part
	for i, p := range m.Parts {
		switch {
		case p.ToolCall != nil && len(p.ToolCall.Args) > max:
			c := *p.ToolCall
			c.Args = cutArgs(c.Args, max)
			p.ToolCall = &c
		case p.ToolResult != nil && len(p.ToolResult.Content) > max:
			r := *p.ToolResult
			r.Content = cutText(r.Content, max)
			p.ToolResult = &r
		default:
			continue
		}
		if parts == nil {
			parts = append([]model.Part(nil), m.Parts...)
		}
		parts[i] = p
	}
	if parts == nil {
		return m, false
	}
	m.Parts = parts
	return m, true
}

// cutText keeps the first max bytes of s, on a UTF-8 boundary, and says
// how long s was.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + truncatedMarker(len(s))
}

func cutArgs(args json.RawMessage, max int) json.RawMessage {
	out, err := json.Marshal(cutText(string(args), max))
	if err != nil {
		return json.RawMessage(`"[arguments truncated]"`)
	}
	return out
}
