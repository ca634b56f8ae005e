package mcpserver

import (
	"bytes"
	"net/http"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// HTTP headers the router reads.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	// modernVersion is the first stateless protocol revision.
	modernVersion = "2026-07-28"
)

// route is where a request goes.
type route int

const (
	// toStateless serves the request on a throwaway session: 2026-07-28
	// requests, and legacy requests that carry no session.
	toStateless route = iota
	// toStateful serves the request on a kept session: initialize, and
	// everything that names a session.
	toStateful
)

// routeHead decides from the headers alone, when they suffice. It reports
// false when the body must be read: a POST with no session and no modern
// protocol header may be an initialize.
func routeHead(r *http.Request) (route, bool) {
	if r.Header.Get(headerSessionID) != "" {
		// A session was issued by the stateful handler; only it knows
		// the session (and answers 404 once it is gone).
		return toStateful, true
	}
	// Dates in YYYY-MM-DD form order as strings; this is the comparison
	// the SDK itself uses to recognise the modern protocol.
	if r.Header.Get(headerProtocolVersion) >= modernVersion {
		return toStateless, true
	}
	if r.Method != http.MethodPost {
		// GET and DELETE exist only within a legacy session: the stateful
		// handler explains that a session ID is required.
		return toStateful, true
	}
	return toStateless, false
}

// routeBody decides for a POST without session or modern header: an
// initialize opens a session; anything else (a legacy request sent without
// a session, a modern request missing its header, garbage) is served
// statelessly, where the SDK answers it or rejects it with the right
// error instead of minting a session that could never be initialised.
func routeBody(body []byte) route {
	if hasInitialize(body) {
		return toStateful
	}
	return toStateless
}

// hasInitialize reports whether a JSON-RPC message, or a batch of them,
// contains an initialize request. Anything unparsable is not one.
func hasInitialize(body []byte) bool {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return false
	}
	switch body[0] {
	case '{':
		return isInitialize(body)
	case '[':
		var batch []jsontext.Value
		if jsonv2.Unmarshal(body, &batch) != nil {
			return false
		}
		for _, m := range batch {
			if isInitialize(m) {
				return true
			}
		}
	}
	return false
}

// isInitialize reports whether one message is an initialize request
// (a notification named initialize, without an id, is not). Member names
// match exactly, as JSON-RPC requires (encoding/json would also accept
// "METHOD").
func isInitialize(msg []byte) bool {
	var head struct {
		Method string         `json:"method"`
		ID     jsontext.Value `json:"id"`
	}
	if jsonv2.Unmarshal(msg, &head) != nil {
		return false
	}
	return head.Method == "initialize" && len(head.ID) > 0 && string(head.ID) != "null"
}
