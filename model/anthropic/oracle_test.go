// This file keeps the stream state machine as it was before the fast
// event path (eventscan.go), as the oracle it is checked against
// (TestStreamMatchesOracle, FuzzStreamMatchesOracle): the same events and
// the same errors for every recording and every fuzz input. Only its names
// changed.

package anthropic

import (
	"bytes"
	"fmt"
	"io"
	"iter"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/reinharness/rein/internal/sse"
	"github.com/reinharness/rein/model"
)

func oracleStreamEvents(r io.Reader, status int, requestID string) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		dec := sse.NewDecoder(r)
		st := newOracleState(status, requestID)
		n := 0
		for {
			ev, err := dec.Next()
			if err != nil {
				yield(model.Event{}, incomplete(n, err))
				return
			}
			n++
			out, err := st.handle(ev.Type, ev.Data)
			if err != nil {
				yield(model.Event{}, err)
				return
			}
			for _, e := range out {
				if !yield(e, nil) {
					return
				}
			}
			if st.Done() {
				return
			}
		}
	}
}

// oracleBlock is the state of one content block between its start and stop.
type oracleBlock struct {
	kind      blockKind
	open      bool
	id, name  string
	args      []byte // concatenated input_json_delta fragments
	input     []byte // input from content_block_start, used when no fragments arrive
	signature string
	redacted  string
}

// oracleState is the Messages API event-stream state machine: it takes the
// events of one streamed message in order and returns the neutral events
// they complete. It is pure (no I/O) so that it can be tested and fuzzed on
// bytes, and it never panics on any input. Not safe for concurrent use.
type oracleState struct {
	status    int    // HTTP status the stream was opened with, for in-stream errors
	requestID string // request-id response header, for in-stream errors

	started   bool
	done      bool
	stopSeen  bool
	usageSent bool
	stop      model.StopReason
	counts    usageCounts
	blocks    map[int]*oracleBlock
	open      int

	ev  wireEvent     // decode target, reset for every event
	out []model.Event // returned by handle, reused across events
}

func newOracleState(status int, requestID string) *oracleState {
	return &oracleState{status: status, requestID: requestID, blocks: make(map[int]*oracleBlock)}
}

// Done reports whether message_stop arrived: the stream is complete and
// anything after it is ignored.
func (s *oracleState) Done() bool { return s.done }

// handle consumes one event (its SSE event name and data) and returns the
// neutral events it completes. The returned slice is reused by the next
// call. An error ends the stream: a *model.APIError for an error event,
// else a wrapped ErrMalformedResponse.
func (s *oracleState) handle(name string, data []byte) ([]model.Event, error) {
	s.out = s.out[:0]
	if s.done || len(bytes.TrimSpace(data)) == 0 {
		// After message_stop nothing more belongs to this message; an
		// event without data carries nothing to act on.
		return nil, nil
	}
	s.ev = wireEvent{Index: -1}
	if err := jsonv2.Unmarshal(data, &s.ev, decodeOptions); err != nil {
		return nil, s.malformed(name, data, "%s", describeJSON(err))
	}
	typ := s.ev.Type
	if typ == "" {
		typ = name
	}
	var err error
	switch typ {
	case "ping":
	case "error":
		err = s.apiError()
	case "message_start":
		err = s.messageStart(data)
	case "content_block_start":
		err = s.blockStart(data)
	case "content_block_delta":
		err = s.blockDelta(data)
	case "content_block_stop":
		err = s.blockStop(data)
	case "message_delta":
		err = s.messageDelta(data)
	case "message_stop":
		err = s.messageStop(data)
	default:
		// Unknown event types are ignored so that new API events do
		// not break old clients (the API's own versioning policy).
	}
	if err != nil {
		return nil, err
	}
	return s.out, nil
}

func (s *oracleState) emit(ev model.Event) { s.out = append(s.out, ev) }

// apiError converts an in-stream error event, such as overloaded_error
// sent after the 200 status line, into the same error type as an HTTP
// error status.
func (s *oracleState) apiError() error {
	e := &model.APIError{Provider: "anthropic", StatusCode: s.status, RequestID: s.requestID, InStream: true}
	if s.ev.Error != nil {
		e.Type = s.ev.Error.Type
		e.Message = redact(s.ev.Error.Message)
	}
	if e.Message == "" {
		e.Message = "the stream reported an error without a message"
	}
	return e
}

func (s *oracleState) messageStart(data []byte) error {
	if s.started {
		return s.malformed("message_start", data, "second message_start in one stream")
	}
	if s.ev.Message == nil {
		return s.malformed("message_start", data, "no message object")
	}
	s.started = true
	s.counts.apply(s.ev.Message.Usage)
	return nil
}

// contentEvent checks what every block event needs: a started message and
// an index. It returns the index.
func (s *oracleState) contentEvent(name string, data []byte) (int, error) {
	if !s.started {
		return 0, s.malformed(name, data, "content before message_start")
	}
	if s.ev.Index < 0 {
		return 0, s.malformed(name, data, "no valid block index")
	}
	return s.ev.Index, nil
}

func (s *oracleState) blockStart(data []byte) error {
	i, err := s.contentEvent("content_block_start", data)
	if err != nil {
		return err
	}
	cb := s.ev.ContentBlock
	if cb == nil {
		return s.malformed("content_block_start", data, "no content_block object")
	}
	if _, dup := s.blocks[i]; dup {
		return s.malformed("content_block_start", data, "block %d started twice", i)
	}
	b := &oracleBlock{open: true}
	switch cb.Type {
	case "text":
		b.kind = blockText
		if cb.Text != "" {
			s.emit(model.Event{Kind: model.EventTextDelta, Text: cb.Text})
		}
	case "thinking":
		b.kind = blockThinking
		b.signature = cb.Signature
		if cb.Thinking != "" {
			s.emit(model.Event{Kind: model.EventReasoningDelta, Text: cb.Thinking})
		}
	case "redacted_thinking":
		b.kind = blockRedacted
		b.redacted = cb.Data
	case "tool_use":
		if cb.ID == "" || cb.Name == "" {
			return s.malformed("content_block_start", data, "tool_use block %d without id or name", i)
		}
		b.kind = blockToolUse
		b.id, b.name = cb.ID, cb.Name
		b.input = append([]byte(nil), cb.Input...)
		s.emit(model.Event{Kind: model.EventToolCallStart, ToolCall: &model.ToolCall{ID: b.id, Name: b.name}})
	}
	s.blocks[i] = b
	s.open++
	return nil
}

// openBlock returns the open block an event refers to.
func (s *oracleState) openBlock(name string, data []byte) (*oracleBlock, error) {
	i, err := s.contentEvent(name, data)
	if err != nil {
		return nil, err
	}
	b := s.blocks[i]
	if b == nil {
		return nil, s.malformed(name, data, "block %d was never started", i)
	}
	if !b.open {
		return nil, s.malformed(name, data, "block %d already stopped", i)
	}
	return b, nil
}

func (s *oracleState) blockDelta(data []byte) error {
	b, err := s.openBlock("content_block_delta", data)
	if err != nil {
		return err
	}
	d := &s.ev.Delta
	if d.Type == "" {
		return s.malformed("content_block_delta", data, "no delta type")
	}
	if b.kind == blockOther {
		return nil
	}
	want := blockOther
	switch d.Type {
	case "text_delta":
		want = blockText
		if b.kind == want && d.Text != "" {
			s.emit(model.Event{Kind: model.EventTextDelta, Text: d.Text})
		}
	case "thinking_delta":
		want = blockThinking
		if b.kind == want && d.Thinking != "" {
			s.emit(model.Event{Kind: model.EventReasoningDelta, Text: d.Thinking})
		}
	case "signature_delta":
		// The signature arrives whole just before the block stops and is
		// only meaningful with it, so it is held for EventReasoningEnd.
		want = blockThinking
		if b.kind == want {
			b.signature = d.Signature
		}
	case "input_json_delta":
		// Fragments are not JSON on their own; they are parsed once,
		// whole, when the block stops.
		want = blockToolUse
		if b.kind == want {
			if len(b.args)+len(d.PartialJSON) > maxToolInput {
				return s.malformed("content_block_delta", data, "tool_use %s (%s) input exceeds %d MiB", b.id, b.name, maxToolInput>>20)
			}
			b.args = append(b.args, d.PartialJSON...)
		}
	default:
		// Unknown delta types (citations and future ones) carry
		// nothing rein models.
		return nil
	}
	if b.kind != want {
		return s.malformed("content_block_delta", data, "%s for a block of another type", d.Type)
	}
	return nil
}

func (s *oracleState) blockStop(data []byte) error {
	b, err := s.openBlock("content_block_stop", data)
	if err != nil {
		return err
	}
	b.open = false
	s.open--
	switch b.kind {
	case blockThinking:
		s.emit(model.Event{Kind: model.EventReasoningEnd, Signature: b.signature})
	case blockRedacted:
		s.emit(model.Event{Kind: model.EventReasoningEnd, Redacted: b.redacted})
	case blockToolUse:
		raw := b.args
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = b.input
		}
		args := callArgs(raw)
		s.emit(model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: b.id, Name: b.name, Args: args}})
		b.args, b.input = nil, nil
	}
	return nil
}

func (s *oracleState) messageDelta(data []byte) error {
	if !s.started {
		return s.malformed("message_delta", data, "message_delta before message_start")
	}
	if d := s.ev.Delta; d.StopReason != nil {
		s.stop = stopReason(*d.StopReason)
		s.stopSeen = true
	}
	if s.ev.Usage != nil {
		s.counts.apply(s.ev.Usage)
		s.emitUsage()
	}
	return nil
}

func (s *oracleState) messageStop(data []byte) error {
	if !s.started {
		return s.malformed("message_stop", data, "message_stop before message_start")
	}
	if s.open > 0 {
		// A tool call or signature still being assembled would be lost.
		return s.malformed("message_stop", data, "%d content block(s) never stopped", s.open)
	}
	if !s.usageSent {
		s.emitUsage()
	}
	reason := s.stop
	if !s.stopSeen {
		reason = model.StopOther
	}
	s.emit(model.Event{Kind: model.EventStop, StopReason: reason})
	s.done = true
	return nil
}

func (s *oracleState) emitUsage() {
	u := s.counts.usage()
	s.emit(model.Event{Kind: model.EventUsage, Usage: &u})
	s.usageSent = true
}

// malformed builds the error for an event that breaks the protocol,
// quoting the start of its data so the fault can be found in a capture.
func (s *oracleState) malformed(name string, data []byte, format string, args ...any) error {
	return fmt.Errorf("%w: %s event: %s (data %q)", ErrMalformedResponse, name, redact(fmt.Sprintf(format, args...)), quote(data))
}

// objectArgs validates tool input as one JSON object and returns it
