package agent

import (
	"context"
	"time"

	"github.com/reinharness/rein/agent/testout"
)

// DefaultMaxVerifyAttempts is how many failed verifications end a run
// VerificationFailed when Config.MaxVerifyAttempts is 0.
const DefaultMaxVerifyAttempts = 3

// Verifier is the verification gate. When the model ends a turn with an
// answer, the loop asks for the checks to run; it runs each (reporting
// verify.started and verify.result events) and, when one fails, hands the
// output back to the model as a user message and goes on. After
// MaxVerifyAttempts failed verifications the run ends VerificationFailed.
// Implementations must be safe for concurrent use.
type Verifier interface {
	// Checks returns the checks to run now, attempt being 1 for the first
	// verification of the run. None means the answer stands (for example
	// because no file changed during the run).
	Checks(ctx context.Context, attempt int) []Check
}

// Check is one verification command.
type Check struct {
	// Name is what is shown and recorded: the command line.
	Name string
	// Run runs the check and returns when it ended or ctx is done. It
	// enforces its own timeout; a check that hangs is killed and reported
	// failed.
	Run func(ctx context.Context) CheckResult
}

// CheckResult is how one check ended.
type CheckResult struct {
	// ExitCode is the command's exit status; -1 when it did not exit on
	// its own (killed at its timeout, failed to start).
	ExitCode int
	// Output is the command's combined output, already capped (head and
	// tail) by the check.
	Output string
	// Err says why the check did not run to an exit ("timed out after
	// 5m0s", "not found"); empty when it exited.
	Err string
	// Unavailable marks a check that cannot run at all — its program is
	// not found or not executable, its working directory is missing, it
	// timed out on the first attempt — so no answer of the model can
	// make it pass: the gate ends the run VerificationUnavailable at once
	// (Err, else the exit code, says why) instead of handing the failure
	// to the model.
	Unavailable bool
}

// Passed reports whether the check succeeded.
func (r CheckResult) Passed() bool { return r.ExitCode == 0 && r.Err == "" }

// VerifyInfo is the payload of verify.started and verify.result events.
type VerifyInfo struct {
	Check   string `json:"check"`
	Attempt int    `json:"attempt"`
	// The fields below are set on verify.result only.
	ExitCode int           `json:"exit_code"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Passed   bool          `json:"passed"`
	Output   string        `json:"output,omitempty"`
	Err      string        `json:"error,omitempty"`
	// Unavailable is set when the check could not run at all (see
	// CheckResult.Unavailable).
	Unavailable bool `json:"unavailable,omitempty"`
	// Summary and Failures are what package testout read from a failed
	// check's output: "2 failing tests: TestAdd (calc_test.go:7), …" and
	// each test's name and location; empty when it recognised nothing.
	Summary  string            `json:"summary,omitempty"`
	Failures []testout.Failure `json:"failures,omitempty"`
}

// PlanStatus is the state of one plan item.
type PlanStatus string

// Plan item states.
const (
	PlanPending    PlanStatus = "pending"
	PlanInProgress PlanStatus = "in_progress"
	PlanCompleted  PlanStatus = "completed"
)

// PlanItem is one entry of the model's plan (the todo_write tool).
type PlanItem struct {
	Content string     `json:"content"`
	Status  PlanStatus `json:"status"`
	// ActiveForm is the present-continuous form shown while the item is
	// in progress ("Running the tests"); optional.
	ActiveForm string `json:"activeForm,omitempty"`
}
