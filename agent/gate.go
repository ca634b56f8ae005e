package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reinharness/rein/agent/testout"
	"github.com/reinharness/rein/model"
)

// Output caps of the verification gate. A failed check's output reaches
// the model as its head and tail (where compilers and test runners put
// what matters), each at most gateOutputHalf bytes; events carry the same
// excerpt, and the Outcome's error a shorter one.
const (
	gateOutputHalf  = 4 << 10
	gateOutcomeHalf = 1 << 10
)

// gateResult is what the verification gate decided about an answer.
type gateResult int

const (
	gatePass  gateResult = iota // the answer stands (checks passed, or none)
	gateRetry                   // checks failed; the model was told and goes on
	gateEnd                     // the run ends (VerificationFailed, cancelled, …)
)

// verifyState is the run's verification gate state.
type verifyState struct {
	// verifications counts the verifications that ran checks, failures
	// those that failed.
	verifications int
	failures      int
}

// failedCheck is one check that did not pass, with what testout read
// from its output.
type failedCheck struct {
	name   string
	res    CheckResult
	report testout.Report
}

// maxVerifyAttempts is MaxVerifyAttempts with its default applied.
func (r *run) maxVerifyAttempts() int {
	if n := r.a.cfg.MaxVerifyAttempts; n > 0 {
		return n
	}
	return DefaultMaxVerifyAttempts
}

// verify is the verification gate, run when the model ended a turn with
// an answer. It runs the Verifier's checks one after another, each reported
// as verify.started and verify.result. When one fails the model gets the
// output as a user message and the run goes on (gateRetry), until
// MaxVerifyAttempts failed verifications end it VerificationFailed. A check
// cut short by the end of the run is not a failure: the run ends as the
// context says (Cancelled, Deadline).
func (r *run) verify() (OutcomeKind, gateResult, error) {
	v := r.a.cfg.Verifier
	if v == nil {
		return "", gatePass, nil
	}
	attempt := r.verifications + 1
	checks := r.safeChecks(v, attempt)
	if len(checks) == 0 {
		return "", gatePass, nil
	}
	r.verifications = attempt
	var failed []failedCheck
	for _, ch := range checks {
		if r.ctx.Err() != nil {
			kind, err := r.ctxOutcome()
			return kind, gateEnd, err
		}
		res, err := r.runCheck(ch, attempt)
		if err != nil && !errors.Is(err, errStopped) && r.ctx.Err() == nil {
			return Failed, gateEnd, err
		}
		if err != nil || r.ctx.Err() != nil {
			kind, err := r.ctxOutcome()
			return kind, gateEnd, err
		}
		if res.Unavailable {
			return r.unavailable(ch.Name, res), gateEnd, nil
		}
		if !res.Passed() {
			failed = append(failed, failedCheck{name: ch.Name, res: res, report: testout.Parse(res.Output)})
		}
	}
	if len(failed) == 0 {
		return "", gatePass, nil
	}
	r.failures++
	limit := r.maxVerifyAttempts()
	if r.failures >= limit {
		last := failed[len(failed)-1]
		r.out.Reason = fmt.Sprintf("verification failed %s; the last failure: %s %s",
			plural(r.failures, "time"), clip(last.name, 200), checkStatus(last.res))
		r.outErr = fmt.Sprintf("verification failed after %s: %s %s\n%s%s",
			plural(r.failures, "attempt"), clip(last.name, 200), checkStatus(last.res),
			summaryLine(last.report), headTail(last.res.Output, gateOutcomeHalf))
		return VerificationFailed, gateEnd, nil
	}
	r.c.Append(model.UserText(failureMessage(failed, r.failures, limit)))
	if err := r.emitMessage(); err != nil {
		return Failed, gateEnd, err
	}
	return "", gateRetry, nil
}

// runCheck runs one check between its verify.started and verify.result
// events. The returned error is the journal's or the consumer's.
func (r *run) runCheck(ch Check, attempt int) (CheckResult, error) {
	if err := r.emit(Event{Type: EventVerifyStarted, Verify: &VerifyInfo{Check: ch.Name, Attempt: attempt}}); err != nil {
		return CheckResult{}, err
	}
	start := r.a.cfg.Clock.Now()
	res := safeRunCheck(r.ctx, ch)
	cut := r.ctx.Err() != nil
	if cut && res.Passed() {
		cut = false // it finished before the run ended: a real pass
	}
	if cut {
		res.Err = r.interruptedReason(nil)
	}
	info := &VerifyInfo{
		Check: ch.Name, Attempt: attempt,
		ExitCode: res.ExitCode, Duration: r.a.cfg.Clock.Now().Sub(start), Passed: res.Passed(),
		Output: headTail(res.Output, gateOutputHalf), Err: res.Err, Unavailable: res.Unavailable,
	}
	if !res.Passed() && !res.Unavailable {
		rep := testout.Parse(res.Output)
		info.Summary, info.Failures = rep.Summary(), rep.Failures
	}
	return res, r.emit(Event{Type: EventVerifyResult, Verify: info})
}

// safeChecks asks the Verifier for the checks of attempt. A panic fails
// closed: the gate reports one failed check naming it, rather than let an
// answer through unverified or crash the run.
func (r *run) safeChecks(v Verifier, attempt int) (checks []Check) {
	defer func() {
		if e := recover(); e != nil {
			msg := fmt.Sprintf("the verifier failed (%v)", e)
			r.a.diag().Error("verifier panicked", "panic", fmt.Sprint(e))
			checks = []Check{{Name: "verifier", Run: func(context.Context) CheckResult {
				return CheckResult{ExitCode: -1, Err: msg}
			}}}
		}
	}()
	return v.Checks(r.ctx, attempt)
}

// safeRunCheck runs ch, turning a panic or a missing Run into a failure.
func safeRunCheck(ctx context.Context, ch Check) (res CheckResult) {
	if ch.Run == nil {
		return CheckResult{ExitCode: -1, Err: "the check has nothing to run"}
	}
	defer func() {
		if e := recover(); e != nil {
			res = CheckResult{ExitCode: -1, Err: fmt.Sprintf("the check failed (%v)", e)}
		}
	}()
	return ch.Run(ctx)
}

// checkStatus says how a failed check ended, in a few words.
func checkStatus(res CheckResult) string {
	if res.Err != "" {
		return "failed: " + clip(res.Err, 500)
	}
	return "exited with code " + strconv.Itoa(res.ExitCode)
}

// failureMessage is the user message that hands failed checks back to the
// model.
func failureMessage(failed []failedCheck, failures, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Verification failed (attempt %d of %d): your answer was not accepted because ", failures, limit)
	if len(failed) == 1 {
		b.WriteString("a check failed.")
	} else {
		fmt.Fprintf(&b, "%d checks failed.", len(failed))
	}
	for _, f := range failed {
		fmt.Fprintf(&b, "\n\n$ %s\n%s\n%s", clip(f.name, 1<<10), checkStatus(f.res), summaryLine(f.report))
		if out := headTail(f.res.Output, gateOutputHalf); out != "" {
			b.WriteString("output:\n")
			b.WriteString(out)
			if !strings.HasSuffix(out, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	b.WriteString("\nFix the cause, then answer again; the checks run again when you do.")
	return b.String()
}

// unavailable ends the gate on a check that cannot run at all: the
// model is not blamed, nor asked to fix what only the user's setup can.
func (r *run) unavailable(name string, res CheckResult) OutcomeKind {
	why := res.Err
	if why == "" {
		why = "exited with code " + strconv.Itoa(res.ExitCode)
	}
	r.out.Reason = fmt.Sprintf("the check `%s` cannot run: %s", clip(name, 200), clip(why, 500))
	r.outErr = r.out.Reason
	if out := headTail(res.Output, gateOutcomeHalf); out != "" {
		r.outErr += "\n" + out
	}
	return VerificationUnavailable
}

// summaryLine is testout's summary as a line of the gate's messages, ""
// when it recognised nothing.
func summaryLine(rep testout.Report) string {
	if s := rep.Summary(); s != "" {
		return s + "\n"
	}
	return ""
}

// headTail keeps the first and last half bytes of s (on UTF-8 boundaries),
// marking what was left out.
func headTail(s string, half int) string {
	if len(s) <= 2*half {
		return s
	}
	head := clip(s, half)
	head = strings.TrimSuffix(head, "…")
	i := len(s) - half
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	omitted := i - len(head)
	return head + "\n[… " + strconv.Itoa(omitted) + " bytes omitted …]\n" + s[i:]
}
