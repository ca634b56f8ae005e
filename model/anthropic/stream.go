package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/internal/wirejson"
)

// ErrMalformedResponse reports a response that breaks the Messages API
// protocol: invalid JSON, a stream delta for a block that was never
// started, tool input that is not a JSON object. Errors wrap it with the
// event at fault.
var ErrMalformedResponse = errors.New("anthropic: malformed response")

// maxToolInput bounds the assembled input of one tool call. Real inputs
// are bounded by max_tokens (a few hundred KiB at most); the cap keeps a
// broken or hostile server from growing memory without limit.
const maxToolInput = 16 << 20

// blockKind is the type of an open content block.
type blockKind uint8

const (
	// blockOther is a block type rein does not model (server tool use,
	// search results, future types); it is tracked only so that its deltas
	// and stop are accepted and ignored.
	blockOther blockKind = iota
	blockText
	blockThinking
	blockRedacted
	blockToolUse
)

// block is the state of one content block between its start and stop.
type block struct {
	kind      blockKind
	open      bool
	id, name  string
	args      []byte // concatenated input_json_delta fragments
	input     []byte // input from content_block_start, used when no fragments arrive
	signature string
	redacted  string
}

// streamState is the Messages API event-stream state machine: it takes the
// events of one streamed message in order and returns the neutral events
// they complete. It is pure (no I/O) so that it can be tested and fuzzed on
// bytes, and it never panics on any input. Not safe for concurrent use.
type streamState struct {
	status    int    // HTTP status the stream was opened with, for in-stream errors
	requestID string // request-id response header, for in-stream errors

	started   bool
	done      bool
	stopSeen  bool
	usageSent bool
	stop      model.StopReason
	counts    usageCounts
	blocks    map[int]*block
	open      int

	size model.AnswerSize // content so far, against Config.MaxResponseBytes
	ev   wireEvent        // decode target, reset for every event
	out  []model.Event    // returned by handle, reused across events
	scan eventScanner
}

// decodeOptions make the json/v2 engine (about twice as fast as
// encoding/json on stream events, see BenchmarkStreamEvents) as lenient as
// encoding/json: the text in a stream is the model's, and one odd byte or a
// repeated key must not cost the whole answer.
var decodeOptions = jsonv2.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
)

func newStreamState(status int, requestID string) *streamState {
	return &streamState{status: status, requestID: requestID, blocks: make(map[int]*block)}
}

// Done reports whether message_stop arrived: the stream is complete and
// anything after it is ignored.
func (s *streamState) Done() bool { return s.done }

// handle consumes one event (its SSE event name and data) and returns the
// neutral events it completes. The returned slice is reused by the next
// call. An error ends the stream: a *model.APIError for an error event,
// else a wrapped ErrMalformedResponse.
func (s *streamState) handle(name string, data []byte) ([]model.Event, error) {
	s.out = s.out[:0]
	if s.done || len(bytes.TrimSpace(data)) == 0 {
		// After message_stop nothing more belongs to this message; an
		// event without data carries nothing to act on.
		return nil, nil
	}
	if !s.scan.decode(data, &s.ev) {
		// Not on the fast path: the general decoder decides.
		partial := s.ev.Delta.partial[:0]
		s.ev = wireEvent{Index: -1}
		if err := jsonv2.Unmarshal(data, &s.ev, decodeOptions); err != nil {
			return nil, s.malformed(name, data, "%s", describeJSON(err))
		}
		s.ev.Delta.partial = append(partial, s.ev.Delta.PartialJSON...)
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

func (s *streamState) emit(ev model.Event) { s.out = append(s.out, ev) }

// apiError converts an in-stream error event, such as overloaded_error
// sent after the 200 status line, into the same error type as an HTTP
// error status.
func (s *streamState) apiError() error {
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

func (s *streamState) messageStart(data []byte) error {
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
func (s *streamState) contentEvent(name string, data []byte) (int, error) {
	if !s.started {
		return 0, s.malformed(name, data, "content before message_start")
	}
	if s.ev.Index < 0 {
		return 0, s.malformed(name, data, "no valid block index")
	}
	return s.ev.Index, nil
}

func (s *streamState) blockStart(data []byte) error {
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
	b := &block{open: true}
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
func (s *streamState) openBlock(name string, data []byte) (*block, error) {
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

func (s *streamState) blockDelta(data []byte) error {
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
			if err := s.size.Add(len(d.Text)); err != nil {
				return err
			}
			s.emit(model.Event{Kind: model.EventTextDelta, Text: d.Text})
		}
	case "thinking_delta":
		want = blockThinking
		if b.kind == want && d.Thinking != "" {
			if err := s.size.Add(len(d.Thinking)); err != nil {
				return err
			}
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
			if err := s.size.Add(len(d.partial)); err != nil {
				return err
			}
			if len(b.args)+len(d.partial) > maxToolInput {
				return s.malformed("content_block_delta", data, "tool_use %s (%s) input exceeds %d MiB", b.id, b.name, maxToolInput>>20)
			}
			b.args = append(b.args, d.partial...)
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

func (s *streamState) blockStop(data []byte) error {
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

func (s *streamState) messageDelta(data []byte) error {
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

func (s *streamState) messageStop(data []byte) error {
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

func (s *streamState) emitUsage() {
	u := s.counts.usage()
	s.emit(model.Event{Kind: model.EventUsage, Usage: &u})
	s.usageSent = true
}

// malformed builds the error for an event that breaks the protocol,
// quoting the start of its data so the fault can be found in a capture.
// describeJSON says what was wrong with data that did not decode, in
// words about the data rather than Go types.
func describeJSON(err error) string {
	desc, syntax := wirejson.Describe(err)
	if syntax {
		return "invalid JSON (" + desc + ")"
	}
	return "not in the Messages API format (" + desc + ")"
}

func (s *streamState) malformed(name string, data []byte, format string, args ...any) error {
	return fmt.Errorf("%w: %s event: %s (data %q)", ErrMalformedResponse, name, redact(fmt.Sprintf(format, args...)), quote(data))
}

// objectArgs validates tool input as one JSON object and returns it
// compacted, so a streamed call and a non-streamed call of the same input
// carry identical bytes. Empty input is the empty object.
func objectArgs(raw []byte) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return json.RawMessage(`{}`), nil
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("input is not a JSON object")
	}
	var buf bytes.Buffer
	buf.Grow(len(t))
	if err := json.Compact(&buf, t); err != nil {
		return nil, fmt.Errorf("input is %s", describeJSON(err))
	}
	return json.RawMessage(buf.Bytes()), nil
}

// callArgs is the arguments of a finished tool_use block: its input as a
// compacted JSON object, or, when the input is no JSON object, the input as
// it came (trimmed; bounded by maxToolInput on the way in). Such input is
// the model's mistake, not a broken stream: the call carries it and the
// agent answers it with an is_error result naming the problem, rather than
// the whole response failing (model.ToolCall documents this).
func callArgs(raw []byte) json.RawMessage {
	args, err := objectArgs(raw)
	if err != nil {
		return json.RawMessage(bytes.Clone(bytes.TrimSpace(raw)))
	}
	return args
}

// stopReason maps the API's stop_reason onto rein's. pause_turn (a server
// tool paused a long turn) and unknown reasons become StopOther;
// model_context_window_exceeded is a length stop like max_tokens.
func stopReason(r string) model.StopReason {
	switch r {
	case "end_turn":
		return model.StopEndTurn
	case "tool_use":
		return model.StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return model.StopMaxTokens
	case "stop_sequence":
		return model.StopSequence
	case "refusal":
		return model.StopContentFilter
	}
	return model.StopOther
}

// usageCounts holds the API's raw counters as last reported.
type usageCounts struct {
	input, output, cacheRead, cacheWrite int
}

// apply overwrites the counters a usage object reports. The API's counts
// are cumulative for the message, so the latest report wins; counters the
// object omits keep their earlier value.
func (c *usageCounts) apply(u *wireUsage) {
	if u == nil {
		return
	}
	if u.InputTokens != nil {
		c.input = *u.InputTokens
	}
	if u.OutputTokens != nil {
		c.output = *u.OutputTokens
	}
	if u.CacheReadInputTokens != nil {
		c.cacheRead = *u.CacheReadInputTokens
	}
	if u.CacheCreationInputTokens != nil {
		c.cacheWrite = *u.CacheCreationInputTokens
	}
}

// usage converts to rein's Usage. The API's input_tokens counts only the
// uncached part of the prompt; rein's InputTokens is the whole prompt (as
// OpenAI reports it) because context management compares it with the
// context window, so cache reads and writes are added back in and also
// reported on their own.
func (c usageCounts) usage() model.Usage {
	return model.Usage{
		InputTokens:      c.input + c.cacheRead + c.cacheWrite,
		OutputTokens:     c.output,
		CacheReadTokens:  c.cacheRead,
		CacheWriteTokens: c.cacheWrite,
	}
}
