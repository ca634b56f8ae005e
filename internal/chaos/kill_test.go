package chaos_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChaosKill kills rein with SIGKILL at random moments of multi-step
// sessions — in the spawn window of a command (0–5 ms after the model
// asked for it), at a random event boundary of the stream-json output, or
// after a random delay — then resumes with --continue, up to three kills a
// round, and finishes the session. A careful fake model redoes a step
// whose result says it was interrupted only after checking its effect.
// Judged by properties: every step's effect exactly once, no process of
// the round alive after its rein died, the stored history never shorter
// than before, no leftover .rein-tmp files, and the session completes.
func TestChaosKill(t *testing.T) {
	seed, rounds := config(t, 9)
	for round := range rounds {
		r := rand.New(rand.NewPCG(seed, uint64(round)))
		mode := sandboxModes[round%len(sandboxModes)]
		t.Run(fmt.Sprintf("round%d-%s", round, mode), func(t *testing.T) {
			killRound(t, r, mode, fmt.Sprintf("chaos%d-%d", seed%1_000_000, round))
		})
	}
}

func killRound(t *testing.T, r *rand.Rand, mode, token string) {
	h := newHome(t, mode)
	defer killSurvivors(token)
	steps := randomSteps(r)
	var edit strings.Builder
	for _, s := range steps {
		if s.kind == "edit" {
			fmt.Fprintf(&edit, "e%d-\n", s.n)
		}
	}
	writeFile(t, filepath.Join(h.ws, "edit.txt"), edit.String())
	hits := make(chan struct{}, 1)
	s := &script{steps: steps, token: token, reuseID: r.IntN(2) == 0, onToolHit: func() {
		select {
		case hits <- struct{}{}:
		default:
		}
	}}
	url := newModel(t, s)
	base := []string{"run", "--preset", "full", "--approve", "never", "--output-format", "stream-json",
		"--state-dir", h.state, "-C", h.ws, "-e", url, "--max-steps", "40", "--timeout", "90s"}
	t.Logf("steps %v, reuse ids %v", steps, s.reuseID)

	id := ""
	acked := 0
	completed := false
	kills := 1 + r.IntN(3)
	for k := range kills {
		args := h.resumeArgs(t, base, id)
		drain(hits)
		p := h.start(t, args...)
		how := r.IntN(3)
		var what string
		switch how {
		case 0: // the spawn window of a command
			select {
			case <-hits:
			case <-p.done:
			case <-time.After(30 * time.Second):
			}
			d := time.Duration(r.IntN(6000)) * time.Microsecond
			time.Sleep(d)
			what = fmt.Sprintf("%v after a command was asked for", d)
		case 1: // an event boundary
			n := 1 + r.IntN(14)
			deadline := time.After(30 * time.Second)
		wait:
			for p.stdout.count() < n {
				select {
				case <-p.stdout.seen:
				case <-p.done:
					break wait
				case <-deadline:
					break wait
				}
			}
			what = fmt.Sprintf("at event %d", n)
		default:
			d := time.Duration(r.IntN(600)) * time.Millisecond
			select {
			case <-time.After(d):
			case <-p.done:
			}
			what = fmt.Sprintf("%v after start", d)
		}
		select {
		case <-p.done:
			t.Logf("kill %d: rein had already exited %d", k, p.code)
			if p.code != 0 {
				t.Errorf("rein exited %d before the kill\nstderr: %s", p.code, p.stderr.String())
			}
			completed = p.code == 0
		default:
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			t.Logf("kill %d: %s", k, what)
		}
		p.wait(t, 10*time.Second)
		if id == "" {
			id = sessionID(p.stdout.String())
		}
		// Nothing the killed rein started may live on.
		time.Sleep(300 * time.Millisecond)
		if left := survivors(token); len(left) > 0 {
			t.Errorf("after kill %d (%s), processes of the round outlived rein:\n%s", k, what, strings.Join(left, "\n"))
			killSurvivors(token)
		}
		if id != "" {
			n, msg, err := h.storedEvents(t, id)
			switch {
			case err != nil:
				t.Errorf("after kill %d, the store cannot show the session: %v\n%s", k, err, msg)
			case n < acked:
				t.Errorf("after kill %d, the stored history has %d events, %d before: silently shorter", k, n, acked)
			default:
				acked = n
			}
		}
		// Killed after the model's last answer was stored: the work is
		// done, and --continue has nothing to continue (it says so and
		// exits 2).
		if id != "" && !completed && h.answered(t, id) {
			t.Logf("kill %d came after the final answer was stored", k)
			completed = true
		}
		if completed || t.Failed() {
			break
		}
	}
	if t.Failed() {
		return
	}

	args := h.resumeArgs(t, base, id)
	if !completed {
		p := h.start(t, args...)
		if code := p.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("the final run exited %d\nstderr: %s", code, p.stderr.String())
		}
		if bad := badError(p.stderr.String()); bad != "" {
			t.Errorf("stderr shows %q:\n%s", bad, p.stderr.String())
		}
	}
	checkEffects(t, h.ws, steps)
	time.Sleep(200 * time.Millisecond)
	if left := survivors(token); len(left) > 0 {
		t.Errorf("processes of the round outlived the final rein:\n%s", strings.Join(left, "\n"))
	}
	if tmp, _ := filepath.Glob(filepath.Join(h.ws, ".rein-tmp-*")); len(tmp) > 0 {
		t.Errorf("leftover temporary files in the workspace: %v", tmp)
	}
}

// randomSteps draws 3–5 steps, commands twice as likely as writes or edits.
func randomSteps(r *rand.Rand) []step {
	kinds := []string{"cmd", "cmd", "write", "edit"}
	n := 3 + r.IntN(3)
	steps := make([]step, n)
	for i := range steps {
		steps[i] = step{kind: pick(r, kinds), n: i + 1, delayMS: r.IntN(300)}
	}
	return steps
}

// checkEffects asserts that every step's effect is there exactly once.
func checkEffects(t *testing.T, ws string, steps []step) {
	t.Helper()
	log := readAll(filepath.Join(ws, "effects.log"))
	edit := readAll(filepath.Join(ws, "edit.txt"))
	for _, s := range steps {
		switch s.kind {
		case "cmd":
			if n := countLines(log, s.effect()); n != 1 {
				t.Errorf("step %d (command) took effect %d times, want exactly once\neffects.log:\n%s", s.n, n, log)
			}
		case "write":
			got := readAll(filepath.Join(ws, fmt.Sprintf("f%d.txt", s.n)))
			if want := fmt.Sprintf("file %d\n", s.n); got != want {
				t.Errorf("step %d (write) left %q, want %q", s.n, got, want)
			}
		case "edit":
			if countLines(edit, fmt.Sprintf("e%d+", s.n)) != 1 || countLines(edit, fmt.Sprintf("e%d-", s.n)) != 0 {
				t.Errorf("step %d (edit) not applied exactly once:\n%s", s.n, edit)
			}
		}
	}
}

func countLines(text, line string) int {
	n := 0
	for l := range strings.SplitSeq(text, "\n") {
		if l == line {
			n++
		}
	}
	return n
}

func drain(c chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

var _ = os.Getpid

// resumeArgs continues the session, or starts it when rein was killed
// before it stored the prompt (a session with no user message is not
// waiting for the model: the prompt must be given again).
func (h *home) resumeArgs(t *testing.T, base []string, id string) []string {
	args := append(slices.Clip(base), "--continue")
	switch {
	case id == "":
		return append(slices.Clip(base), "do the steps")
	case !h.hasPrompt(t, id):
		return append(args, "do the steps")
	}
	return args
}
