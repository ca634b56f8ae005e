package cli_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// These tests attack the bounds on every wait of a model request, and the
// answer-size cap, through the real binary with hostile loopback servers.
// Elapsed times are judged with generous margins on millisecond-scale
// settings, never on the wall-clock defaults.

// hugeTextBody is a well-formed stream whose answer is n bytes of text, in
// 1 KiB deltas.
func hugeTextBody(n int) string {
	piece := strings.Repeat("x", 1024)
	pieces := make([]string, n/1024)
	for i := range pieces {
		pieces[i] = piece
	}
	return textBody(pieces...)
}

// watchHWM samples the process's peak resident set (VmHWM, which only
// grows) until it exits, and returns a function that reports the last
// sample in MiB. The rusage of wait4 cannot serve: Linux folds the RSS of
// the address space a child had before exec — the test process's, since
// Go starts children with CLONE_VM — into its ru_maxrss.
func (p *process) watchHWM() func() float64 {
	var mu sync.Mutex
	var kib int
	path := fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid)
	go func() {
		for {
			if data, err := os.ReadFile(path); err == nil {
				for _, line := range strings.Split(string(data), "\n") {
					if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
						n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
						mu.Lock()
						kib = max(kib, n)
						mu.Unlock()
					}
				}
			}
			select {
			case <-p.done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		return float64(kib) / 1024
	}
}

// runWithAnswer runs the binary against a server that answers body and
// returns the exit code, stderr and peak RSS in MiB.
func runWithAnswer(t *testing.T, body, format string) (int, string, float64) {
	t.Helper()
	srv := modeltest.NewServer(t, modeltest.Handler("answer", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	})))
	e := newEnv(t)
	p := e.start(t, "run", "-e", srv.URL, "--output-format", format, "hi")
	hwm := p.watchHWM()
	p.stdin.Close()
	code := p.wait(t, 50*time.Second)
	return code, p.stderr.String(), hwm()
}

// TestBinaryHugeAnswerIsCapped streams a 20 MiB answer to the real binary:
// it must fail with one line naming the cap and its setting, and rein's
// peak memory must stay near what a one-word answer costs. Before the cap
// (measured with GNU time) a one-word answer peaked at 44 MiB RSS and the
// 20 MiB answer at 272 MiB (text output) or 334 MiB (stream-json); with
// it, about 60 MiB.
func TestBinaryHugeAnswerIsCapped(t *testing.T) {
	mib := 20
	if n, err := strconv.Atoi(os.Getenv("REIN_TEST_ANSWER_MIB")); err == nil { // for measuring
		mib = n
	}
	bodies := map[string]string{
		"text":        hugeTextBody(mib << 20),
		"stream-json": hugeTextBody(mib << 20),
		// one tool call whose arguments arrive in two halves of 10 MiB
		"tool call": toolBody("call_1", "write_file", `{"path":"a.txt","content":"`+strings.Repeat("y", mib<<20)+`"}`),
	}
	for _, name := range []string{"text", "stream-json", "tool call"} {
		body, format := bodies[name], strings.TrimPrefix(name, "tool call")
		if format == "" {
			format = "text"
		}
		t.Run(name, func(t *testing.T) {
			code, _, base := runWithAnswer(t, textBody("ok"), format)
			if code != 0 {
				t.Fatalf("a one-word answer: exit %d", code)
			}
			code, stderr, rss := runWithAnswer(t, body, format)
			t.Logf("%d MiB answer: exit %d, peak RSS %.0f MiB (one-word answer: %.0f MiB); stderr %q", mib, code, rss, base, stderr)
			want := "rein: the model's answer is larger than model.max_response_bytes (4 MiB)"
			if code != 1 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 1 and one line starting %q", code, stderr, want)
			}
			if rss > base+40 {
				t.Errorf("peak RSS %.0f MiB, %.0f MiB above a one-word answer's, for an answer capped at 4 MiB", rss, rss-base)
			}
		})
	}
}

// goTypeNames matches Go type and decoder names.
var goTypeNames = regexp.MustCompile(`Go (struct|value|type|int|string)|\*json\.|json: cannot|jsontext:`)

// neverAnswer holds a request open without a byte of response.
func neverAnswer(name string) modeltest.Step {
	return modeltest.Handler(name, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
}

// trickleStream sends headers, then an SSE comment byte run every gap,
// which keeps any idle timeout from firing.
func trickleStream() modeltest.Step {
	return modeltest.Handler("trickle", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for range 600 {
			if _, err := io.WriteString(w, ":\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}))
}

func TestBinaryModelWaitsAreBounded(t *testing.T) {
	tests := []struct {
		name     string
		steps    []modeltest.Step
		config   string
		args     []string
		requests int
		want     []string // substrings of the one stderr line
		wantNot  []string
		min, max time.Duration
	}{
		{
			name:   "accept and never answer",
			steps:  []modeltest.Step{neverAnswer("no headers"), neverAnswer("no headers again")},
			config: "header_timeout = \"300ms\"\nretry_budget = \"1s\"\n", requests: 2,
			want:    []string{"accepted the connection but sent no response headers in 300ms (model.header_timeout), 2 attempts", "raise [model] header_timeout"},
			wantNot: []string{"cannot reach", "start llama-server"},
			min:     550 * time.Millisecond, max: 10 * time.Second,
		},
		{
			name:   "headers then silence",
			steps:  []modeltest.Step{modeltest.Stall(textBody("partial", " never finished"), 300, 30*time.Second)},
			config: "idle_timeout = \"300ms\"\n", requests: 1,
			want: []string{"sent no data for 300ms in the middle of its answer (model.idle_timeout)", "partial output was discarded"},
			min:  280 * time.Millisecond, max: 10 * time.Second,
		},
		{
			name:  "a trickle is cut at the request deadline",
			steps: []modeltest.Step{trickleStream()},
			args:  []string{"--request-timeout", "700ms"}, requests: 1,
			want: []string{"did not finish answering within 700ms (model.request_timeout)", "raise --request-timeout"},
			min:  650 * time.Millisecond, max: 10 * time.Second,
		},
		{
			name:     "a Retry-After beyond the budget",
			steps:    []modeltest.Step{modeltest.Status(503, map[string]string{"Retry-After": "120"}, `{"error":{"message":"loading model"}}`)},
			requests: 1,
			want:     []string{"(503", "loading model", "asked rein to retry in 2m0s, longer than rein waits (at most 1m0s, and within model.retry_budget), so it did not retry"},
			wantNot:  []string{"after retries", "attempts"},
			max:      10 * time.Second,
		},
		{
			name:     "garbage frames",
			steps:    []modeltest.Step{modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream"}, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":5}}]}\n\n")},
			requests: 1,
			want:     []string{"stream chunk 1 does not follow the Chat Completions format (field /choices/0/delta/content is a number, want a string)"},
			max:      10 * time.Second,
		},
	}
	reinBinary(t) // built before any clock starts
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, tt.steps...)
			e := newEnv(t)
			e.writeUserConfig(t, "[model]\ncontext_window = 32768\n"+tt.config)
			start := time.Now()
			p := e.start(t, append(append([]string{"run", "-e", srv.URL}, tt.args...), "hi")...)
			p.stdin.Close()
			code := p.wait(t, 30*time.Second)
			took := time.Since(start)
			stderr := p.stderr.String()
			t.Logf("exit %d after %s: %s", code, took.Round(time.Millisecond), stderr)
			// One line says why the run failed; before it, one line per
			// retry says it is retried (TestBinaryRetriesAreShown).
			var retries int
			for _, l := range lines(stderr) {
				if strings.Contains(l, ", retrying in ") {
					retries++
				}
			}
			if code != 1 || strings.Count(stderr, "\n") != 1+retries || retries != tt.requests-1 {
				t.Errorf("exit %d, stderr %q; want 1, a line per retry (%d) and one line", code, stderr, tt.requests-1)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q", w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(stderr, w) {
					t.Errorf("stderr says %q", w)
				}
			}
			if goTypeNames.MatchString(stderr) {
				t.Errorf("stderr names Go types: %q", stderr)
			}
			if took < tt.min || took > tt.max {
				t.Errorf("took %s, want between %s and %s", took, tt.min, tt.max)
			}
			if got := len(srv.Requests()); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
		})
	}
}

// TestBinaryModelSettingsReachTheWire: --reasoning-effort and [model]
// max_tokens are sent, and llama.cpp's variable names (LLAMA_SERVER_URL,
// LLAMA_API_KEY) select the server and its key when rein's are unset.
func TestBinaryModelSettingsReachTheWire(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream"}, textBody("done")))
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\nmax_tokens = 321\n")
	e.vars["LLAMA_SERVER_URL"] = srv.URL
	e.vars["LLAMA_API_KEY"] = "llama-secret-key-42"
	p := e.start(t, "run", "--reasoning-effort", "high", "hi")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, p.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	body := requestJSON(t, reqs[0].Body)
	if body["reasoning_effort"] != "high" || body["max_tokens"] != float64(321) {
		t.Errorf("reasoning_effort %v, max_tokens %v; want high and 321", body["reasoning_effort"], body["max_tokens"])
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer llama-secret-key-42" {
		t.Errorf("Authorization %q, want the LLAMA_API_KEY bearer", got)
	}
	if strings.Contains(p.stdout.String()+p.stderr.String(), "llama-secret-key-42") {
		t.Error("the key reached rein's output")
	}
	p = e.start(t, "run", "--reasoning-effort", "Very High", "hi")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 2 || !strings.Contains(p.stderr.String(), `--reasoning-effort must be a level such as "low", "medium" or "high"`) {
		t.Errorf("a bad effort: exit %d, stderr %q; want a usage error", code, p.stderr)
	}
}
