package model

import (
	"context"
	"iter"
	"strings"
)

// Provider is a model backend.
//
// Stream sends one request and yields events until the model stops. A
// successful stream ends with exactly one EventStop; any failure is yielded
// as a non-nil error (typically *APIError, *ConnectError, *TimeoutError, a
// wrapped ErrIncompleteStream or ErrResponseTooLarge) after which the
// sequence ends. A stream that ends
// without its protocol terminator is an error, never a silent success.
// Partial tool-call argument fragments never leave the provider.
//
// Providers are safe for concurrent use; each Stream call is independent.
// Cancelling ctx ends the underlying HTTP request at once.
type Provider interface {
	Stream(ctx context.Context, req *Request) iter.Seq2[Event, error]
}

// ContextWindower is implemented by providers that can tell the model's
// context window in tokens, discovered from the server or configured. It
// returns 0 and a nil error when the size is unknown.
type ContextWindower interface {
	ContextWindow(ctx context.Context) (int, error)
}

// Response is a whole model answer, assembled from a stream by Collect.
type Response struct {
	Message    Message
	Usage      Usage
	StopReason StopReason
}

// Collect drains a stream into a Response. Text and reasoning deltas are
// merged into parts in arrival order; tool calls become tool-call parts.
// On error it returns the partial response with the error, so callers can
// show what arrived without presenting it as complete.
func Collect(seq iter.Seq2[Event, error]) (*Response, error) {
	var b Builder
	for ev, err := range seq {
		if err != nil {
			return b.Response(), err
		}
		b.Add(ev)
	}
	if !b.Stopped() {
		return b.Response(), ErrIncompleteStream
	}
	return b.Response(), nil
}

// Builder assembles an assistant message from events incrementally. The zero
// value is ready to use.
type Builder struct {
	parts   []Part
	usage   Usage
	stop    StopReason
	stopped bool
	// closedAt is 1 + the index of the last reasoning part whose block has
	// ended, so the next reasoning delta starts a new part.
	closedAt int
	// acc accumulates the deltas of the part at index accAt-1 (0: none):
	// appending to a string per delta would copy the whole text each
	// time, quadratic in a long answer. Its text is stored into the part
	// when another part starts accumulating and by Response.
	acc   strings.Builder
	accAt int
}

// appendText adds a delta to the text of the last part.
func (b *Builder) appendText(text string) {
	n := len(b.parts)
	if b.accAt != n {
		b.flush()
		b.acc.Reset()
		b.acc.WriteString(b.parts[n-1].Text)
		b.accAt = n
	}
	b.acc.WriteString(text)
}

// flush stores the accumulated text into its part. A strings.Builder's
// String shares its buffer without copying, and later writes never
// change bytes a returned string covers.
func (b *Builder) flush() {
	if b.accAt > 0 {
		b.parts[b.accAt-1].Text = b.acc.String()
	}
}

// Add folds one event into the message under construction.
func (b *Builder) Add(ev Event) {
	switch ev.Kind {
	case EventTextDelta:
		if n := len(b.parts); n > 0 && b.parts[n-1].Kind == PartText {
			b.appendText(ev.Text)
			return
		}
		b.parts = append(b.parts, TextPart(ev.Text))
	case EventReasoningDelta:
		if n := len(b.parts); n > 0 && b.parts[n-1].Kind == PartReasoning && !b.reasoningClosed(n-1) {
			b.appendText(ev.Text)
			return
		}
		b.parts = append(b.parts, Part{Kind: PartReasoning, Text: ev.Text})
	case EventReasoningEnd:
		if n := len(b.parts); n > 0 && b.parts[n-1].Kind == PartReasoning && !b.reasoningClosed(n-1) {
			b.parts[n-1].Signature = ev.Signature
			b.parts[n-1].Redacted = ev.Redacted
			b.closeReasoning(n - 1)
			return
		}
		p := Part{Kind: PartReasoning, Signature: ev.Signature, Redacted: ev.Redacted}
		b.parts = append(b.parts, p)
		b.closeReasoning(len(b.parts) - 1)
	case EventToolCall:
		if ev.ToolCall != nil {
			b.addToolCall(ev.ToolCall)
		}
	case EventUsage:
		if ev.Usage != nil {
			b.usage = *ev.Usage
		}
	case EventStop:
		b.stop = ev.StopReason
		b.stopped = true
	case EventToolCallStart:
		// Advisory: the complete EventToolCall follows and becomes the
		// part.
	}
}

// addToolCall adds a part holding a copy of c: the part must not share the
// provider's ToolCall, which it may yield again. The usual answer that
// calls a tool is that one call alone, whose part and copy then take one
// allocation rather than two.
func (b *Builder) addToolCall(c *ToolCall) {
	if b.parts == nil {
		one := new(struct {
			part [1]Part
			call ToolCall
		})
		one.call = *c
		one.part[0] = Part{Kind: PartToolCall, ToolCall: &one.call}
		b.parts = one.part[:]
		return
	}
	b.parts = append(b.parts, ToolCallPart(*c))
}

func (b *Builder) reasoningClosed(i int) bool { return b.closedAt == i+1 }

func (b *Builder) closeReasoning(i int) { b.closedAt = i + 1 }

// Stopped reports whether the stream delivered its stop event.
func (b *Builder) Stopped() bool { return b.stopped }

// Take returns the message assembled so far, like Response, without
// copying its parts (and by value: one allocation fewer), and resets b for the next stream: for a caller that
// builds one response per Builder and calls nothing on b afterwards.
func (b *Builder) Take() Response {
	b.flush()
	r := Response{
		Message:    Message{Role: RoleAssistant, Parts: b.parts},
		Usage:      b.usage,
		StopReason: b.stop,
	}
	*b = Builder{}
	return r
}

// Response returns the message assembled so far.
func (b *Builder) Response() *Response {
	b.flush()
	return &Response{
		Message:    Message{Role: RoleAssistant, Parts: append([]Part(nil), b.parts...)},
		Usage:      b.usage,
		StopReason: b.stop,
	}
}
