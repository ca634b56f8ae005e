package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// batchResult is one line of --out.
type batchResult struct {
	Line    int    `json:"line"`
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
	Text    string `json:"text"`
	Reason  string `json:"reason"`
	Error   string `json:"error"`
}

// TestBatchTwentySessions runs a batch of 20 sessions over two workers
// with --concurrency 4, restarts one worker (SIGTERM, then a new
// process) after 5 results and crashes the other (kill -9, then a new
// process) after 12. Every line gets one result, and every
// session's command ran at most once — exactly once unless the model
// was told it was interrupted.
func TestBatchTwentySessions(t *testing.T) {
	const n = 20
	c := newCluster(t)
	ws := c.dir("ws")
	markers := c.dir("ws/markers")
	var tasks strings.Builder
	for i := 1; i <= n; i++ {
		c.model.script(fmt.Sprintf("batch-%d", i), func(results []string) []step {
			final := fmt.Sprintf("batch %d done", i)
			if len(results) > 0 && strings.Contains(results[0], "interrupted") {
				final = fmt.Sprintf("batch %d interrupted", i)
			}
			return []step{
				toolStep("run_command", jsonArgs(map[string]string{"command": fmt.Sprintf("echo run >> markers/%d; sleep 1", i)})),
				textStep(final),
			}
		})
		fmt.Fprintf(&tasks, "{\"prompt\": \"e2e:batch-%d do task %d\"}\n", i, i)
	}
	taskFile := filepath.Join(c.root, "tasks.jsonl")
	if err := os.WriteFile(taskFile, []byte(tasks.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(c.root, "results.jsonl")

	h1 := c.newHome("w1", workerConfig)
	w1 := c.startWorker("worker 1", h1, ws, fullPreset...)
	h2 := c.newHome("w2", workerConfig)
	w2 := c.startWorker("worker 2", h2, ws, fullPreset...)
	start := time.Now()
	batch := c.start("rein submit --batch", c.newHome("client", workerConfig), ws, append(append([]string{"submit"}, c.temporalFlags()...),
		"--workspace", "ws", "--preset", "full", "--batch", taskFile, "--concurrency", "4", "--out", out)...)

	waitFor(t, "5 results", 3*time.Minute, func() bool {
		if batch.exited() {
			t.Fatalf("the batch ended (%d) before 5 results\nstderr:\n%s", batch.exitCode, batch.stderr)
		}
		return len(fileLines(t, out)) >= 5
	})
	t.Logf("%d results after %s: restarting worker 1 (SIGTERM)", len(fileLines(t, out)), time.Since(start).Round(time.Millisecond))
	w1.stop(t)
	c.startWorker("worker 1 again", h1, ws, fullPreset...)
	waitFor(t, "12 results", 3*time.Minute, func() bool {
		if batch.exited() {
			t.Fatalf("the batch ended (%d) before 12 results\nstderr:\n%s", batch.exitCode, batch.stderr)
		}
		return len(fileLines(t, out)) >= 12
	})
	t.Logf("%d results after %s: kill -9 of worker 2, then a new one", len(fileLines(t, out)), time.Since(start).Round(time.Millisecond))
	w2.kill(t)
	c.startWorker("worker 2 again", h2, ws, fullPreset...)

	if code := batch.wait(t, 5*time.Minute); code != 0 {
		t.Fatalf("rein submit --batch exited %d\nstderr:\n%s", code, batch.stderr)
	}
	elapsed := time.Since(start)
	t.Logf("batch throughput: %d sessions in %s = %.2f sessions/s (measured by the test, from the submit's start)", n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
	summary := regexp.MustCompile(`rein submit: (\d+) sessions, (\d+) complete, .* in .* \(([\d.]+) sessions/s\)`)
	if m := summary.FindStringSubmatch(batch.stderr.String()); m == nil {
		t.Errorf("no summary line on stderr:\n%s", batch.stderr)
	} else {
		t.Logf("rein's summary: %s", m[0])
		if m[1] != "20" || m[2] != "20" {
			t.Errorf("summary %q, want 20 sessions, 20 complete", m[0])
		}
	}

	seen := map[int]batchResult{}
	for i, l := range fileLines(t, out) {
		var r batchResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("results line %d is not JSON (%v): %s", i+1, err, l)
		}
		if prev, dup := seen[r.Line]; dup {
			t.Errorf("line %d has two results: %+v and %+v", r.Line, prev, r)
		}
		seen[r.Line] = r
	}
	interrupted := 0
	for i := 1; i <= n; i++ {
		r, ok := seen[i]
		if !ok {
			t.Errorf("no result for line %d", i)
			continue
		}
		ran := len(fileLines(t, filepath.Join(markers, fmt.Sprint(i))))
		switch {
		case r.Outcome != "complete":
			t.Errorf("line %d: outcome %q (%s%s), want complete", i, r.Outcome, r.Reason, r.Error)
		case r.Text == fmt.Sprintf("batch %d done", i) && ran != 1:
			t.Errorf("line %d: the command ran %d times, want exactly once", i, ran)
		case r.Text == fmt.Sprintf("batch %d interrupted", i) && ran > 1:
			t.Errorf("line %d: the interrupted command ran %d times, want at most once", i, ran)
		case r.Text == fmt.Sprintf("batch %d interrupted", i):
			interrupted++
		case r.Text != fmt.Sprintf("batch %d done", i):
			t.Errorf("line %d: text %q", i, r.Text)
		}
		if !strings.HasPrefix(r.ID, "batch-") || !strings.HasSuffix(r.ID, fmt.Sprintf("-%d", i)) {
			t.Errorf("line %d: session id %q, want batch-<hash>-%d", i, r.ID, i)
		}
		if reqs := c.model.requestsFor(fmt.Sprintf("batch-%d", i)); len(reqs) < 2 {
			t.Errorf("line %d: the model got %d requests, want 2", i, len(reqs))
		}
	}
	t.Logf("%d of %d commands reported interrupted (the kill -9)", interrupted, n)

	// Re-running the batch collects the sessions instead of starting them
	// again: no command runs a second time.
	rerunOut := filepath.Join(c.root, "rerun.jsonl")
	rerun := c.rein(c.newHome("client2", workerConfig), ws, 2*time.Minute, append(append([]string{"submit"}, c.temporalFlags()...),
		"--workspace", "ws", "--preset", "full", "--batch", taskFile, "--concurrency", "4", "--out", rerunOut)...)
	if rerun.code != 0 {
		t.Fatalf("re-run of the batch exited %d\nstderr:\n%s", rerun.code, rerun.stderr)
	}
	if got := len(fileLines(t, rerunOut)); got != n {
		t.Errorf("re-run wrote %d results, want %d", got, n)
	}
	for i := 1; i <= n; i++ {
		if ran := len(fileLines(t, filepath.Join(markers, fmt.Sprint(i)))); ran > 1 {
			t.Errorf("line %d: after the re-run the command ran %d times", i, ran)
		}
	}
}
