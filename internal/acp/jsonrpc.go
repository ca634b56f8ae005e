// Package acp is a small implementation of the Agent Client Protocol's
// transport: JSON-RPC 2.0 messages, one per line, over a pair of streams
// (the agent's stdin and stdout). It is rein's own rather than
// github.com/coder/acp-go-sdk so the framing, the limits and the behaviour
// on hostile input stay under rein's control and free of a dependency
// whose protocol types trail the schema; the protocol types the agent
// needs are in types.go.
package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Standard JSON-RPC 2.0 error codes, and ACP's.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeAuthRequired is ACP's "authentication required".
	CodeAuthRequired = -32000
	// CodeRequestCancelled answers a request cancelled by $/cancel_request
	// or by the connection closing.
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error object. It is also the Go error handlers
// return to answer with a particular code.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// Errorf builds an Error with the code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Message is one JSON-RPC message: a request (ID and Method), a
// notification (Method, no ID) or a response (ID and Result or Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// IsRequest reports whether m expects a response.
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a notification.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports whether m answers a request of ours.
func (m *Message) IsResponse() bool { return m.Method == "" && m.ID != nil }

// nullID is the id of a response to a message whose id could not be read.
var nullID = json.RawMessage("null")

// ParseLine decodes one line of the stream. A line that is not a single
// well-formed JSON-RPC 2.0 message gives an Error to send back, with the
// id it should carry (null when the message's own id is unreadable).
// Batches (JSON arrays) are refused: ACP never sends them, and answering
// one element at a time would interleave with the session's stream.
func ParseLine(line []byte) (*Message, json.RawMessage, *Error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil, nil
	}
	switch line[0] {
	case '[':
		return nil, nullID, Errorf(CodeInvalidRequest, "batch requests are not supported")
	case '{':
	default:
		return nil, nullID, Errorf(CodeParseError, "not a JSON object")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, nullID, Errorf(CodeParseError, "malformed JSON")
	}
	id, hasID := raw["id"]
	if hasID && !validID(id) {
		return nil, nullID, Errorf(CodeInvalidRequest, "id must be a string, a number or null")
	}
	replyID := nullID
	if hasID {
		replyID = id
	}
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, replyID, Errorf(CodeInvalidRequest, "a member has the wrong type")
	}
	if m.JSONRPC != "2.0" {
		return nil, replyID, Errorf(CodeInvalidRequest, `jsonrpc must be "2.0"`)
	}
	if hasID {
		m.ID = id // "null" stays a (response) id rather than vanishing
	}
	_, hasMethod := raw["method"]
	switch {
	case hasMethod && m.Method == "":
		return nil, replyID, Errorf(CodeInvalidRequest, "method must be a non-empty string")
	case hasMethod:
		if p := bytes.TrimSpace(m.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' && !bytes.Equal(p, []byte("null")) {
			return nil, replyID, Errorf(CodeInvalidRequest, "params must be an object or an array")
		}
		return &m, nil, nil
	case !hasID:
		return nil, replyID, Errorf(CodeInvalidRequest, "neither a request, a notification nor a response")
	case m.Result == nil && m.Error == nil:
		return nil, replyID, Errorf(CodeInvalidRequest, "a response needs a result or an error")
	}
	return &m, nil, nil
}

// validID reports whether a raw id is a string, a number or null.
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64, nil:
		return true
	}
	return false
}
