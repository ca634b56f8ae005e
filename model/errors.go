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
	// Attempts is how many requests were sent before this error was
	// returned (1: it was not retried); 0 when unknown.
	Attempts int
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

// TimeoutError reports a wait on a reachable model server that ran past
// its configured bound: no response headers in time, a stream that went
// silent, or the overall request deadline. Its text says what the server
// did and names the setting that bounds the wait, e.g. "the model server
// at http://127.0.0.1:8080 accepted the connection but sent no response
// headers in 10m0s (model.header_timeout)".
type TimeoutError struct {
	Endpoint string        // base URL, without credentials
	Setting  string        // the config key of the bound, e.g. "model.header_timeout"
	Limit    time.Duration // the bound that ran out
	// Message is the whole description; Error returns it.
	Message string
	// Attempts is how many requests were sent (header timeouts may be
	// retried within the retry budget); 0 when unknown.
	Attempts int
	// Err is the sentinel of the kind of wait (transport.ErrHeaderTimeout,
	// ErrIdleTimeout, ErrRequestTimeout), for errors.Is.
	Err error
}

func (e *TimeoutError) Error() string { return e.Message }

func (e *TimeoutError) Unwrap() error { return e.Err }

// DefaultMaxResponseBytes bounds the content of one model answer (its
// text, reasoning and tool-call arguments together) when a provider's
// MaxResponseBytes is 0: far above any real answer (128k output tokens
// are about 0.5 MiB), and low enough that a runaway or hostile server
// cannot make rein hold hundreds of megabytes.
const DefaultMaxResponseBytes = 4 << 20

// ErrResponseTooLarge reports an answer whose content went past the
// provider's MaxResponseBytes; the stream is abandoned at that point.
var ErrResponseTooLarge = errors.New("the model's answer is larger than model.max_response_bytes")
