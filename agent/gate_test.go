package agent

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// fakeVerifier returns the checks checks(attempt) gives, recording each
// attempt it was asked about.
type fakeVerifier struct {
	mu       sync.Mutex
	attempts []int
	checks   func(attempt int) []Check
}

func (v *fakeVerifier) Checks(_ context.Context, attempt int) []Check {
	v.mu.Lock()
	v.attempts = append(v.attempts, attempt)
	v.mu.Unlock()
	return v.checks(attempt)
}

// fixedCheck is a check that always ends with res.
func fixedCheck(name string, res CheckResult) Check {
	return Check{Name: name, Run: func(context.Context) CheckResult { return res }}
}

// verifyInfos returns the Verify payloads of the events of typ.
func verifyInfos(r *runResult, typ EventType) []VerifyInfo {
	var out []VerifyInfo
	for _, ev := range r.ofType(typ) {
		out = append(out, *ev.Verify)
	}
	return out
}

// A model that breaks the code and claims success three times ends
// VerificationFailed with the last output in the error, and saw the
// failures in between.
func TestVerifyBreaksAndClaimsSuccess(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("Done, all tests pass.")).Repeat()
	v := &fakeVerifier{checks: func(int) []Check {
		return []Check{fixedCheck("go test ./...", CheckResult{ExitCode: 1, Output: "--- FAIL: TestAdd\n    add_test.go:9: 1+1 = 3\nFAIL\n"})}
	}}
	j := &memJournal{}
	a := mustAgent(t, Config{Provider: p, Verifier: v, Journal: j})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "fix add")

	if r.outcome.Kind != VerificationFailed || r.err != nil {
		t.Fatalf("outcome = %+v, err %v", r.outcome, r.err)
	}
	if !strings.Contains(r.outcome.Err, "add_test.go:9: 1+1 = 3") || !strings.Contains(r.outcome.Err, "go test ./...") {
		t.Errorf("outcome error lacks the last failure: %q", r.outcome.Err)
	}
	if !strings.Contains(r.outcome.Reason, "3 times") {
		t.Errorf("reason = %q", r.outcome.Reason)
	}
	if p.Calls() != 3 || r.outcome.Steps != 3 {
		t.Errorf("model calls = %d, steps %d; want 3", p.Calls(), r.outcome.Steps)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, v.attempts); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	results := verifyInfos(r, EventVerifyResult)
	if len(results) != 3 || len(r.ofType(EventVerifyStarted)) != 3 {
		t.Fatalf("verify events: %v", r.types())
	}
	for i, res := range results {
		if res.Passed || res.ExitCode != 1 || res.Attempt != i+1 || res.Check != "go test ./..." || res.Duration <= 0 {
			t.Errorf("result %d = %+v", i, res)
		}
	}
	// The two failures the model could still act on reached it.
	var feedback []string
	for _, m := range c.Messages() {
		if m.Role == model.RoleUser && strings.HasPrefix(m.Text(), "Verification failed") {
			feedback = append(feedback, m.Text())
		}
	}
	if len(feedback) != 2 || !strings.Contains(feedback[0], "attempt 1 of 3") || !strings.Contains(feedback[1], "attempt 2 of 3") ||
		!strings.Contains(feedback[0], "$ go test ./...\nexited with code 1") || !strings.Contains(feedback[0], "1+1 = 3") {
		t.Errorf("feedback messages = %q", feedback)
	}
	var journaled int
	for _, typ := range j.types() {
		if typ == EventVerifyStarted || typ == EventVerifyResult {
			journaled++
		}
	}
	if journaled != 6 {
		t.Errorf("journaled %d verify events, want 6", journaled)
	}
}

// A model that fixes the code after one failure completes, with one
// result per check and attempt.
func TestVerifyFixesAfterOneFailure(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("done"), modeltest.Text("fixed now"))
	v := &fakeVerifier{checks: func(attempt int) []Check {
		vet := fixedCheck("go vet ./...", CheckResult{})
		if attempt == 1 {
			return []Check{fixedCheck("go test ./...", CheckResult{ExitCode: 2, Output: "build failed"}), vet}
		}
		return []Check{fixedCheck("go test ./...", CheckResult{Output: "ok"}), vet}
	}}
	a := mustAgent(t, Config{Provider: p, Verifier: v})
	r := collect(t, a, context.Background(), NewConversation(""), "fix it")
	if r.outcome.Kind != Complete || r.outcome.Text != "fixed now" {
		t.Fatalf("outcome = %+v", r.outcome)
	}
	type res struct {
		Check   string
		Attempt int
		Passed  bool
	}
	var got []res
	for _, info := range verifyInfos(r, EventVerifyResult) {
		got = append(got, res{info.Check, info.Attempt, info.Passed})
	}
	want := []res{{"go test ./...", 1, false}, {"go vet ./...", 1, true}, {"go test ./...", 2, true}, {"go vet ./...", 2, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verify results (-want +got):\n%s", diff)
	}
	// started/result pairs, in order.
	var seq []EventType
	for _, typ := range r.types() {
		if typ == EventVerifyStarted || typ == EventVerifyResult {
			seq = append(seq, typ)
		}
	}
	for i := 0; i < len(seq); i += 2 {
		if seq[i] != EventVerifyStarted || seq[i+1] != EventVerifyResult {
			t.Fatalf("verify events not paired: %v", seq)
		}
	}
	second := p.Requests()[1].Messages
	last := second[len(second)-1].Text()
	if !strings.Contains(last, "exited with code 2") || !strings.Contains(last, "build failed") || strings.Contains(last, "go vet") {
		t.Errorf("failure message names the wrong checks: %q", last)
	}
}

// A Verifier without checks (nothing changed) lets the answer stand.
func TestVerifyNoChecksDoNotBlock(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("nothing to change"))
	v := &fakeVerifier{checks: func(int) []Check { return nil }}
	a := mustAgent(t, Config{Provider: p, Verifier: v})
	r := collect(t, a, context.Background(), NewConversation(""), "look")
	if r.outcome.Kind != Complete || len(r.ofType(EventVerifyStarted)) != 0 || len(v.attempts) != 1 {
		t.Fatalf("outcome %+v, events %v, attempts %v", r.outcome, r.types(), v.attempts)
	}
}

// Cancelling the run while a check runs ends it Cancelled; the cut check
// is reported, but not as a failure the model is told about.
func TestVerifyCancelMidCheck(t *testing.T) {
	started := make(chan struct{})
	v := &fakeVerifier{checks: func(int) []Check {
		return []Check{{Name: "slow", Run: func(ctx context.Context) CheckResult {
			close(started)
			<-ctx.Done()
			return CheckResult{ExitCode: -1, Err: "killed"}
		}}}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	p := modeltest.NewScripted(modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Verifier: v})
	c := NewConversation("")
	r := collect(t, a, ctx, c, "go")
	if r.outcome.Kind != Cancelled || r.err == nil {
		t.Fatalf("outcome %+v, err %v", r.outcome, r.err)
	}
	res := verifyInfos(r, EventVerifyResult)
	if len(res) != 1 || res[0].Passed || !strings.Contains(res[0].Err, "interrupted") {
		t.Errorf("verify results = %+v", res)
	}
	if last := c.Messages()[c.Len()-1]; last.Role != model.RoleAssistant {
		t.Errorf("a failure message was appended after the cancellation: %q", last.Text())
	}
}

// The run's timeout applies to a check that hangs: the run ends Deadline.
func TestVerifyDeadlineMidCheck(t *testing.T) {
	v := &fakeVerifier{checks: func(int) []Check {
		return []Check{{Name: "hangs", Run: func(ctx context.Context) CheckResult {
			<-ctx.Done()
			return CheckResult{ExitCode: -1}
		}}}
	}}
	p := modeltest.NewScripted(modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Verifier: v, Timeout: 50 * time.Millisecond})
	start := time.Now()
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != Deadline || time.Since(start) > 5*time.Second {
		t.Fatalf("outcome %+v after %v", r.outcome, time.Since(start))
	}
}

// The step limit still ends a run whose verifications keep failing.
func TestVerifyStepLimit(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("done")).Repeat()
	v := &fakeVerifier{checks: func(int) []Check {
		return []Check{fixedCheck("false", CheckResult{ExitCode: 1})}
	}}
	a := mustAgent(t, Config{Provider: p, Verifier: v, MaxVerifyAttempts: 10, MaxSteps: 2})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != StepLimit || len(v.attempts) != 2 {
		t.Fatalf("outcome %+v, attempts %v", r.outcome, v.attempts)
	}
}

// A broken Verifier or check fails closed: the answer is not let through.
func TestVerifyFailsClosed(t *testing.T) {
	for name, checks := range map[string]func(int) []Check{
		"verifier panics": func(int) []Check { panic("verifier bug") },
		"check panics": func(int) []Check {
			return []Check{{Name: "x", Run: func(context.Context) CheckResult { panic("check bug") }}}
		},
		"check without run": func(int) []Check { return []Check{{Name: "x"}} },
	} {
		t.Run(name, func(t *testing.T) {
			p := modeltest.NewScripted(modeltest.Text("done")).Repeat()
			a := mustAgent(t, Config{Provider: p, Verifier: &fakeVerifier{checks: checks}, MaxVerifyAttempts: 1})
			r := collect(t, a, context.Background(), NewConversation(""), "go")
			if r.outcome.Kind != VerificationFailed || r.outcome.Err == "" {
				t.Fatalf("outcome = %+v", r.outcome)
			}
		})
	}
}

// Large outputs reach the model as head and tail, capped.
func TestVerifyOutputCapped(t *testing.T) {
	out := "HEAD\n" + strings.Repeat("x", 100<<10) + "\nTAIL"
	p := modeltest.NewScripted(modeltest.Text("done"), modeltest.Text("done"))
	v := &fakeVerifier{checks: func(attempt int) []Check {
		if attempt > 1 {
			return nil
		}
		return []Check{fixedCheck("make", CheckResult{ExitCode: 1, Output: out})}
	}}
	a := mustAgent(t, Config{Provider: p, Verifier: v})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "go")
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome = %+v", r.outcome)
	}
	msg := c.Messages()[2].Text()
	if len(msg) > 2*gateOutputHalf+1024 || !strings.Contains(msg, "HEAD") || !strings.Contains(msg, "TAIL") || !strings.Contains(msg, "bytes omitted") {
		t.Errorf("failure message is %d bytes: %.200q … %.200q", len(msg), msg, msg[max(0, len(msg)-200):])
	}
	if got := verifyInfos(r, EventVerifyResult)[0].Output; len(got) > 2*gateOutputHalf+100 {
		t.Errorf("event output is %d bytes", len(got))
	}
}

func TestHeadTail(t *testing.T) {
	if got := headTail("short", 10); got != "short" {
		t.Errorf("headTail(short) = %q", got)
	}
	s := strings.Repeat("é", 100) // 2 bytes each
	got := headTail(s, 15)
	if !strings.HasPrefix(got, strings.Repeat("é", 7)+"\n[… ") || !strings.HasSuffix(got, "omitted …]\n"+strings.Repeat("é", 7)) {
		t.Errorf("headTail = %q", got)
	}
}
