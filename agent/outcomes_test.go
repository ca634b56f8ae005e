package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// A check that cannot run ends the gate at once: VerificationUnavailable,
// one model call, no feedback message blaming the model.
func TestVerifyUnavailableEndsAtOnce(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("Done.")).Repeat()
	v := &fakeVerifier{checks: func(int) []Check {
		return []Check{fixedCheck("pytest", CheckResult{ExitCode: 127, Err: "command not found (exit 127)", Unavailable: true, Output: "bash: pytest: command not found\n"})}
	}}
	a := mustAgent(t, Config{Provider: p, Verifier: v})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "fix")
	if r.outcome.Kind != VerificationUnavailable || r.err != nil || p.Calls() != 1 {
		t.Fatalf("outcome %+v err %v calls %d", r.outcome, r.err, p.Calls())
	}
	if r.outcome.Reason != "the check `pytest` cannot run: command not found (exit 127)" || !strings.Contains(r.outcome.Err, "bash: pytest: command not found") {
		t.Errorf("reason %q err %q", r.outcome.Reason, r.outcome.Err)
	}
	if res := verifyInfos(r, EventVerifyResult); len(res) != 1 || !res[0].Unavailable || res[0].Summary != "" {
		t.Errorf("verify.result %+v", res)
	}
	for _, m := range c.Messages() {
		if strings.HasPrefix(m.Text(), "Verification failed") {
			t.Errorf("the model was told: %q", m.Text())
		}
	}
}

// The feedback and the verify.result lead with testout's summary.
func TestVerifyFeedbackLeadsWithSummary(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("Done.")).Repeat()
	out := "--- FAIL: TestAdd (0.00s)\n    add_test.go:9: 1+1 = 3\nFAIL\n"
	v := &fakeVerifier{checks: func(int) []Check { return []Check{fixedCheck("go test ./...", CheckResult{ExitCode: 1, Output: out})} }}
	a := mustAgent(t, Config{Provider: p, Verifier: v, MaxVerifyAttempts: 2})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "fix")
	const sum = "1 failing test: TestAdd (add_test.go:9)"
	var fb string
	for _, m := range c.Messages() {
		if strings.HasPrefix(m.Text(), "Verification failed") {
			fb = m.Text()
		}
	}
	if !strings.Contains(fb, "exited with code 1\n"+sum+"\noutput:\n--- FAIL") {
		t.Errorf("feedback %q", fb)
	}
	if res := verifyInfos(r, EventVerifyResult); len(res) != 2 || res[0].Summary != sum || len(res[0].Failures) != 1 || res[0].Failures[0].Line != 9 {
		t.Errorf("verify.result %+v", res)
	}
	if !strings.Contains(r.outcome.Err, sum) {
		t.Errorf("outcome err %q", r.outcome.Err)
	}
}

// Asks no one can answer (no approver, policy.Never) are not denials;
// MaxConsecutiveDenials of them in a row end NeedsApproval, naming them.
func TestUnansweredAsksNotDenials(t *testing.T) {
	ask := mapDecider{
		"echo": policy.Decision{Action: policy.Ask, Reason: "echo needs approval: test"},
		"no":   policy.Decision{Action: policy.Deny, Reason: "denied"},
	}
	for _, tc := range []struct {
		name     string
		approver policy.Approver
	}{{"no approver", nil}, {"never", policy.Never()}} {
		t.Run(tc.name, func(t *testing.T) {
			p := modeltest.NewScripted(
				modeltest.ToolCalls(call("1", "echo", `{"text":"a"}`)),
				modeltest.ToolCalls(call("2", "echo", `{"text":"b"}`)),
				modeltest.Text("gave up"),
			)
			a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool()), Policy: ask, Approver: tc.approver, MaxConsecutiveDenials: 2})
			r := collect(t, a, context.Background(), NewConversation(""), "go")
			if r.outcome.Kind != NeedsApproval || len(r.outcome.NeedsApproval) != 2 || r.outcome.NeedsApproval[1].CallID != "2" ||
				!strings.Contains(r.outcome.Reason, "2 tool calls needed approval and no one could be asked (echo)") {
				t.Fatalf("outcome %+v", r.outcome)
			}
		})
	}
	// An unanswered ask between two denials: no limit of 2 is reached.
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("1", "no", `{}`)),
		modeltest.ToolCalls(call("2", "echo", `{"text":"b"}`)),
		modeltest.ToolCalls(call("3", "no", `{}`)),
		modeltest.Text("gave up"),
	)
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, echoTool(), newTool("no", nil)), Policy: ask, Approver: policy.Never(), MaxConsecutiveDenials: 3})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != Complete || len(r.outcome.NeedsApproval) != 1 || !strings.Contains(r.outcome.NeedsApproval[0].Reason, "--approve auto") {
		t.Fatalf("outcome %+v", r.outcome)
	}
}

// A content_filter stop ends ContentFiltered at once; the filtered
// answer's tool calls never run.
func TestContentFilteredEnds(t *testing.T) {
	ran := false
	tl := newTool("echo", func(context.Context, json.RawMessage) (*tool.Result, error) {
		ran = true
		return &tool.Result{}, nil
	})
	p := modeltest.NewScripted(modeltest.Events(
		model.Event{Kind: model.EventTextDelta, Text: "Partly"},
		model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: "1", Name: "echo", Args: []byte(`{}`)}},
		model.Event{Kind: model.EventStop, StopReason: model.StopContentFilter},
	))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, tl)})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	if r.outcome.Kind != ContentFiltered || r.outcome.Text != "Partly" || r.outcome.ToolCalls != 0 || p.Calls() != 1 || ran {
		t.Fatalf("outcome %+v calls %d ran %v", r.outcome, p.Calls(), ran)
	}
	checkHistory(t, c.Messages())
}
