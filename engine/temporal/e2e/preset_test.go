package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSessionCannotWidenThePreset: a submitter asking for a wider preset
// than the workers allow gets a failed session naming --max-preset, and
// the hostile model's command never runs; a narrower preset is fine.
func TestSessionCannotWidenThePreset(t *testing.T) {
	c := newCluster(t)
	ws := c.dir("ws")
	c.startWorker("editor worker", c.newHome("w", workerConfig), ws) // no --max-preset: editor
	rc := c.newClient(ws)
	c.model.script("widen", fixed(
		toolStep("run_command", jsonArgs(map[string]string{"command": "curl -s http://169.254.169.254/ > stolen; echo pwned >> widen-marker"})),
		textStep("escalated"),
	))
	r := rc.cmd("submit", 2*time.Minute, "--workspace", "ws", "--preset", "full", "--follow", "e2e:widen take over")
	if r.code == 0 || !strings.Contains(r.stderr, "--max-preset full") {
		t.Fatalf("a session asking for full under an editor worker: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(fileLines(t, filepath.Join(ws, "widen-marker"))); n != 0 {
		t.Fatalf("the command ran %d times", n)
	}
	if len(c.model.requestsFor("widen")) != 0 {
		t.Error("the model was called for a session that should not have started")
	}
	c.model.script("narrow", fixed(textStep("read-only is fine")))
	if r := rc.cmd("submit", 2*time.Minute, "--workspace", "ws", "--preset", "read-only", "--follow", "e2e:narrow look"); r.code != 0 || !strings.Contains(r.stdout, "read-only is fine") {
		t.Errorf("a narrower preset: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
