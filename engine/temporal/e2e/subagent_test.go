package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
)

// TestSubagentCancel: the model calls the task tool; the sub-agent (a
// project agent that may run commands) runs as the child workflow <parent>.<call id> and starts a slow command;
// `rein cancel PARENT` closes both workflows as cancelled within 2 s, and
// the command does not run on.
func TestSubagentCancel(t *testing.T) {
	c := newCluster(t)
	ws := c.dir("ws")
	w := c.startWorker("worker", c.newHome("w", workerConfig), ws, fullPreset...)
	rc := c.newClient(ws)

	// The general agent only reads: the child is a project agent that may
	// run commands.
	mkdir(t, filepath.Join(ws, ".rein", "agents"))
	runner := "---\nname: runner\ndescription: runs one command\ntools: run_command\n---\nRun the command you are given.\n"
	if err := os.WriteFile(filepath.Join(ws, ".rein", "agents", "runner.md"), []byte(runner), 0o644); err != nil {
		t.Fatal(err)
	}
	c.model.script("parent", fixed(
		toolStep("task", jsonArgs(map[string]string{"description": "slow child", "prompt": "e2e:child run the slow command", "agent": "runner"})),
		textStep("the parent finished"),
	))
	c.model.script("child", fixed(
		toolStep("run_command", jsonArgs(map[string]string{"command": "echo started >> child-marker; sleep 60"})),
		textStep("the child finished"),
	))
	const parent = "ses_cancelparent"
	if id := rc.submit("--workspace", "ws", "--preset", "full", "--id", parent, "e2e:parent delegate"); id != parent {
		t.Fatalf("rein submit --id %s printed %q", parent, id)
	}
	deadline := time.Now().Add(90 * time.Second)
	for i := 1; len(fileLines(t, filepath.Join(ws, "child-marker"))) == 0; i++ {
		if time.Now().After(deadline) || i%50 == 0 && rc.status(parent).State != "running" {
			s := rc.status(parent)
			t.Fatalf("the child's command did not start (within 90 s); parent %s, children %v, pending %+v, outcome %+v; model requests: parent %d, child %d (tool results %q)\nworker:\n%s",
				s.State, s.Children, s.Pending, s.Outcome, len(c.model.requestsFor("parent")), len(c.model.requestsFor("child")), childResults(c.model), w.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := c.client.DescribeWorkflowExecution(ctx, parent, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.PendingChildren) != 1 {
		t.Fatalf("parent has %d pending children, want the sub-agent", len(d.PendingChildren))
	}
	child := d.PendingChildren[0].WorkflowId
	if want := parent + ".call_parent_0"; child != want {
		t.Errorf("child workflow id = %q, want %q (<parent>.<call id>)", child, want)
	}

	start := time.Now()
	if r := rc.cmd("cancel", 30*time.Second, parent); r.code != 0 {
		t.Fatalf("rein cancel exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	closed := map[string]enumspb.WorkflowExecutionStatus{}
	for time.Since(start) < 10*time.Second && len(closed) < 2 {
		for _, id := range []string{parent, child} {
			if _, done := closed[id]; done {
				continue
			}
			d, err := c.client.DescribeWorkflowExecution(ctx, id, "")
			if err != nil {
				t.Fatalf("describe %s: %v", id, err)
			}
			if st := d.WorkflowExecutionInfo.Status; st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				closed[id] = st
				t.Logf("%s closed %s after the cancel command started: %s", id, st, time.Since(start).Round(time.Millisecond))
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	elapsed := time.Since(start)
	for _, id := range []string{parent, child} {
		st, ok := closed[id]
		switch {
		case !ok:
			t.Errorf("%s still running %s after rein cancel", id, elapsed.Round(time.Millisecond))
		case st != enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
			t.Errorf("%s closed as %s, want cancelled", id, st)
		}
	}
	if len(closed) == 2 && elapsed > 2*time.Second {
		t.Errorf("both workflows closed only %s after rein cancel, want within 2 s", elapsed.Round(time.Millisecond))
	}
	// The child's command ends with its session.
	waitFor(t, "the child's command to be stopped", 15*time.Second, func() bool {
		_, _, running := runningUnder([]*worker{w}, "sleep", "sleep 60")
		return !running
	})
	if s := rc.status(parent); s.State != "cancelled" {
		t.Errorf("rein status of the parent = %q, want cancelled", s.State)
	}
}

// childResults are the tool results the child's model calls carried.
func childResults(m *fakeModel) [][]string {
	var out [][]string
	for _, r := range m.requestsFor("child") {
		out = append(out, r.Results)
	}
	return out
}
