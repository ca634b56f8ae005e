package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/reinharness/rein/model"
)

// messageEvents converts a whole (non-streamed) message into the event
// sequence a stream of the same message yields, so that callers see one
// shape whichever mode answered.
func messageEvents(body []byte, status int, requestID string) ([]model.Event, error) {
	var m wireResponse
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("%w: the body is not a Messages API message: %s (body %q)", ErrMalformedResponse, describeJSON(err), quote(body))
	}
	if m.Type == "error" {
		e := &model.APIError{Provider: "anthropic", StatusCode: status, RequestID: requestID, InStream: true}
		if m.Error != nil {
			e.Type, e.Message = m.Error.Type, redact(m.Error.Message)
		}
		if e.Message == "" {
			e.Message = "the response reported an error without a message"
		}
		return nil, e
	}
	if m.Type != "message" {
		return nil, fmt.Errorf("%w: the body has type %q, want \"message\" (body %q)", ErrMalformedResponse, m.Type, quote(body))
	}
	events := make([]model.Event, 0, len(m.Content)+3)
	for i, c := range m.Content {
		switch c.Type {
		case "text":
			if c.Text != "" {
				events = append(events, model.Event{Kind: model.EventTextDelta, Text: c.Text})
			}
		case "thinking":
			if c.Thinking != "" {
				events = append(events, model.Event{Kind: model.EventReasoningDelta, Text: c.Thinking})
			}
			events = append(events, model.Event{Kind: model.EventReasoningEnd, Signature: c.Signature})
		case "redacted_thinking":
			events = append(events, model.Event{Kind: model.EventReasoningEnd, Redacted: c.Data})
		case "tool_use":
			if c.ID == "" || c.Name == "" {
				return nil, fmt.Errorf("%w: content[%d] is a tool_use without id or name", ErrMalformedResponse, i)
			}
			raw := []byte(c.Input)
			if string(raw) == "null" {
				raw = nil
			}
			args := callArgs(raw)
			events = append(events, model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: c.ID, Name: c.Name, Args: args}})
		}
	}
	var counts usageCounts
	counts.apply(m.Usage)
	u := counts.usage()
	events = append(events, model.Event{Kind: model.EventUsage, Usage: &u})
	reason := model.StopOther
	if m.StopReason != nil {
		reason = stopReason(*m.StopReason)
	}
	events = append(events, model.Event{Kind: model.EventStop, StopReason: reason})
	return events, nil
}
