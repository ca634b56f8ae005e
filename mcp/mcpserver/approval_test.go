package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// askExec is a policy asking about commands and allowing the rest.
var askExec = deciderFunc(func(_ context.Context, c policy.Call) policy.Decision {
	if c.Spec.Effects.Exec {
		return policy.Decision{Action: policy.Ask, Reason: "running commands needs approval", Rule: "test:ask-exec"}
	}
	return policy.Decision{Action: policy.Allow, Reason: "test allows", Rule: "test:allow"}
})

// decisionLog records the decisions a server acted on.
type decisionLog struct {
	mu  sync.Mutex
	got []policy.Decision
}

func (l *decisionLog) add(_ policy.Call, d policy.Decision) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, d)
}

func (l *decisionLog) all() []policy.Decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]policy.Decision(nil), l.got...)
}

// elicitingClient is a go-sdk client whose user answers every
// elicitation with action, recording the messages it was shown.
type elicitingClient struct {
	action   string
	mu       sync.Mutex
	messages []string
}

func (e *elicitingClient) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		e.mu.Lock()
		e.messages = append(e.messages, req.Params.Message)
		e.mu.Unlock()
		return &sdk.ElicitResult{Action: e.action}, nil
	}}
}

func (e *elicitingClient) shown() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.messages...)
}

// connect connects a client with opts to s over transport ("http":
// loopback Streamable HTTP, "stdio": in-memory pipes) speaking version.
func connect(t *testing.T, s *Server, transport, version string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "rein-test", Version: "1"}, opts)
	var tr sdk.Transport
	switch transport {
	case "http":
		tr = &sdk.StreamableClientTransport{Endpoint: httpServer(t, s).URL, MaxRetries: -1}
	case "stdio":
		clientIn, serverOut := io.Pipe()
		serverIn, clientOut := io.Pipe()
		sctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.ServeStdio(sctx, serverIn, serverOut)
			serverOut.Close()
		}()
		t.Cleanup(func() {
			clientOut.Close()
			stop()
			<-done
		})
		tr = &sdk.IOTransport{Reader: clientIn, Writer: clientOut}
	}
	cs, err := c.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting (%s, %s): %v", transport, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestApprovalElicited: with ElicitApprovals, a call the policy asks
// about is put to a real go-sdk client as an elicitation — in both eras,
// over HTTP and stdio — and the user's answer decides it: accept runs the
// call, decline and cancel deny it with a reason saying so.
func TestApprovalElicited(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		for _, version := range []string{modern, legacy} {
			for _, action := range []string{"accept", "decline", "cancel"} {
				t.Run(transport+"/"+version+"/"+action, func(t *testing.T) {
					keys := &keyRecorder{}
					log := &decisionLog{}
					s := newTestServer(t, Config{Tools: testTools(t, keys), Policy: askExec, ElicitApprovals: true, OnDecision: log.add})
					user := &elicitingClient{action: action}
					cs := connect(t, s, transport, version, user.options())

					text, isErr := call(t, cs, "run", map[string]any{"command": "make test"})
					shown := user.shown()
					if len(shown) != 1 || !strings.Contains(shown[0], `run {"command":"make test"}`) || !strings.Contains(shown[0], "running commands needs approval") {
						t.Fatalf("the user was shown %q; want one approval naming the call and the policy's reason", shown)
					}
					decisions := log.all()
					if len(decisions) != 1 {
						t.Fatalf("decisions acted on: %+v; want exactly one", decisions)
					}
					if action == "accept" {
						if isErr || text != "ran make test" || len(keys.all()) != 1 {
							t.Fatalf("accepted call: %q (isError %v), ran %d times; want it run once", text, isErr, len(keys.all()))
						}
						if d := decisions[0]; d.Action != policy.Allow || d.Rule != ruleClientApproved {
							t.Errorf("decision %+v; want Allow by %s", d, ruleClientApproved)
						}
						return
					}
					want := map[string]string{"decline": "did not approve it (declined)", "cancel": "did not approve it (cancelled)"}[action]
					if !isErr || !strings.Contains(text, "tool call denied") || !strings.Contains(text, want) || len(keys.all()) != 0 {
						t.Fatalf("%s: %q (isError %v), ran %d times; want a denial saying %q", action, text, isErr, len(keys.all()), want)
					}
					if d := decisions[0]; d.Action != policy.Deny || d.Rule != ruleClientDeclined {
						t.Errorf("decision %+v; want Deny by %s", d, ruleClientDeclined)
					}
				})
			}
		}
	}
}

// TestApprovalWithoutElicitation: a client without elicitation, or a
// server without ElicitApprovals, resolves Ask as before — by the
// Approver, or denied with the advice when there is none — and calls the
// policy allows are never put to the user.
func TestApprovalWithoutElicitation(t *testing.T) {
	for _, version := range []string{modern, legacy} {
		t.Run(version, func(t *testing.T) {
			s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{}), Policy: askExec, ElicitApprovals: true})
			cs := connect(t, s, "http", version, nil)
			if text, isErr := call(t, cs, "run", map[string]any{"command": "make"}); !isErr || !strings.Contains(text, "no one to ask") {
				t.Fatalf("no elicitation: %q (isError %v); want today's denial", text, isErr)
			}

			user := &elicitingClient{action: "accept"}
			off := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{}), Policy: askExec})
			cs = connect(t, off, "http", version, user.options())
			if text, isErr := call(t, cs, "run", map[string]any{"command": "make"}); !isErr || !strings.Contains(text, "no one to ask") || len(user.shown()) != 0 {
				t.Fatalf("ElicitApprovals off: %q (isError %v), shown %q; want today's denial", text, isErr, user.shown())
			}

			on := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{}), Policy: askExec, ElicitApprovals: true})
			cs = connect(t, on, "http", version, user.options())
			if text, isErr := call(t, cs, "echo", map[string]any{"text": "hi"}); isErr || text != "hi" || len(user.shown()) != 0 {
				t.Fatalf("allowed call: %q (isError %v), shown %q; want it run without asking", text, isErr, user.shown())
			}
		})
	}
}

// TestApprovalStateRefused drives the 2026-07-28 rounds by hand: answers
// without the server's state are not taken as an approval, and a state
// that was tampered with or is replayed onto other arguments is refused
// with a protocol error naming the reason.
func TestApprovalStateRefused(t *testing.T) {
	keys := &keyRecorder{}
	s := newTestServer(t, Config{Tools: testTools(t, keys), Policy: askExec, ElicitApprovals: true})
	user := &elicitingClient{action: "accept"}
	opts := user.options()
	opts.MultiRoundTrip = &sdk.MultiRoundTripOptions{Disabled: true}
	cs := connect(t, s, "http", modern, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	accept := sdk.InputResponseMap{ApprovalInputKey: &sdk.ElicitResult{Action: "accept"}}
	round := func(args map[string]any, state string, answers sdk.InputResponseMap) (*sdk.CallToolResult, error) {
		return cs.CallTool(ctx, &sdk.CallToolParams{Name: "run", Arguments: args, RequestState: state, InputResponses: answers})
	}

	first, err := round(map[string]any{"command": "make"}, "", nil)
	if err != nil || !first.NeedsInput() || first.RequestState == "" || first.InputRequests[ApprovalInputKey] == nil {
		t.Fatalf("first round = %+v, %v; want an approval input request with a state", first, err)
	}
	if again, err := round(map[string]any{"command": "make"}, "", accept); err != nil || !again.NeedsInput() {
		t.Fatalf("an answer without the state = %+v, %v; want the approval asked again", again, err)
	}
	body, mac, _ := strings.Cut(first.RequestState, ".")
	for name, tc := range map[string]struct {
		args  map[string]any
		state string
		want  string
	}{
		"replayed onto other arguments": {map[string]any{"command": "rm -rf ~"}, first.RequestState, "other arguments"},
		"tampered":                      {map[string]any{"command": "make"}, body + "x." + mac, "integrity check"},
		"forged":                        {map[string]any{"command": "make"}, "e30." + mac, "integrity check"},
	} {
		res, err := round(tc.args, tc.state, accept)
		if err == nil || !strings.Contains(err.Error(), "invalid requestState") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %+v, %v; want an invalid requestState error saying %q", name, res, err, tc.want)
		}
	}
	if n := len(keys.all()); n != 0 {
		t.Fatalf("the tool ran %d times before an approval", n)
	}
	if res, err := round(map[string]any{"command": "make"}, first.RequestState, accept); err != nil || res.IsError || resultText(res) != "ran make" {
		t.Fatalf("the genuine round = %+v, %v; want the call run", res, err)
	}
}

// TestApprovalInTask: a task-capable tool whose call the policy asks
// about waits for the approval inside its task; for a 2025-11-25 session
// the server asks the client with elicitation/create (tagged with the
// related-task _meta), and the accepted call runs in the task to
// completion.
func TestApprovalInTask(t *testing.T) {
	b := newBlocker()
	set, err := tool.NewSet(b.tool())
	if err != nil {
		t.Fatal(err)
	}
	askAll := deciderFunc(func(context.Context, policy.Call) policy.Decision {
		return policy.Decision{Action: policy.Ask, Reason: "builds need approval", Rule: "test:ask"}
	})
	s := newTestServer(t, Config{Tools: set, Policy: askAll, ElicitApprovals: true,
		TaskTools: map[string]TaskSupport{"build": TaskOptional}})
	t.Cleanup(s.Close)
	c := newRawStdio(t, s, legacy)
	asked := make(chan struct{}, 1)
	c.onRequest = func(method string, params json.RawMessage) (any, *rawError) {
		if method != "elicitation/create" || !strings.Contains(string(params), "builds need approval") ||
			!strings.Contains(string(params), `"io.modelcontextprotocol/related-task":{"taskId":`) {
			return nil, &rawError{Code: -32601, Message: "unexpected " + method + " " + string(params)}
		}
		asked <- struct{}{}
		return map[string]any{"action": "accept"}, nil
	}
	created := startLegacyTask(t, c, "build", map[string]any{"text": "all"}, 60_000)
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the client was never asked to approve the build")
	}
	b.waitStarted(t)
	close(b.release)
	res, err := c.call("tasks/result", map[string]any{"taskId": created.TaskID})
	if err != nil || !strings.Contains(string(res), "built all") {
		t.Fatalf("tasks/result = %s, %v; want the approved build's result", res, err)
	}
}
