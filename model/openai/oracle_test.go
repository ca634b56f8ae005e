// This file keeps the stream parser as it was before chunkScanner, as
// the oracle the fast path is checked against (TestParseMatchesOracle,
// FuzzParseMatchesOracle): the same events, the same errors, for every
// recording and every fuzz input. Only its names changed.

package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/reinharness/rein/internal/sse"
	"github.com/reinharness/rein/model"
)

// oracleParser turns Chat Completions chunks into rein events. It owns the
// state a stream needs across chunks: the open reasoning block, tool calls
// under assembly, the finish reason and the latest usage.
//
// A parser is used by one goroutine for one stream.
type oracleParser struct {
	meta      streamMeta
	yield     func(model.Event, error) bool
	stopped   bool // yield returned false; emit nothing more
	respID    string
	reasoning bool // a reasoning block is open
	calls     []*callBuilder
	emitted   int    // calls[:emitted] were yielded
	finish    string // finish_reason of choice 0, once it arrived
	finished  bool
	events    int // data events seen
	chunk     chunk
}

// parseStream reads an event stream and yields events until [DONE], an
// error, or the consumer stops. It reports a stream that ends before
// [DONE] as model.ErrIncompleteStream.
func oracleParseStream(r io.Reader, meta streamMeta, yield func(model.Event, error) bool) {
	p := &oracleParser{meta: meta, yield: yield}
	dec := sse.NewDecoder(r)
	for !p.stopped {
		ev, err := dec.Next()
		if err != nil {
			p.fail(p.endError(err))
			return
		}
		if len(ev.Data) == 0 {
			continue // a keep-alive or an event with only a type/id
		}
		p.events++
		if ev.Type == "error" {
			p.fail(p.inStreamError(ev.Data))
			return
		}
		if oracleIsDone(ev.Data) {
			p.done()
			return
		}
		if err := p.handle(ev.Data); err != nil {
			p.fail(err)
			return
		}
	}
}

func oracleIsDone(data []byte) bool {
	return bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]"))
}

// endError explains why the stream ended without [DONE].
func (p *oracleParser) endError(err error) error {
	switch {
	case errors.Is(err, io.EOF) && p.events == 0:
		return fmt.Errorf("%w: the server answered %d but sent no events; check that the base URL is an OpenAI-compatible endpoint", model.ErrIncompleteStream, p.meta.status)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: the server closed the stream without [DONE] (finish_reason %q)", model.ErrIncompleteStream, p.finish)
	case errors.Is(err, sse.ErrEventTooLarge):
		return fmt.Errorf("%w: %w", ErrMalformedResponse, err)
	}
	return fmt.Errorf("%w: %w", model.ErrIncompleteStream, err)
}

func (p *oracleParser) emit(ev model.Event) {
	if !p.stopped && !p.yield(ev, nil) {
		p.stopped = true
	}
}

func (p *oracleParser) fail(err error) {
	if !p.stopped {
		p.yield(model.Event{}, err)
		p.stopped = true
	}
}

// handle decodes and applies one chunk.
func (p *oracleParser) handle(data []byte) error {
	c := &p.chunk
	choices := c.Choices[:cap(c.Choices)]
	clear(choices) // encoding/json decodes into reused elements without zeroing them
	*c = chunk{Choices: choices[:0]}
	if err := unmarshalChunk(data, c); err != nil {
		return badJSON(fmt.Sprintf("stream chunk %d", p.events), err, data)
	}
	if c.Error != nil {
		return p.apiError(c.Error)
	}
	if p.respID == "" {
		p.respID = c.ID
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // rein asks for one choice; ignore any others
		}
		if err := p.applyDelta(&ch.Delta); err != nil {
			return err
		}
		if ch.FinishReason != "" {
			if err := p.finishChoice(ch.FinishReason); err != nil {
				return err
			}
		}
	}
	if c.Usage != nil {
		p.emit(model.Event{Kind: model.EventUsage, Usage: toUsage(c.Usage, c.Timings)})
	}
	return nil
}

func (p *oracleParser) applyDelta(d *delta) error {
	r := d.ReasoningContent
	if r == "" {
		r = d.Reasoning
	}
	if r != "" {
		p.reasoning = true
		p.emit(model.Event{Kind: model.EventReasoningDelta, Text: r})
	}
	text := d.Content
	if text == "" {
		text = d.Refusal
	}
	if text != "" {
		p.endReasoning()
		p.emit(model.Event{Kind: model.EventTextDelta, Text: text})
	}
	for i := range d.ToolCalls {
		p.endReasoning()
		if err := p.addToolDelta(&d.ToolCalls[i]); err != nil {
			return err
		}
	}
	return nil
}

func (p *oracleParser) endReasoning() {
	if p.reasoning {
		p.reasoning = false
		p.emit(model.Event{Kind: model.EventReasoningEnd})
	}
}

// addToolDelta folds one tool-call fragment into its call. Calls are keyed
// by their wire index; a fragment without an index continues the latest
// call. A fragment carrying a different id than the call it would continue
// starts a new call: some servers send several complete calls under one
// index.
func (p *oracleParser) addToolDelta(td *toolCallDelta) error {
	var b *callBuilder
	for i := len(p.calls) - 1; i >= 0; i-- {
		if td.Index == nil || p.calls[i].index == *td.Index {
			b = p.calls[i]
			break
		}
	}
	if b != nil && td.ID != "" && b.id != "" && td.ID != b.id {
		b = nil
	}
	if b == nil {
		idx := len(p.calls)
		if td.Index != nil {
			idx = *td.Index
		}
		if len(p.calls) >= maxToolCalls {
			return fmt.Errorf("%w: more than %d tool calls in one response", ErrMalformedResponse, maxToolCalls)
		}
		b = &callBuilder{index: idx}
		p.calls = append(p.calls, b)
	} else if slices.Index(p.calls, b) < p.emitted {
		return fmt.Errorf("%w: a fragment for tool call %d arrived after the call was complete", ErrMalformedResponse, b.index)
	}
	if b.id == "" {
		b.id = td.ID
	}
	if b.name == "" {
		b.name = td.Function.Name
	}
	if !b.started && b.id != "" && b.name != "" {
		// Announced once both are known; a call whose server never sends
		// an id is announced by flushCalls, with the id derived for it.
		b.started = true
		p.emit(model.Event{Kind: model.EventToolCallStart, ToolCall: &model.ToolCall{ID: b.id, Name: b.name}})
	}
	return b.addArgs(&td.Function.Arguments)
}

// finishChoice handles finish_reason: the turn's content is complete, so
// reasoning closes and tool calls are emitted.
func (p *oracleParser) finishChoice(reason string) error {
	p.finish, p.finished = reason, true
	p.endReasoning()
	return p.flushCalls()
}

// flushCalls yields the calls not yet yielded, in index order.
func (p *oracleParser) flushCalls() error {
	pending := p.calls[p.emitted:]
	slices.SortStableFunc(pending, func(a, b *callBuilder) int { return a.index - b.index })
	for _, b := range pending {
		call := b.build(p.respID)
		if !b.started {
			b.started = true
			p.emit(model.Event{Kind: model.EventToolCallStart, ToolCall: &model.ToolCall{ID: call.ID, Name: call.Name}})
		}
		p.emit(model.Event{Kind: model.EventToolCall, ToolCall: call})
		p.emitted++
	}
	return nil
}

// done handles [DONE]: the stream is complete.
func (p *oracleParser) done() {
	p.endReasoning()
	if err := p.flushCalls(); err != nil {
		p.fail(err)
		return
	}
	reason := stopReason(p.finish)
	if !p.finished {
		// [DONE] without a finish_reason: the stream is complete but the
		// server did not say why it stopped; infer it from the content.
		reason = model.StopEndTurn
		if len(p.calls) > 0 {
			reason = model.StopToolUse
		}
	}
	p.emit(model.Event{Kind: model.EventStop, StopReason: reason})
}

func (p *oracleParser) inStreamError(data []byte) error {
	var c chunk
	if json.Unmarshal(data, &c) == nil && c.Error != nil {
		return p.apiError(c.Error)
	}
	var we wireError
	if json.Unmarshal(data, &we) == nil && we.Message != "" {
		return p.apiError(&we)
	}
	return p.apiError(&wireError{Message: string(data)})
}

func (p *oracleParser) apiError(we *wireError) error {
	return &model.APIError{
		Provider:   providerName,
		StatusCode: p.meta.status,
		Type:       we.Type,
		Code:       string(we.Code),
		Message:    redactMessage(we.Message),
		RequestID:  p.meta.requestID,
		InStream:   true,
	}
}
