package model

import (
	"errors"
	"fmt"
	"time"
)

// ErrIncompleteStream reports a stream that ended before its protocol
// terminator (OpenAI's [DONE] or finish_reason, Anthropic's message_stop):
// what arrived must not be presented as a complete answer.
var ErrIncompleteStream = errors.New("model stream ended before it was complete")

// ErrCircuitOpen reports that a provider endpoint failed repeatedly and
// requests to it are paused.
var ErrCircuitOpen = errors.New("model endpoint circuit breaker is open")

// APIError is an error answer from a model server, either an HTTP error
// status or an error object inside a 200 stream (StatusCode then holds the
// status the stream was opened with).
type APIError struct {
	Provider   string        // "openai", "anthropic"
	StatusCode int           // HTTP status
	Type       string        // provider error type, e.g. "rate_limit_error", "overloaded_error"
	Code       string        // provider error code, when distinct from Type
	Message    string        // provider message, secrets redacted
	RequestID  string        // x-request-id / request-id header
	RetryAfter time.Duration // from retry-after-ms / Retry-After, 0 if absent
	// InStream is true when the error arrived inside a successful stream.
	InStream bool
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "no message"
	}
	s := fmt.Sprintf("%s API error", e.Provider)
	if e.StatusCode != 0 {
		s += fmt.Sprintf(" %d", e.StatusCode)
	}
	if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	s += ": " + msg
	if e.RequestID != "" {
		s += " [request " + e.RequestID + "]"
	}
	return s
}

// ConnectError reports that the model server could not be reached at all.
type ConnectError struct {
	Endpoint string // base URL, without credentials
	Err      error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("cannot reach the model server at %s: %v", e.Endpoint, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }
