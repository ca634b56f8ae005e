package chaos_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"
)

// modelFault is one way a model server misbehaves on a request.
type modelFault struct {
	name string
	// retryable faults are answered by rein's retries within the run:
	// the session must complete.
	retryable bool
	serve     func(w http.ResponseWriter)
}

var modelFaults = []modelFault{
	{"429 retry-after 0", true, func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
	}},
	{"500", true, func(w http.ResponseWriter) {
		http.Error(w, `{"error":{"message":"internal"}}`, http.StatusInternalServerError)
	}},
	{"503", true, func(w http.ResponseWriter) {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
	}},
	{"529 overloaded", true, func(w http.ResponseWriter) {
		http.Error(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, 529)
	}},
	{"connection cut before headers", true, func(w http.ResponseWriter) {
		hijackClose(w)
	}},
	{"stream cut midway", false, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		body := textBody("This answer is cut off in the middle of")
		io.WriteString(w, body[:len(body)/2])
		w.(http.Flusher).Flush()
		hijackClose(w)
	}},
	{"garbage frames", false, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":12}}]\n\ndata: \x00\x01\x02 not json\n\n")
	}},
	{"json where a stream belongs", false, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":"nope","object":42}`)
	}},
	{"html error page", false, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1>\x1b]52;c;ZXZpbA==\x07</body></html>")
	}},
	{"empty 200", false, func(w http.ResponseWriter) {}},
}

func hijackClose(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
		}
	}
}

// TestChaosModelFaults sends a random fault on one or two random requests
// of a multi-step session. Retryable faults must be absorbed by rein's
// retries (the session completes, every step once); the others must end
// the run with exit 1 and one clear line — no Go type names, no raw
// control characters from the server's text — within the run's bound;
// and a --continue afterwards completes the session without redoing a
// finished step.
func TestChaosModelFaults(t *testing.T) {
	seed, rounds := config(t, 12)
	for round := range rounds {
		r := rand.New(rand.NewPCG(seed, uint64(1000+round)))
		f := modelFaults[round%len(modelFaults)]
		t.Run(fmt.Sprintf("round%d-%s", round, strings.ReplaceAll(f.name, " ", "_")), func(t *testing.T) {
			faultRound(t, r, f, fmt.Sprintf("chaosf%d-%d", seed%1_000_000, round))
		})
	}
}

func faultRound(t *testing.T, r *rand.Rand, f modelFault, token string) {
	h := newHome(t, "bwrap")
	defer killSurvivors(token)
	steps := randomSteps(r)
	for i := range steps {
		if steps[i].kind == "edit" {
			steps[i].kind = "write"
		}
	}
	at := 1 + r.IntN(len(steps)+1)
	twice := f.retryable && r.IntN(2) == 0
	s := &script{steps: steps, token: token}
	s.fault = func(w http.ResponseWriter, req int) bool {
		if req == at || (twice && req == at+1) {
			f.serve(w)
			return true
		}
		return false
	}
	url := newModel(t, s)
	base := []string{"run", "--preset", "full", "--approve", "never", "--output-format", "json",
		"--state-dir", h.state, "-C", h.ws, "-e", url, "--max-steps", "40", "--timeout", "60s"}
	t.Logf("steps %v, fault %q at request %d (twice %v)", steps, f.name, at, twice)

	start := time.Now()
	p := h.start(t, append(base, "do the steps")...)
	code := p.wait(t, 90*time.Second)
	stderr := p.stderr.String()
	if bad := badError(stderr); bad != "" {
		t.Errorf("stderr shows %q:\n%s", bad, stderr)
	}
	if strings.ContainsAny(stderr, "\x1b\x07\x00") {
		t.Errorf("stderr carries raw control characters from the server: %q", stderr)
	}
	switch {
	case f.retryable && code != 0:
		t.Fatalf("a retryable fault (%s) ended the run with exit %d after %v:\n%s", f.name, code, time.Since(start), stderr)
	case !f.retryable && code != 0 && code != 1:
		t.Fatalf("exit %d, want 0 or 1:\n%s", code, stderr)
	case code == 1 && strings.TrimSpace(stderr) == "":
		t.Errorf("exit 1 with nothing on stderr")
	}
	if code == 1 {
		q := h.start(t, append(base, "--continue")...)
		if c := q.wait(t, 90*time.Second); c != 0 {
			t.Fatalf("--continue after %q exited %d:\n%s", f.name, c, q.stderr.String())
		}
	}
	checkEffects(t, h.ws, steps)
}
