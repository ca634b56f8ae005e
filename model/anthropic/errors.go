package anthropic

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/transport"
)

// parseError is transport.Config.ParseError for the Messages API: it reads the
// API's error body, {"type":"error","error":{"type","message"}}, and the
// request-id header Anthropic support asks for. For bodies of other shapes
// (a proxy's HTML page, an empty body) it leaves Message empty and transport
// fills in the status text and the start of the body.
func parseError(resp *http.Response, body []byte) *model.APIError {
	e := &model.APIError{
		Provider:   "anthropic",
		StatusCode: resp.StatusCode,
		RequestID:  resp.Header.Get("request-id"),
	}
	var w struct {
		Error *wireError `json:"error"`
	}
	if json.Unmarshal(body, &w) == nil && w.Error != nil {
		e.Type = w.Error.Type
		e.Message = redact(w.Error.Message)
	}
	return e
}

// redact removes secrets from server text before it enters an error.
func redact(s string) string { return transport.Redact(s) }

// quote returns the start of a body for an error message: at most 120
// bytes cut at a character boundary, secrets removed. Enough to recognise
// what the server sent without flooding a log with a whole page.
func quote(b []byte) string {
	const quoteMax = 120
	if len(b) > quoteMax {
		b = b[:quoteMax]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	return redact(string(b))
}
