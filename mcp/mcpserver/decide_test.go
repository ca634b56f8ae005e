package mcpserver

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/policy"
)

// decide returns a policy answering action with reason for every call.
func decide(action policy.Action, reason string, hard bool) policy.Decider {
	return deciderFunc(func(context.Context, policy.Call) policy.Decision {
		return policy.Decision{Action: action, Reason: reason, Rule: "test", Hard: hard}
	})
}

func TestPolicyDecides(t *testing.T) {
	approveAll := approverFunc(func(_ context.Context, c policy.Call, d policy.Decision) (policy.Decision, error) {
		return policy.Decision{Action: policy.Allow, Reason: "approved " + c.Spec.Name, Rule: "test:approver"}, nil
	})
	refuse := approverFunc(func(context.Context, policy.Call, policy.Decision) (policy.Decision, error) {
		return policy.Decision{Action: policy.Deny, Reason: "the operator said no", Rule: "test:approver"}, nil
	})
	broken := approverFunc(func(context.Context, policy.Call, policy.Decision) (policy.Decision, error) {
		return policy.Decision{}, errTest
	})
	panicky := approverFunc(func(context.Context, policy.Call, policy.Decision) (policy.Decision, error) {
		panic("approver exploded")
	})
	tests := []struct {
		name     string
		policy   policy.Decider
		approver policy.Approver
		isError  bool
		want     string
	}{
		{"allow runs the tool", decide(policy.Allow, "fine", false), nil, false, "hello"},
		{"deny answers with the reason", decide(policy.Deny, "notes are read-only here", false), approveAll, true, "tool call denied: notes are read-only here"},
		{"deny without a reason still explains", decide(policy.Deny, "", false), nil, true, "tool call denied: the policy does not allow this call"},
		{"ask without an approver is denied", decide(policy.Ask, "write_note needs approval: the test asks", false), nil, true, "no one to ask"},
		{"ask with an approver that allows runs", decide(policy.Ask, "asks", false), approveAll, false, "hello"},
		{"ask with an approver that refuses is denied", decide(policy.Ask, "asks", false), refuse, true, "the operator said no"},
		{"a failing approver denies", decide(policy.Ask, "asks", false), broken, true, "approval failed: test failure"},
		{"a panicking approver denies", decide(policy.Ask, "asks", false), panicky, true, "approver exploded"},
		{"a hard ask is never approved", decide(policy.Ask, "hard stop", true), approveAll, true, "hard stop"},
		{"a hard allow is not trusted", decide(policy.Allow, "odd", true), nil, true, "odd"},
		{"an unknown action denies", decide(policy.Action(42), "what", false), approveAll, true, "what"},
		{"a panicking policy denies", deciderFunc(func(context.Context, policy.Call) policy.Decision { panic("policy exploded") }), approveAll, true, "the policy failed (policy exploded)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []policy.Decision
			var mu sync.Mutex
			s := newTestServer(t, Config{
				Tools: testTools(t, &keyRecorder{}), Policy: tt.policy, Approver: tt.approver,
				OnDecision: func(_ policy.Call, d policy.Decision) {
					mu.Lock()
					defer mu.Unlock()
					seen = append(seen, d)
				},
			})
			cs := stdioSession(t, s, modern)
			text, isErr := call(t, cs, "write_note", map[string]any{"text": "hello"})
			if isErr != tt.isError || !strings.Contains(text, tt.want) {
				t.Fatalf("got isError=%v %q; want isError=%v containing %q", isErr, text, tt.isError, tt.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 1 {
				t.Fatalf("OnDecision saw %d decisions, want 1", len(seen))
			}
			wantAction := policy.Allow
			if tt.isError {
				wantAction = policy.Deny
			}
			if seen[0].Action != wantAction {
				t.Errorf("OnDecision saw %v, want %v", seen[0].Action, wantAction)
			}
		})
	}
}

// TestRealPolicy runs the layered policy engine: with the editor preset a
// command asks, so without an approver it is denied and the tool never
// runs; with policy.Auto it runs.
func TestRealPolicy(t *testing.T) {
	engine, err := policy.NewEngine(policy.EngineConfig{Workspace: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		approver policy.Approver
		isError  bool
		want     string
	}{
		{"no approver", nil, true, "no one to ask"},
		{"never", policy.Never(), true, "--approve auto"},
		{"auto", policy.Auto(), false, "ran make build"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			keys := &keyRecorder{}
			s := newTestServer(t, Config{Tools: testTools(t, keys), Policy: engine, Approver: tt.approver})
			cs := stdioSession(t, s, legacy)
			text, isErr := call(t, cs, "run", map[string]any{"command": "make build"})
			if isErr != tt.isError || !strings.Contains(text, tt.want) {
				t.Fatalf("got isError=%v %q; want isError=%v containing %q", isErr, text, tt.isError, tt.want)
			}
			if ran := len(keys.all()) > 0; ran == tt.isError {
				t.Errorf("the tool ran=%v after isError=%v", ran, isErr)
			}
			// A hard denial stays a denial even with --approve auto.
			text, isErr = call(t, cs, "run", map[string]any{"command": "sudo rm -rf /"})
			if !isErr || !strings.Contains(text, "denied") {
				t.Errorf("sudo rm -rf /: got isError=%v %q, want a denial", isErr, text)
			}
		})
	}
}

func TestIdempotencyKeys(t *testing.T) {
	keys := &keyRecorder{}
	s := newTestServer(t, Config{Tools: testTools(t, keys)})
	cs := stdioSession(t, s, legacy)
	call(t, cs, "echo", map[string]any{"text": "a"})
	call(t, cs, "write_note", map[string]any{"text": "b"})
	call(t, cs, "write_note", map[string]any{"text": "c"})
	got := keys.all()
	if len(got) != 3 {
		t.Fatalf("got %d calls, want 3", len(got))
	}
	if got[0] != "" {
		t.Errorf("a pure tool got idempotency key %q; only mutating calls carry one", got[0])
	}
	if got[1] == "" || got[2] == "" || got[1] == got[2] {
		t.Errorf("mutating calls got keys %q and %q; want two distinct keys", got[1], got[2])
	}
	if !strings.HasPrefix(got[1], "mcp-"+s.idPrefix+"-") {
		t.Errorf("key %q does not carry the server's prefix %q", got[1], s.idPrefix)
	}
}

// TestApproverSerialised checks concurrent asks reach the approver one at
// a time, as the Approver contract requires.
func TestApproverSerialised(t *testing.T) {
	var inside, most atomic.Int32
	slowApprove := approverFunc(func(context.Context, policy.Call, policy.Decision) (policy.Decision, error) {
		n := inside.Add(1)
		defer inside.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		return policy.Decision{Action: policy.Allow, Reason: "ok"}, nil
	})
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{}), Policy: decide(policy.Ask, "asks", false), Approver: slowApprove})
	ts := httpServer(t, s)
	var wg sync.WaitGroup
	errs := make([]string, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, isErr, err := tryCall(ts.URL, modern, "echo", map[string]any{"text": "x"})
			switch {
			case err != nil:
				errs[i] = err.Error()
			case isErr:
				errs[i] = text
			}
		}()
	}
	wg.Wait()
	if diff := cmp.Diff(make([]string, 4), errs); diff != "" {
		t.Errorf("calls failed (-want +got):\n%s", diff)
	}
	if got := most.Load(); got != 1 {
		t.Errorf("the approver ran %d calls at once, want 1", got)
	}
}

// TestApproverWaitCancelled checks a call waiting for the approver gives
// up (denied) when its context ends.
func TestApproverWaitCancelled(t *testing.T) {
	s := newTestServer(t, Config{Policy: allow, Approver: approverFunc(func(context.Context, policy.Call, policy.Decision) (policy.Decision, error) {
		return policy.Decision{Action: policy.Allow}, nil
	})})
	s.approveSem <- struct{}{} // the approver is busy
	defer s.unlockApprover()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	d := s.approve(ctx, policy.Call{}, policy.Decision{Action: policy.Ask, Reason: "asks"})
	if d.Action != policy.Deny || !strings.Contains(d.Reason, "cancelled") {
		t.Fatalf("got %+v, want a denial saying the approval was cancelled", d)
	}
}
