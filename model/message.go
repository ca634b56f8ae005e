// Package model defines rein's provider-neutral conversation types and the
// Provider interface every model backend implements.
//
// Nothing in this package knows which provider answered: the agent loop,
// policy, memory and session code speak only these types.
package model

import (
	"encoding/json"
	"strings"
)

// Role is the author of a message.
type Role string

// The four roles. System messages in a history are allowed but providers
// prefer Request.System, which is injected fresh on every call.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// PartKind tells which field of a Part is set.
type PartKind string

// Part kinds.
const (
	PartText       PartKind = "text"
	PartReasoning  PartKind = "reasoning"
	PartToolCall   PartKind = "tool_call"
	PartToolResult PartKind = "tool_result"
)

// Part is one ordered piece of a message. Exactly the fields that belong to
// Kind are set; it is a flat struct rather than an interface so that it
// round-trips through JSON (sessions, telemetry) without a type registry.
type Part struct {
	Kind PartKind `json:"kind"`
	// Text is the text of a text or reasoning part.
	Text string `json:"text,omitempty"`
	// Signature is the provider's opaque signature of a reasoning part
	// (Anthropic thinking blocks); it must be sent back unchanged.
	Signature string `json:"signature,omitempty"`
	// Redacted holds the opaque payload of a redacted reasoning block.
	Redacted string `json:"redacted,omitempty"`
	// ToolCall is set for PartToolCall.
	ToolCall *ToolCall `json:"tool_call,omitempty"`
	// ToolResult is set for PartToolResult.
	ToolResult *ToolResult `json:"tool_result,omitempty"`
}

// ToolCall is a model's request to run a tool. Providers assemble, parse
// and lightly repair argument fragments before a ToolCall leaves them, so
// Args is a complete JSON object — except when the model sent arguments
// that are none (an array, a number, truncated or broken JSON) and no safe
// repair applied: then Args holds those bytes as they came, which may not
// be valid JSON at all, so that the model's mistake becomes an is_error
// result it can correct instead of a failed response. Consumers must check
// Args before use and must not marshal such a call (json.RawMessage fails
// on invalid bytes); the agent replaces them with {} before it records the
// message. A ToolCall in an EventToolCallStart event has no Args.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// ToolResult answers one ToolCall, matched by CallID.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name,omitempty"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Message is one turn of a conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Kind: PartText, Text: s} }

// ReasoningPart returns a reasoning part.
func ReasoningPart(text, signature string) Part {
	return Part{Kind: PartReasoning, Text: text, Signature: signature}
}

// ToolCallPart returns a tool-call part.
func ToolCallPart(c ToolCall) Part { return Part{Kind: PartToolCall, ToolCall: &c} }

// ToolResultPart returns a tool-result part.
func ToolResultPart(r ToolResult) Part { return Part{Kind: PartToolResult, ToolResult: &r} }

// UserText returns a user message holding one text part.
func UserText(s string) Message { return Message{Role: RoleUser, Parts: []Part{TextPart(s)}} }

// SystemText returns a system message holding one text part.
func SystemText(s string) Message { return Message{Role: RoleSystem, Parts: []Part{TextPart(s)}} }

// AssistantText returns an assistant message holding one text part.
func AssistantText(s string) Message {
	return Message{Role: RoleAssistant, Parts: []Part{TextPart(s)}}
}

// ToolResults returns a tool message carrying the given results in order.
func ToolResults(results ...ToolResult) Message {
	m := Message{Role: RoleTool, Parts: make([]Part, 0, len(results))}
	for _, r := range results {
		m.Parts = append(m.Parts, ToolResultPart(r))
	}
	return m
}

// Text concatenates the message's text parts (not reasoning).
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// JoinedText joins the message's text parts (not reasoning) with a blank
// line. The text parts of a user message are separate texts — the user's
// prompt, context a hook added, a compaction marker or summary — that
// must not run into each other where a wire or a screen has room for one
// string; an assistant's parts are what the model streamed, for which
// Text is exact.
func (m Message) JoinedText() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind != PartText {
			continue
		}
		if b.Len() > 0 && p.Text != "" {
			b.WriteString("\n\n")
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// FirstText returns the message's first non-empty text part: a user
// message's own words before any text the harness appended.
func (m Message) FirstText() string {
	for _, p := range m.Parts {
		if p.Kind == PartText && p.Text != "" {
			return p.Text
		}
	}
	return ""
}

// ToolCalls returns the message's tool calls in order.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if p.Kind == PartToolCall && p.ToolCall != nil {
			calls = append(calls, *p.ToolCall)
		}
	}
	return calls
}

// ToolResultParts returns the message's tool results in order.
func (m Message) ToolResultParts() []ToolResult {
	var rs []ToolResult
	for _, p := range m.Parts {
		if p.Kind == PartToolResult && p.ToolResult != nil {
			rs = append(rs, *p.ToolResult)
		}
	}
	return rs
}
