package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReplayEveryTask: a worker that keeps no session in memory replays
// the whole history at every workflow task, so any nondeterminism in the
// loop (ids, time, fan-out order, the plan, sub-agents, verification)
// fails the session with Temporal's nondeterminism error. A session using
// each of them completes, with the events of a cached worker's run.
func TestReplayEveryTask(t *testing.T) {
	c := newCluster(t)
	ws := c.dir("ws")
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	verify := "\n[verify]\ncommands = [[\"test\", \"-f\", \"out.txt\"]]\n"
	w := c.startWorker("replaying worker", c.newHome("w", workerConfig+verify), ws, append(fullPreset, "--replay-every-task")...)
	rc := c.newClient(ws)
	c.model.script("replay", fixed(
		toolStep("read_file", jsonArgs(map[string]string{"path": "notes.txt"})),
		toolStep("todo_write", `{"todos":[{"content":"write out.txt","status":"in_progress"}]}`),
		toolStep("task", jsonArgs(map[string]string{"description": "count", "prompt": "e2e:replaychild count the lines of notes.txt"})),
		toolStep("run_command", jsonArgs(map[string]string{"command": "echo ran >> replay-marker"})),
		toolStep("write_file", jsonArgs(map[string]string{"path": "out.txt", "content": "done\n"})),
		textStep("the replayed session finished"),
	))
	c.model.script("replaychild", fixed(
		toolStep("read_file", jsonArgs(map[string]string{"path": "notes.txt"})),
		textStep("notes.txt has 2 lines"),
	))
	p, id := rc.follow("--workspace", "ws", "--preset", "full", "e2e:replay do everything once")
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("rein submit --follow exited %d\nstdout:\n%s\nstderr:\n%s\nworker:\n%s", code, p.stdout, p.stderr, w.stderr)
	}
	_, events := submitOutput(t, p.stdout.String())
	if f := final(events); f == nil || f.Outcome == nil || f.Outcome.Text != "the replayed session finished" {
		t.Fatalf("final event %+v", f)
	}
	got := strings.Join(shape(events), "\n")
	for _, want := range []string{"plan.updated", "verify.result", "file.change"} {
		if !strings.Contains(got, want) {
			t.Errorf("the replayed session has no %s event:\n%s", want, got)
		}
	}
	if res := strings.Join(toolResults(events), "\n"); !strings.Contains(res, "notes.txt has 2 lines") {
		t.Errorf("the sub-agent's answer did not come back:\n%s", res)
	}
	if n := len(fileLines(t, filepath.Join(ws, "replay-marker"))); n != 1 {
		t.Errorf("the command ran %d times under replay, want once", n)
	}
	if s := w.stderr.String(); strings.Contains(strings.ToLower(s), "nondetermin") {
		t.Errorf("the worker reported nondeterminism:\n%s", s)
	}
	if st := rc.status(id); st.State != "completed" {
		t.Errorf("status %+v", st)
	}
}
