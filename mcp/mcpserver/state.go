package mcpserver

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Multi-round-trip calls (SEP-2322). A tool that needs its client's input
// answers with InputRequests, and the client calls again with its
// InputResponses and the requestState it was given. The server keeps
// nothing between rounds — in the 2026-07-28 era the next round may reach
// another replica — so what a tool must remember travels in requestState.
// The client holds it, so it is signed: a client can return it or not,
// but cannot forge it, alter it, keep it past its expiry, or move it onto
// another call. For clients of the initialize era the SDK turns the same
// InputRequests into real elicitation, sampling and roots requests and
// calls the handler again with the answers and the state, so one handler
// serves both eras.

// Defaults for StateOptions fields left zero.
const (
	// DefaultStateTTL is how long a requestState stays valid: long
	// enough for a person to answer an elicitation, short enough that
	// a leaked state is soon useless.
	DefaultStateTTL = 10 * time.Minute
	// DefaultMaxStateBytes bounds a requestState, as issued and as
	// accepted. A state is echoed by the client on every round, and the
	// decoder must not be a way to make the server allocate.
	DefaultMaxStateBytes = 16 << 10
)

// ErrRequestState is wrapped by every reason a requestState is refused.
var ErrRequestState = errors.New("invalid requestState")

// StateOptions configures NewStateSigner.
type StateOptions struct {
	// Key is the HMAC-SHA256 key; at least 32 bytes. Nil draws a random
	// key, which is right for one process. Replicas behind one endpoint
	// must share a key, since any of them may receive the next round.
	Key []byte
	// TTL is how long a state is accepted after it was issued (zero:
	// DefaultStateTTL).
	TTL time.Duration
	// MaxBytes bounds a state (zero: DefaultMaxStateBytes).
	MaxBytes int
	// Now is the clock (nil: time.Now); for tests.
	Now func() time.Time
}

// StateSigner issues and verifies the requestState of multi-round-trip
// tool calls. A state is bound to the tool it was issued by and to a hash
// of the call's arguments, so it cannot be replayed onto another call. It
// is safe for concurrent use.
type StateSigner struct {
	key      []byte
	ttl      time.Duration
	maxBytes int
	now      func() time.Time
}

// NewStateSigner returns a signer for opts.
func NewStateSigner(opts StateOptions) (*StateSigner, error) {
	s := &StateSigner{key: opts.Key, ttl: opts.TTL, maxBytes: opts.MaxBytes, now: opts.Now}
	switch {
	case s.key == nil:
		s.key = make([]byte, 32)
		rand.Read(s.key) // never fails (crypto/rand since Go 1.24)
	case len(s.key) < 32:
		return nil, fmt.Errorf("%w: StateOptions.Key has %d bytes; use at least 32 random bytes", ErrConfig, len(s.key))
	}
	if s.ttl < 0 || s.maxBytes < 0 {
		return nil, fmt.Errorf("%w: StateOptions.TTL and MaxBytes must not be negative", ErrConfig)
	}
	if s.ttl == 0 {
		s.ttl = DefaultStateTTL
	}
	if s.maxBytes == 0 {
		s.maxBytes = DefaultMaxStateBytes
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// stateEnvelope is what a requestState carries under its MAC.
type stateEnvelope struct {
	Version int    `json:"v"`
	Tool    string `json:"t"`
	Args    []byte `json:"a"` // SHA-256 of the canonical arguments
	Expires int64  `json:"e"` // Unix seconds
	Data    []byte `json:"d"`
}

const stateVersion = 1

// Ask answers a call with input requests and a state carrying data,
// bound to this call: the next round sees data again from Open.
func (s *StateSigner) Ask(req *sdk.CallToolRequest, requests sdk.InputRequestMap, data []byte) (*sdk.CallToolResult, error) {
	state, err := s.Seal(req, data)
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{InputRequests: requests, RequestState: state}, nil
}

// Seal returns a requestState carrying data for the call req, valid for
// the signer's TTL. It fails when the state would exceed the size bound.
func (s *StateSigner) Seal(req *sdk.CallToolRequest, data []byte) (string, error) {
	if data == nil {
		data = []byte{} // one spelling: Open returns empty data as non-nil
	}
	env := stateEnvelope{
		Version: stateVersion,
		Tool:    req.Params.Name,
		Args:    argsDigest(req.Params.Arguments),
		Expires: s.now().Add(s.ttl).Unix(),
		Data:    data,
	}
	body, err := json.Marshal(env)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	state := enc.EncodeToString(body) + "." + enc.EncodeToString(s.mac(body))
	if len(state) > s.maxBytes {
		return "", fmt.Errorf("mcpserver: a requestState of %d bytes exceeds the %d-byte bound; carry less in it", len(state), s.maxBytes)
	}
	return state, nil
}

// Open verifies the requestState of req and returns the data it carries.
// A request without one returns nil, nil: the first round. Every refusal
// wraps ErrRequestState and says why; answer it with StateError.
func (s *StateSigner) Open(req *sdk.CallToolRequest) ([]byte, error) {
	state := req.Params.RequestState
	if state == "" {
		return nil, nil
	}
	env, err := s.verify(state)
	if err != nil {
		return nil, err
	}
	if env.Tool != req.Params.Name {
		return nil, fmt.Errorf("%w: it was issued for tool %q, not %q", ErrRequestState, env.Tool, req.Params.Name)
	}
	if !hmac.Equal(env.Args, argsDigest(req.Params.Arguments)) {
		return nil, fmt.Errorf("%w: it was issued for a call with other arguments", ErrRequestState)
	}
	if now := s.now(); now.Unix() > env.Expires {
		return nil, fmt.Errorf("%w: it expired %v ago; call the tool again without it", ErrRequestState, now.Sub(time.Unix(env.Expires, 0)).Round(time.Second))
	}
	if env.Data == nil {
		env.Data = []byte{}
	}
	return env.Data, nil
}

// verify checks a state's size, spelling and MAC, and decodes it.
func (s *StateSigner) verify(state string) (*stateEnvelope, error) {
	if len(state) > s.maxBytes {
		return nil, fmt.Errorf("%w: it has %d bytes, more than the %d this server issues", ErrRequestState, len(state), s.maxBytes)
	}
	bad := fmt.Errorf("%w: it failed its integrity check (forged, altered or issued by another server)", ErrRequestState)
	enc := base64.RawURLEncoding
	head, sig, ok := strings.Cut(state, ".")
	if !ok {
		return nil, bad
	}
	body, err1 := enc.DecodeString(head)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(body)) {
		return nil, bad
	}
	// The decoder skips newlines and tolerates stray bits; accept only
	// the exact encoding Seal produced, so a state has one spelling.
	if enc.EncodeToString(body) != head || enc.EncodeToString(mac) != sig {
		return nil, bad
	}
	var env stateEnvelope
	if err := json.Unmarshal(body, &env); err != nil || env.Version != stateVersion {
		// Signed by this key but not understood: a state of another
		// version of this server.
		return nil, fmt.Errorf("%w: its format is not one this server reads", ErrRequestState)
	}
	return &env, nil
}

func (s *StateSigner) mac(body []byte) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write(body)
	return h.Sum(nil)
}

// argsDigest hashes a call's arguments in a canonical form (sorted keys,
// numbers as written, absent arguments as {}), so a client re-encoding
// the same arguments keeps its state valid and different arguments never
// share one.
func argsDigest(args json.RawMessage) []byte {
	canonical := []byte(normalizeArgs(args))
	dec := json.NewDecoder(bytes.NewReader(canonical))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil && !dec.More() {
		if b, err := json.Marshal(v); err == nil {
			canonical = b
		}
	}
	sum := sha256.Sum256(canonical)
	return sum[:]
}

// StateError is the JSON-RPC error (invalid params) a tool handler
// answers a refused requestState with.
func StateError(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}
