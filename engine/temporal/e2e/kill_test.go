package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// slowCommand appends one line to the marker, then sleeps long enough
// for the test to kill the worker running it.
const slowCommand = "echo run >> marker; sleep 10"

// TestKillWorkerMidCommand kills -9 the worker running a slow command.
// The other worker finishes the session; the command ran once (the
// marker has one line) and was not run again; the model was told the
// call was interrupted; and the session's events match a `rein run` of
// the same script (the embedded engine, in one process), timings, ids
// and the interrupted result's text aside.
func TestKillWorkerMidCommand(t *testing.T) {
	c := newCluster(t)
	const tag = "kill"
	c.model.script(tag, fixed(
		toolStep("run_command", jsonArgs(map[string]string{"command": slowCommand})),
		textStep("the command was handled"),
	))
	prompt := "e2e:" + tag + " run the slow command once"

	// The reference, in its own workspace, while the cluster runs.
	refWS := c.dir("ref/ws")
	ref := c.start("rein run (embedded)", c.newHome("ref", ""), refWS, "run", "--preset", "full", "--output-format", "stream-json", prompt)

	ws := c.dir("ws")
	w1 := c.startWorker("worker 1", c.newHome("w1", workerConfig), ws, fullPreset...)
	w2 := c.startWorker("worker 2", c.newHome("w2", workerConfig), ws, fullPreset...)
	sub := c.start("rein submit", c.newHome("client", workerConfig), ws, append(append([]string{"submit"}, c.temporalFlags()...),
		"--workspace", "ws", "--preset", "full", "--follow", "--format", "stream-json", prompt)...)

	marker := filepath.Join(ws, "marker")
	waitFor(t, "the command to write the marker", 90*time.Second, func() bool {
		if sub.exited() {
			t.Fatalf("rein submit exited %d before the command ran\nstdout:\n%s\nstderr:\n%s\nworker 1:\n%s\nworker 2:\n%s", sub.exitCode, sub.stdout, sub.stderr, w1.stderr, w2.stderr)
		}
		return len(fileLines(t, marker)) > 0
	})
	var victim *worker
	var sleepPID int
	waitFor(t, "the command's sleep under a worker", 10*time.Second, func() bool {
		var ok bool
		victim, sleepPID, ok = runningUnder([]*worker{w1, w2}, "sleep", "sleep 10")
		return ok
	})
	t.Cleanup(func() { // the crash may orphan the sleep: end it if still ours
		if strings.Contains(cmdline(sleepPID), "sleep 10") {
			syscall.Kill(sleepPID, syscall.SIGKILL)
		}
	})
	survivor := w1
	if victim == w1 {
		survivor = w2
	}
	t.Logf("the command runs under %s (pid %d, sleep pid %d): kill -9", victim.name, victim.pid(), sleepPID)
	killedAt := time.Now()
	victim.kill(t)

	code := sub.wait(t, 2*time.Minute)
	finishedAt := time.Now()
	if code != 0 {
		t.Fatalf("rein submit exited %d, want 0\nstderr:\n%s\nsurvivor:\n%s", code, sub.stderr, survivor.stderr)
	}
	if survivor.exited() {
		t.Errorf("%s exited (%d) during the session\nstderr:\n%s", survivor.name, survivor.exitCode, survivor.stderr)
	}

	// The model's next request carries the interrupted result.
	var next *modelRequest
	for _, r := range c.model.requestsFor(tag) {
		if r.Step == 1 {
			next = &r
			break
		}
	}
	if next == nil {
		t.Fatalf("the model got no request after the tool call; requests: %d", len(c.model.requestsFor(tag)))
	}
	if !strings.Contains(next.Results[0], "interrupted") {
		t.Errorf("the tool result the model got = %q, want it to say the call was interrupted", next.Results[0])
	}
	t.Logf("the model was told: %q", next.Results[0])
	t.Logf("timings: kill → model told interrupted %s; kill → session complete %s",
		next.At.Sub(killedAt).Round(time.Millisecond), finishedAt.Sub(killedAt).Round(time.Millisecond))

	// Ran once, never again: give a wrongly re-run command time to show.
	time.Sleep(500 * time.Millisecond)
	if got := fileLines(t, marker); len(got) != 1 {
		t.Errorf("marker has %d lines %q, want exactly 1 (the command ran once)", len(got), got)
	}

	id, events := submitOutput(t, sub.stdout.String())
	if id == "" || strings.ContainsAny(id, " {") {
		t.Errorf("first line of rein submit = %q, want the session id", id)
	}
	if code := ref.wait(t, time.Minute); code != 0 {
		t.Fatalf("embedded rein run exited %d\nstderr:\n%s", code, ref.stderr)
	}
	refEvents := parseEvents(t, lines(ref.stdout.String()))
	t.Logf("%d events, compared as:\n%s", len(events), strings.Join(shape(events), "\n"))
	if diff := cmp.Diff(shape(refEvents), shape(events)); diff != "" {
		t.Errorf("Temporal session events differ from the embedded rein run (-embedded +temporal):\n%s", diff)
	}
	if f := final(events); f == nil || f.Outcome.Kind != "complete" || f.Outcome.Text != "the command was handled" {
		t.Errorf("last event = %+v, want session.completed with the final text", final(events))
	}
	if rs := toolResults(events); len(rs) != 1 || !strings.Contains(rs[0], "interrupted") {
		t.Errorf("tool results in the events = %q, want one saying interrupted", rs)
	}
	for _, ev := range events {
		if ev.SessionID != id {
			t.Errorf("event %s has session_id %q, want %q", ev.Type, ev.SessionID, id)
			break
		}
	}
	if _, err := os.Stat(filepath.Join(refWS, "marker")); err != nil {
		t.Errorf("the embedded run did not run the command: %v", err)
	}
}
