package redact

import (
	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// Event returns ev with secrets removed from every free-text field: text
// deltas, messages, tool-call arguments, results, decision reasons,
// verification checks and their output, plan items, outcome texts and
// errors. ev itself is never modified (events share
// memory with the conversation); parts that changed are copied, parts
// that did not are shared with ev.
func Event(ev agent.Event) agent.Event { return (*Memo)(nil).Event(ev) }

// Memo remembers the redaction of recent long texts, so that a text an
// event stream repeats — a tool result travels in its tool.result event
// and again in the tool message — is scanned once: redaction is a dozen
// regular-expression passes over every byte. A nil *Memo remembers
// nothing. A Memo is not safe for concurrent use.
type Memo struct {
	m     map[string]string
	bytes int
}

// Memo bounds: texts shorter than memoMin are cheaper to scan than to
// hash and keep; past memoMaxBytes the memo starts over.
const (
	memoMin      = 256
	memoMaxBytes = 4 << 20
)

// String is the package's String, remembered.
func (c *Memo) String(s string) string {
	if c == nil || len(s) < memoMin {
		return String(s)
	}
	if r, ok := c.m[s]; ok {
		return r
	}
	r := String(s)
	if c.m == nil || c.bytes+len(s) > memoMaxBytes {
		c.m, c.bytes = map[string]string{}, 0
	}
	c.m[s] = r
	c.bytes += len(s)
	return r
}

// Reset forgets every remembered text.
func (c *Memo) Reset() {
	if c != nil {
		c.m, c.bytes = nil, 0
	}
}

// Event is the package's Event, remembering texts in c.
func (c *Memo) Event(ev agent.Event) agent.Event {
	ev.Text = c.String(ev.Text)
	ev.Err = c.String(ev.Err)
	if ev.Message != nil {
		if m, changed := c.message(*ev.Message); changed {
			ev.Message = &m
		}
	}
	if ev.ToolCall != nil {
		if tc, changed := toolCall(*ev.ToolCall); changed {
			ev.ToolCall = &tc
		}
	}
	if ev.ToolResult != nil {
		if r, changed := c.toolResult(*ev.ToolResult); changed {
			ev.ToolResult = &r
		}
	}
	if ev.Decision != nil {
		if reason := c.String(ev.Decision.Reason); reason != ev.Decision.Reason {
			d := *ev.Decision
			d.Reason = reason
			ev.Decision = &d
		}
	}
	if ev.Verify != nil {
		v := *ev.Verify
		v.Check, v.Output, v.Err = c.String(v.Check), c.String(v.Output), c.String(v.Err)
		if v.Check != ev.Verify.Check || v.Output != ev.Verify.Output || v.Err != ev.Verify.Err {
			ev.Verify = &v
		}
	}
	if ev.Plan != nil {
		ev.Plan = c.plan(ev.Plan)
	}
	if ev.Outcome != nil {
		o := *ev.Outcome
		o.Text, o.Err, o.Reason = c.String(o.Text), c.String(o.Err), c.String(o.Reason)
		if o.Text != ev.Outcome.Text || o.Err != ev.Outcome.Err || o.Reason != ev.Outcome.Reason {
			ev.Outcome = &o
		}
	}
	return ev
}

// plan redacts a plan's texts, copying it only when one changed.
func (c *Memo) plan(items []agent.PlanItem) []agent.PlanItem {
	var out []agent.PlanItem
	for i, it := range items {
		content, active := c.String(it.Content), c.String(it.ActiveForm)
		if content == it.Content && active == it.ActiveForm {
			continue
		}
		if out == nil {
			out = append([]agent.PlanItem(nil), items...)
		}
		out[i].Content, out[i].ActiveForm = content, active
	}
	if out == nil {
		return items
	}
	return out
}

// Message returns m with secrets removed from its parts; m is not
// modified.
func Message(m model.Message) model.Message {
	out, _ := (*Memo)(nil).message(m)
	return out
}

// message redacts m's parts, copying the parts slice only when one
// changed.
func (c *Memo) message(m model.Message) (model.Message, bool) {
	var parts []model.Part
	for i, p := range m.Parts {
		q, changed := c.part(p)
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

func (c *Memo) part(p model.Part) (model.Part, bool) {
	changed := false
	if t := c.String(p.Text); t != p.Text {
		p.Text, changed = t, true
	}
	if p.ToolCall != nil {
		if tc, ok := toolCall(*p.ToolCall); ok {
			p.ToolCall, changed = &tc, true
		}
	}
	if p.ToolResult != nil {
		if r, ok := c.toolResult(*p.ToolResult); ok {
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

func (c *Memo) toolResult(r model.ToolResult) (model.ToolResult, bool) {
	content := c.String(r.Content)
	if content == r.Content {
		return r, false
	}
	r.Content = content
	return r, true
}
