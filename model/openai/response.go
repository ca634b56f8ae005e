package openai

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/transport"
)

// parseCompletion yields the events of a non-streamed response, in the same
// order a stream would produce them.
func parseCompletion(body []byte, meta streamMeta, yield func(model.Event, error) bool) {
	var c completion
	if err := json.Unmarshal(body, &c); err != nil {
		yield(model.Event{}, badJSON("the response", err, body))
		return
	}
	p := &streamParser{meta: meta, yield: yield, respID: c.ID}
	if c.Error != nil {
		p.fail(p.apiError(c.Error))
		return
	}
	var choice = -1
	for i := range c.Choices {
		if c.Choices[i].Index == 0 {
			choice = i
			break
		}
	}
	if choice < 0 {
		p.fail(fmt.Errorf("%w: the response has no choices: %s", ErrMalformedResponse, snippet(body)))
		return
	}
	ch := &c.Choices[choice]
	msg := &ch.Message
	d := delta{
		Content:          msg.Content,
		Refusal:          msg.Refusal,
		ReasoningContent: msg.ReasoningContent,
		Reasoning:        msg.Reasoning,
	}
	for i, tc := range msg.ToolCalls {
		idx := i
		td := toolCallDelta{Index: &idx, ID: tc.ID}
		td.Function.Name = tc.Function.Name
		td.Function.Arguments = tc.Function.Arguments
		d.ToolCalls = append(d.ToolCalls, td)
	}
	if err := p.applyDelta(&d); err != nil {
		p.fail(err)
		return
	}
	reason := ch.FinishReason
	if reason == "" {
		reason = "stop"
		if len(p.calls) > 0 {
			reason = "tool_calls"
		}
	}
	if err := p.finishChoice(reason); err != nil {
		p.fail(err)
		return
	}
	if c.Usage != nil {
		p.emit(model.Event{Kind: model.EventUsage, Usage: toUsage(c.Usage, c.Timings)})
	}
	p.emit(model.Event{Kind: model.EventStop, StopReason: stopReason(reason)})
}

// parseErrorResponse turns an HTTP error body in the API's error format
// into an APIError. It is the ParseError hook of the HTTP client, which
// fills in the status, request id and retry delay, and describes bodies in
// any other format (an HTML page from a proxy, say) itself: for those this
// returns nil.
func parseErrorResponse(_ *http.Response, body []byte) *model.APIError {
	we, ok := decodeAPIError(body)
	if !ok {
		return nil
	}
	return &model.APIError{
		Provider: providerName,
		Type:     we.Type,
		Code:     string(we.Code),
		Message:  redactMessage(we.Message),
	}
}

func requestID(h http.Header) string {
	if id := h.Get("X-Request-Id"); id != "" {
		return id
	}
	return h.Get("Request-Id")
}

// redactMessage removes secrets a server may echo back (OpenAI quotes part
// of a rejected API key, for instance).
func redactMessage(s string) string {
	return transport.Redact(s)
}
