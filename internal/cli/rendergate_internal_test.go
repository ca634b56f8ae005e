package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
)

// TestTextRendererPlanAndVerify: the plan is a checklist ([x], [>] with
// the active form, [ ]); checks show on one line each as they start and
// end, a failure with the tail of its output; model text is escaped
// (termsafe) and redacted.
func TestTextRendererPlanAndVerify(t *testing.T) {
	var out, errw bytes.Buffer
	ex := newExplainer(config.ModelConfig{APIKey: "sk-render-secret-98765"})
	r := &textRenderer{out: &out, err: &errw, ex: ex}
	r.event(agent.Event{Type: agent.EventPlanUpdated, Plan: []agent.PlanItem{
		{Content: "Write the test", Status: agent.PlanCompleted},
		{Content: "Run the tests", ActiveForm: "Running the tests", Status: agent.PlanInProgress},
		{Content: "Update \x1b[31mREADME\x1b[0m sk-render-secret-98765", Status: agent.PlanPending},
	}})
	r.event(agent.Event{Type: agent.EventVerifyStarted, Verify: &agent.VerifyInfo{Check: "go test ./...", Attempt: 1}})
	r.event(agent.Event{Type: agent.EventVerifyResult, Verify: &agent.VerifyInfo{Check: "go test ./...", Attempt: 1, Passed: true, Duration: 2100 * time.Millisecond}})
	r.event(agent.Event{Type: agent.EventVerifyStarted, Verify: &agent.VerifyInfo{Check: "go vet ./...", Attempt: 1}})
	r.event(agent.Event{Type: agent.EventVerifyResult, Verify: &agent.VerifyInfo{Check: "go vet ./...", Attempt: 1, ExitCode: 1,
		Duration: 800 * time.Millisecond, Output: "a\nb\n\nx.go:3: bad\n"}})
	r.event(agent.Event{Type: agent.EventVerifyStarted, Verify: &agent.VerifyInfo{Check: "sleep 1000", Attempt: 1}})
	r.event(agent.Event{Type: agent.EventVerifyResult, Verify: &agent.VerifyInfo{Check: "sleep 1000", Attempt: 1, ExitCode: -1,
		Duration: time.Second, Err: "timed out after 1s"}})
	r.event(agent.Event{Type: agent.EventPlanUpdated})
	r.finish(nil, "")
	want := "plan:\n" +
		"  [x] Write the test\n" +
		"  [>] Running the tests\n" +
		"  [ ] Update \\x1b[31mREADME\\x1b[0m [REDACTED]\n" +
		"verify: go test ./... … ok 2.1s\n" +
		"verify: go vet ./... … failed (exit 1) 800ms\n" +
		"  │ a\n  │ b\n  │ x.go:3: bad\n" +
		"verify: sleep 1000 … failed (timed out after 1s) 1s\n" +
		"plan: (cleared)\n"
	if diff := cmp.Diff(want, errw.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if out.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", out.String())
	}
}
