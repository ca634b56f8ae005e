package anthropic

import (
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/reinharness/rein/internal/sse"
	"github.com/reinharness/rein/model"
)

// streamEvents decodes a Messages API event stream from r. It stops at
// message_stop without reading further, and reports a stream that ends
// (or breaks) before message_stop as a wrapped model.ErrIncompleteStream:
// what arrived must not pass for a whole answer. status and requestID go
// into in-stream *model.APIError values.
//
// maxBytes caps the answer's content (see Config.MaxResponseBytes).
func streamEvents(r io.Reader, status int, requestID string, maxBytes int) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		st := newStreamState(status, requestID)
		st.size.Max = maxBytes
		// One event may carry the whole answer, but never more.
		dec := sse.NewDecoderSize(r, st.size.Limit()+64<<10)
		n := 0
		for {
			ev, err := dec.Next()
			if errors.Is(err, sse.ErrEventTooLarge) {
				yield(model.Event{}, st.size.EventTooLarge())
				return
			}
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

// incomplete wraps the error that ended a stream before message_stop.
// Both sentinels stay visible to errors.Is: ErrIncompleteStream for "do not
// trust the partial answer" and the cause (reset, idle timeout, oversized
// event, cancellation) for what to do about it.
func incomplete(events int, err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("anthropic: %w: the stream ended after %d events without message_stop; the answer is partial, retry the request", model.ErrIncompleteStream, events)
	}
	return fmt.Errorf("anthropic: %w: reading the stream failed after %d events: %w", model.ErrIncompleteStream, events, err)
}

// readMessage reads a whole message body and yields its events.
//
// The body may be twice maxBytes (the content cap), for its JSON escaping.
func readMessage(r io.Reader, status int, requestID string, maxBytes int) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		size := model.AnswerSize{Max: maxBytes}
		limit := 2*size.Limit() + 64<<10
		body, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
		if err != nil {
			yield(model.Event{}, fmt.Errorf("anthropic: %w: reading the response failed: %w", model.ErrIncompleteStream, err))
			return
		}
		if len(body) > limit {
			yield(model.Event{}, fmt.Errorf("anthropic: %w: the response body is larger than %s", model.ErrResponseTooLarge, model.FormatBytes(limit)))
			return
		}
		events, err := messageEvents(body, status, requestID)
		if err != nil {
			yield(model.Event{}, err)
			return
		}
		for _, e := range events {
			if !yield(e, nil) {
				return
			}
		}
	}
}
