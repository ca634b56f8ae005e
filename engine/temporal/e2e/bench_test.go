package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The engine's cost, next to the same sessions run in-process (issue 27,
// item 7). Every session is the real binary against the loopback fake
// model: `rein run` in-process, `rein submit --follow` through the
// embedded Temporal server and a `rein worker`. Three scripts separate
// the costs, each of its K = 10 steps with arguments of its own (so the
// repeat guard never stops them):
//
//   - answer: one model call that answers;
//   - unknown: K model calls each asking for a tool that does not exist
//     (answered with an error result; nothing runs), then the answer;
//   - read: K model calls each reading a small file, then the answer.
//
// Per model call = (unknown − answer) / K; per tool call = (read −
// unknown) / K: the reads and the error results cost the same model
// calls, so the difference is the tool's execution (an activity of its
// own under Temporal). The overhead is Temporal's figure minus the
// in-process one, measured in the same benchmark run.

const benchSteps = 10

// benchScripts registers the three scripts and writes the files "read"
// reads into ws.
func benchScripts(tb testing.TB, c *cluster, ws string) {
	tb.Helper()
	unknown := make([]step, 0, benchSteps+1)
	read := make([]step, 0, benchSteps+1)
	for i := range benchSteps {
		name := fmt.Sprintf("f%d.txt", i)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			tb.Fatal(err)
		}
		unknown = append(unknown, toolStep("no_such_tool", jsonArgs(map[string]string{"path": name})))
		read = append(read, toolStep("read_file", jsonArgs(map[string]string{"path": name})))
	}
	unknown = append(unknown, textStep("bench done"))
	read = append(read, textStep("bench done"))
	c.model.script("bench-answer", fixed(textStep("bench done")))
	c.model.script("bench-unknown", fixed(unknown...))
	c.model.script("bench-read", fixed(read...))
}

// engineBench is a cluster with one worker and the scripts.
type engineBench struct {
	c      *cluster
	ws     string
	client *home
}

func newEngineBench(tb testing.TB, workers int) *engineBench {
	tb.Helper()
	c := newCluster(tb)
	e := &engineBench{c: c, ws: c.dir("ws"), client: c.newHome("client", workerConfig)}
	benchScripts(tb, c, e.ws)
	for i := range workers {
		name := fmt.Sprintf("w%d", i+1)
		c.startWorker("worker "+name, c.newHome(name, workerConfig), e.ws, fullPreset...)
	}
	return e
}

// session runs one session of script and checks it answered.
func (e *engineBench) session(tb testing.TB, impl, script string) {
	tb.Helper()
	prompt := "e2e:" + script + " go"
	var r run
	switch impl {
	case "in-process":
		r = reinRun(tb, e.client, e.ws, 2*time.Minute, "run", "--preset", "full", "--approve", "never", prompt)
	case "temporal":
		r = reinRun(tb, e.client, e.ws, 2*time.Minute, append(append([]string{"submit"}, e.c.temporalFlags()...),
			"--workspace", "ws", "--preset", "full", "--follow", prompt)...)
	default:
		tb.Fatalf("impl %q", impl)
	}
	if r.code != 0 || !strings.Contains(r.stdout, "bench done") {
		tb.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", impl, script, r.code, r.stdout, r.stderr)
	}
}

// TestCorrectEngineBench checks each script does what the benchmark
// assumes, on both paths: K+1 model calls for unknown and read, one for
// answer, and read's results carry the files' contents.
func TestCorrectEngineBench(t *testing.T) {
	e := newEngineBench(t, 1)
	for _, impl := range []string{"in-process", "temporal"} {
		for _, script := range []string{"bench-answer", "bench-unknown", "bench-read"} {
			before := len(e.c.model.requestsFor(script))
			e.session(t, impl, script)
			reqs := e.c.model.requestsFor(script)[before:]
			want := benchSteps + 1
			if script == "bench-answer" {
				want = 1
			}
			if len(reqs) != want {
				t.Fatalf("%s %s: %d model calls, want %d", impl, script, len(reqs), want)
			}
			if script == "bench-read" {
				last := reqs[len(reqs)-1]
				if len(last.Results) != benchSteps || !strings.Contains(strings.Join(last.Results, "\n"), "file 9") {
					t.Fatalf("%s: the reads' results are %q", impl, last.Results)
				}
			}
		}
	}
}

// BenchmarkEngine reports, per impl, ms/session (the answer script),
// ms/model-call and ms/tool-call (see above). One op runs the three
// scripts once each.
func BenchmarkEngine(b *testing.B) {
	e := newEngineBench(b, 1)
	for _, impl := range []string{"in-process", "temporal"} {
		b.Run("impl="+impl, func(b *testing.B) {
			e.session(b, impl, "bench-answer") // warm: the worker's first session
			var answer, unknown, read time.Duration
			timed := func(script string) time.Duration {
				start := time.Now()
				e.session(b, impl, script)
				return time.Since(start)
			}
			for b.Loop() {
				answer += timed("bench-answer")
				unknown += timed("bench-unknown")
				read += timed("bench-read")
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
			b.ReportMetric(ms(answer), "ms/session")
			b.ReportMetric((ms(unknown)-ms(answer))/benchSteps, "ms/model-call")
			b.ReportMetric((ms(read)-ms(unknown))/benchSteps, "ms/tool-call")
		})
	}
}

// BenchmarkEngineThroughput reports sessions/s of a batch of 16 answer
// sessions over two workers (rein submit --batch, --concurrency 8).
func BenchmarkEngineThroughput(b *testing.B) {
	const n = 16
	e := newEngineBench(b, 2)
	var tasks strings.Builder
	for i := range n {
		fmt.Fprintf(&tasks, "{\"prompt\": \"e2e:bench-answer go %d\"}\n", i)
	}
	b.Run("workers=2/impl=temporal", func(b *testing.B) {
		var total time.Duration
		round := 0
		for b.Loop() {
			round++
			// A fresh file each op: a batch file's session ids derive from
			// it, and a rerun would collect the old sessions instead.
			dir := e.c.dir(fmt.Sprintf("batch-%d", round))
			in := filepath.Join(dir, "tasks.jsonl")
			if err := os.WriteFile(in, []byte(strings.ReplaceAll(tasks.String(), "go ", fmt.Sprintf("go r%d-", round))), 0o644); err != nil {
				b.Fatal(err)
			}
			out := filepath.Join(dir, "results.jsonl")
			start := time.Now()
			r := reinRun(b, e.client, e.ws, 5*time.Minute, append(append([]string{"submit"}, e.c.temporalFlags()...),
				"--workspace", "ws", "--preset", "full", "--batch", in, "--out", out, "--concurrency", "8")...)
			total += time.Since(start)
			if r.code != 0 {
				b.Fatalf("batch: exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			if got := len(fileLines(b, out)); got != n {
				b.Fatalf("%d results, want %d", got, n)
			}
		}
		b.ReportMetric(float64(n*b.N)/total.Seconds(), "sessions/s")
	})
}
