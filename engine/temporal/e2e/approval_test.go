package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestApprovalAllowAndTimeout: under the editor preset `make` asks (it
// is not in the read-only set, and rein cannot see what a Makefile
// does). Session 1 waits for an approval,
// `rein status` shows the pending call, `rein approve … allow` lets it
// run (its marker proves it ran). Session 2, with --approval-timeout 2s,
// is denied when the durable timer fires, and the reason reaches the
// model.
func TestApprovalAllowAndTimeout(t *testing.T) {
	c := newCluster(t)
	ws := c.dir("ws")
	c.startWorker("worker", c.newHome("w", workerConfig), ws)
	rc := c.newClient(ws)
	makefile := "approved:\n\techo approved >> approved-marker\n\ntimedout:\n\techo timedout >> timeout-marker\n"
	if err := os.WriteFile(filepath.Join(ws, "Makefile"), []byte(makefile), 0o644); err != nil {
		t.Fatal(err)
	}

	const allowCmd = "make approved"
	c.model.script("approve", fixed(
		toolStep("run_command", jsonArgs(map[string]string{"command": allowCmd})),
		textStep("the approved command ran"),
	))
	follow, id := rc.follow("--workspace", "ws", "e2e:approve write the marker")
	rc.diag = func() string { return "rein submit --follow:\n" + follow.stdout.String() + follow.stderr.String() }
	s := rc.waitState(id, "waiting for approval", 60*time.Second)
	if len(s.Pending) != 1 || s.Pending[0].Tool != "run_command" || !strings.Contains(string(s.Pending[0].Args), allowCmd) {
		t.Fatalf("pending approvals = %+v, want the run_command call", s.Pending)
	}
	callID := s.Pending[0].CallID
	time.Sleep(300 * time.Millisecond) // still waiting: nothing ran without an answer
	if got := fileLines(t, filepath.Join(ws, "approved-marker")); len(got) != 0 {
		t.Fatalf("the command ran before it was approved: marker %q", got)
	}
	if r := rc.cmd("approve", 30*time.Second, id, callID, "allow"); r.code != 0 {
		t.Fatalf("rein approve exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if code := follow.wait(t, 60*time.Second); code != 0 {
		t.Errorf("rein submit --follow exited %d, want 0\nstderr:\n%s", code, follow.stderr)
	}
	_, events := submitOutput(t, follow.stdout.String())
	if got := decisions(events); len(got) != 1 || !strings.HasPrefix(got[0], "run_command allow ") || strings.Contains(got[0], "preset") {
		t.Errorf("decisions = %q, want run_command allowed by the approval, not by the preset", got)
	}
	s = rc.waitState(id, "completed", 60*time.Second)
	if s.Outcome == nil || s.Outcome.Outcome != "complete" || s.Outcome.Text != "the approved command ran" {
		t.Errorf("outcome = %+v, want complete with the final text", s.Outcome)
	}
	if got := fileLines(t, filepath.Join(ws, "approved-marker")); len(got) != 1 || got[0] != "approved" {
		t.Errorf("approved-marker = %q, want one line: the approved command ran once", got)
	}
	// A second answer to a call no longer pending is an error.
	if r := rc.cmd("approve", 30*time.Second, id, callID, "allow"); r.code == 0 {
		t.Errorf("rein approve of a call that is not pending exited 0; stderr:\n%s", r.stderr)
	}

	const deniedCmd = "make timedout"
	c.model.script("timeout", func(results []string) []step {
		final := "the result did not say why"
		if len(results) > 0 && strings.Contains(results[0], "approval timed out") {
			final = "denied: approval timed out"
		}
		return []step{toolStep("run_command", jsonArgs(map[string]string{"command": deniedCmd})), textStep(final)}
	})
	id2 := rc.submit("--workspace", "ws", "--approval-timeout", "2s", "e2e:timeout write the other marker")
	s = rc.waitState(id2, "completed", 60*time.Second)
	if s.Outcome == nil || s.Outcome.Text != "denied: approval timed out" {
		t.Errorf("outcome = %+v, want the model to have seen \"approval timed out\"", s.Outcome)
	}
	reqs := c.model.requestsFor("timeout")
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests for session 2, want 2", len(reqs))
	}
	if !strings.Contains(reqs[1].Results[0], "approval timed out") {
		t.Errorf("tool result = %q, want the denial to say the approval timed out", reqs[1].Results[0])
	}
	if waited := reqs[1].At.Sub(reqs[0].At); waited < 2*time.Second || waited > 20*time.Second {
		t.Errorf("the denial came %s after the call, want the 2 s approval timeout", waited)
	} else {
		t.Logf("approval timeout: the denial reached the model %s after the call", waited.Round(time.Millisecond))
	}
	if got := fileLines(t, filepath.Join(ws, "timeout-marker")); len(got) != 0 {
		t.Errorf("the timed-out command ran: marker %q", got)
	}
}
