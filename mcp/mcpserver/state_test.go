package mcpserver

//lint:file-ignore SA1019 roots serve clients of the 2025 revisions, which rein supports.

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// callReq is a tools/call request as a handler sees it.
func callReq(name, args, state string) *sdk.CallToolRequest {
	return &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{
		Name: name, Arguments: json.RawMessage(args), RequestState: state,
	}}
}

// testClock is a settable clock.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

func newTestSigner(t testing.TB, clock *testClock) *StateSigner {
	t.Helper()
	s, err := NewStateSigner(StateOptions{Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStateRoundTrip: a state opens to its data on the next round of the
// same call, also when the client re-encodes the same arguments, and a
// first round (no state) opens to nil.
func TestStateRoundTrip(t *testing.T) {
	clock := &testClock{t: time.Unix(1_800_000_000, 0)}
	s := newTestSigner(t, clock)
	first := callReq("deploy", `{"env":"prod","n":1.50,"tags":["a","b"]}`, "")
	if data, err := s.Open(first); data != nil || err != nil {
		t.Fatalf("Open without a state = %q, %v; want nil, nil", data, err)
	}
	res, err := s.Ask(first, sdk.InputRequestMap{"k": &sdk.ListRootsParams{}}, []byte("2:Ada"))
	if err != nil || res.RequestState == "" || res.InputRequests["k"] == nil {
		t.Fatalf("Ask = %+v, %v", res, err)
	}
	clock.t = clock.t.Add(DefaultStateTTL - time.Second)
	// The same arguments, re-encoded: keys reordered, spaces added.
	again := callReq("deploy", `{ "tags": ["a","b"], "n": 1.50, "env": "prod" }`, res.RequestState)
	if data, err := s.Open(again); err != nil || string(data) != "2:Ada" {
		t.Fatalf("Open(next round) = %q, %v; want 2:Ada", data, err)
	}
	// Empty data stays distinguishable from "no state".
	st, _ := s.Seal(first, nil)
	if data, err := s.Open(callReq("deploy", string(first.Params.Arguments), st)); err != nil || data == nil {
		t.Fatalf("Open(state with empty data) = %v, %v; want non-nil empty data", data, err)
	}
}

// TestStateRefused: every way a state can be wrong is refused with
// ErrRequestState and a reason a client author can act on.
func TestStateRefused(t *testing.T) {
	clock := &testClock{t: time.Unix(1_800_000_000, 0)}
	s := newTestSigner(t, clock)
	other := newTestSigner(t, clock)
	args := `{"command":"make"}`
	good, err := s.Seal(callReq("run", args, ""), []byte("approval"))
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := other.Seal(callReq("run", args, ""), []byte("approval"))
	body, mac, _ := strings.Cut(good, ".")
	tamperedBody := []byte(body)
	tamperedBody[len(tamperedBody)/2] ^= 1
	if tamperedBody[len(tamperedBody)/2] == '.' {
		tamperedBody[len(tamperedBody)/2] = 'A'
	}
	small, _ := NewStateSigner(StateOptions{Now: clock.now, MaxBytes: 100})

	tests := []struct {
		name   string
		signer *StateSigner
		req    *sdk.CallToolRequest
		clock  time.Duration // advanced before Open
		want   string
	}{
		{"forged by another key", s, callReq("run", args, forged), 0, "integrity check"},
		{"tampered body", s, callReq("run", args, string(tamperedBody)+"."+mac), 0, "integrity check"},
		{"tampered signature", s, callReq("run", args, body+"."+strings.Repeat("A", len(mac))), 0, "integrity check"},
		{"another spelling", s, callReq("run", args, body+"\n."+mac), 0, "integrity check"},
		{"no separator", s, callReq("run", args, body), 0, "integrity check"},
		{"garbage", s, callReq("run", args, "!!!.???"), 0, "integrity check"},
		{"expired", s, callReq("run", args, good), DefaultStateTTL + time.Minute, "expired 1m0s ago"},
		{"oversized", s, callReq("run", args, good+strings.Repeat("A", DefaultMaxStateBytes)), 0, "more than the 16384"},
		{"over a smaller bound", small, callReq("run", args, good), 0, "more than the 100"},
		{"replayed onto other arguments", s, callReq("run", `{"command":"rm -rf /"}`, good), 0, "other arguments"},
		{"replayed onto absent arguments", s, callReq("run", ``, good), 0, "other arguments"},
		{"replayed onto another tool", s, callReq("write_file", args, good), 0, `issued for tool "run"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := clock.t
			defer func() { clock.t = saved }()
			clock.t = clock.t.Add(tt.clock)
			data, err := tt.signer.Open(tt.req)
			if !errors.Is(err, ErrRequestState) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open = %q, %v; want ErrRequestState saying %q", data, err, tt.want)
			}
			if data != nil {
				t.Errorf("a refused state returned data %q", data)
			}
		})
	}
}

// TestStateSealBound: a tool that tries to carry more than the bound is
// told so instead of issuing a state the server would refuse.
func TestStateSealBound(t *testing.T) {
	s, err := NewStateSigner(StateOptions{MaxBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Seal(callReq("t", `{}`, ""), make([]byte, 200)); err == nil || !strings.Contains(err.Error(), "exceeds the 200-byte bound") {
		t.Fatalf("Seal(oversized) error = %v", err)
	}
	if _, err := NewStateSigner(StateOptions{Key: []byte("short")}); !errors.Is(err, ErrConfig) {
		t.Fatalf("NewStateSigner(short key) error = %v; want ErrConfig", err)
	}
	if _, err := NewStateSigner(StateOptions{TTL: -time.Second}); !errors.Is(err, ErrConfig) {
		t.Fatalf("NewStateSigner(negative TTL) error = %v; want ErrConfig", err)
	}
}

// TestStateSharedKey: replicas sharing a key accept each other's states.
func TestStateSharedKey(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	a, _ := NewStateSigner(StateOptions{Key: key})
	b, _ := NewStateSigner(StateOptions{Key: key})
	st, err := a.Seal(callReq("t", `{"x":1}`, ""), []byte("d"))
	if err != nil {
		t.Fatal(err)
	}
	if data, err := b.Open(callReq("t", `{"x":1}`, st)); err != nil || string(data) != "d" {
		t.Fatalf("b.Open(a's state) = %q, %v", data, err)
	}
}

// FuzzRequestState feeds arbitrary states (and arguments) to the
// verifier: it never panics, refuses with ErrRequestState, and accepts
// only a state its key signed for this very call.
func FuzzRequestState(f *testing.F) {
	clock := &testClock{t: time.Unix(1_800_000_000, 0)}
	s := newTestSigner(f, clock)
	seedReq := callReq("run", `{"command":"make"}`, "")
	good, _ := s.Seal(seedReq, []byte("approval"))
	for _, seed := range []string{"", ".", "a.b", good, good + "-TAMPERED", "====.====", "\x00.\xff", strings.Repeat(".", 100)} {
		f.Add(seed, `{"command":"make"}`)
	}
	f.Add(good, `{"command":"make "}`)
	f.Add(good, `not json`)
	f.Fuzz(func(t *testing.T, state, args string) {
		req := callReq("run", args, state)
		data, err := s.Open(req)
		switch {
		case state == "":
			if data != nil || err != nil {
				t.Fatalf("no state opened to %q, %v", data, err)
			}
		case err != nil:
			if !errors.Is(err, ErrRequestState) || data != nil {
				t.Fatalf("refusal %v (data %q) does not wrap ErrRequestState", err, data)
			}
		default:
			// Accepted: it must be exactly what Seal makes for this
			// call and data (the clock has not moved).
			if again, _ := s.Seal(req, data); again != state {
				t.Fatalf("Open accepted %q, which the signer did not make for this call", state)
			}
		}
	})
}
