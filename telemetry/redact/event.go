package redact

import (
	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// Event returns ev with secrets removed from every free-text field: text
// deltas, messages, tool-call arguments, results, decision reasons,
// outcome texts and errors. ev itself is never modified (events share
// memory with the conversation); parts that changed are copied, parts
// that did not are shared with ev.
func Event(ev agent.Event) agent.Event {
	ev.Text = String(ev.Text)
	ev.Err = String(ev.Err)
	if ev.Message != nil {
		if m, changed := message(*ev.Message); changed {
			ev.Message = &m
		}
	}
	if ev.ToolCall != nil {
		if c, changed := toolCall(*ev.ToolCall); changed {
			ev.ToolCall = &c
		}
	}
	if ev.ToolResult != nil {
		if r, changed := toolResult(*ev.ToolResult); changed {
			ev.ToolResult = &r
		}
	}
	if ev.Decision != nil {
		if reason := String(ev.Decision.Reason); reason != ev.Decision.Reason {
			d := *ev.Decision
			d.Reason = reason
			ev.Decision = &d
		}
	}
	if ev.Outcome != nil {
		o := *ev.Outcome
		o.Text, o.Err, o.Reason = String(o.Text), String(o.Err), String(o.Reason)
		if o.Text != ev.Outcome.Text || o.Err != ev.Outcome.Err || o.Reason != ev.Outcome.Reason {
			ev.Outcome = &o
		}
	}
	return ev
}

// Message returns m with secrets removed from its parts; m is not
// modified.
func Message(m model.Message) model.Message {
	out, _ := message(m)
	return out
}

// message redacts m's parts, copying the parts slice only when one
// changed.
func message(m model.Message) (model.Message, bool) {
	var parts []model.Part
	for i, p := range m.Parts {
		q, changed := part(p)
		if !changed {
			continue
		}
		if parts == nil {
			parts = make([]model.Part, len(m.Parts))
			copy(parts, m.Parts)
		}
		parts[i] = q
	}
	if parts == nil {
		return m, false
	}
	m.Parts = parts
	return m, true
}

func part(p model.Part) (model.Part, bool) {
	changed := false
	if t := String(p.Text); t != p.Text {
		p.Text, changed = t, true
	}
	if p.ToolCall != nil {
		if c, ok := toolCall(*p.ToolCall); ok {
			p.ToolCall, changed = &c, true
		}
	}
	if p.ToolResult != nil {
		if r, ok := toolResult(*p.ToolResult); ok {
			p.ToolResult, changed = &r, true
		}
	}
	// Signature and Redacted are opaque provider tokens that must travel
	// back unchanged; they are not secrets of the user's.
	return p, changed
}

func toolCall(c model.ToolCall) (model.ToolCall, bool) {
	args := JSON(c.Args)
	if len(args) == len(c.Args) && string(args) == string(c.Args) {
		return c, false
	}
	c.Args = args
	return c, true
}

func toolResult(r model.ToolResult) (model.ToolResult, bool) {
	content := String(r.Content)
	if content == r.Content {
		return r, false
	}
	r.Content = content
	return r, true
}
