package anthropic

import (
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/reinharness/rein/internal/sse"
	"github.com/reinharness/rein/model"
)

// maxMessageBytes caps a whole (non-streamed) response body. A message is
// bounded by max_tokens, so anything near this is not a message.
const maxMessageBytes = 64 << 20

// streamEvents decodes a Messages API event stream from r. It stops at
// message_stop without reading further, and reports a stream that ends
// (or breaks) before message_stop as a wrapped model.ErrIncompleteStream:
// what arrived must not pass for a whole answer. status and requestID go
// into in-stream *model.APIError values.
func streamEvents(r io.Reader, status int, requestID string) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		dec := sse.NewDecoder(r)
		st := newStreamState(status, requestID)
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
func readMessage(r io.Reader, status int, requestID string) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		body, err := io.ReadAll(io.LimitReader(r, maxMessageBytes+1))
		if err != nil {
			yield(model.Event{}, fmt.Errorf("anthropic: %w: reading the response failed: %w", model.ErrIncompleteStream, err))
			return
		}
		if len(body) > maxMessageBytes {
			yield(model.Event{}, fmt.Errorf("%w: the response body exceeds %d MiB", ErrMalformedResponse, maxMessageBytes>>20))
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
