package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/termsafe"
)

// failedOutputLines is how many trailing lines of a failed check's output
// the text renderer shows: where test runners print the failures and the
// summary. The model gets the whole (capped) output.
const failedOutputLines = 12

// maxPlanItem bounds the runes shown of one plan item.
const maxPlanItem = 200

// verifyStarted shows a check starting: "verify: go test ./... …", left
// open so its result ends the same line.
func (r *textRenderer) verifyStarted(v *agent.VerifyInfo) {
	if v == nil {
		return
	}
	r.endLine()
	r.closeVerify()
	fmt.Fprintf(r.err, "verify: %s …", termsafe.Line(compactLine(r.ex.scrub(v.Check))))
	r.verifyOpen = v.Check
}

// verifyResult ends the check's line with how it went: "ok 2.1s" or
// "failed (exit 1) 0.8s", then the tail of a failure's output, indented.
func (r *textRenderer) verifyResult(v *agent.VerifyInfo) {
	if v == nil {
		return
	}
	if r.verifyOpen != v.Check {
		r.endLine()
		r.closeVerify()
		fmt.Fprintf(r.err, "verify: %s …", termsafe.Line(compactLine(r.ex.scrub(v.Check))))
	}
	r.verifyOpen = ""
	d := v.Duration.Round(100 * time.Millisecond)
	switch {
	case v.Passed:
		fmt.Fprintf(r.err, " ok %s\n", d)
		return
	case v.Err != "":
		fmt.Fprintf(r.err, " failed (%s) %s\n", termsafe.Line(compactLine(r.ex.scrub(v.Err))), d)
	default:
		fmt.Fprintf(r.err, " failed (exit %d) %s\n", v.ExitCode, d)
	}
	for _, l := range lastLines(r.ex.scrub(v.Output), failedOutputLines) {
		fmt.Fprintf(r.err, "  │ %s\n", termsafe.Line(l))
	}
}

// closeVerify ends a check line whose result never came.
func (r *textRenderer) closeVerify() {
	if r.verifyOpen != "" {
		fmt.Fprintln(r.err)
		r.verifyOpen = ""
	}
}

// plan shows the model's plan as a checklist on stderr: [x] done, [>] in
// progress (by its active form when it has one), [ ] pending.
func (r *textRenderer) plan(items []agent.PlanItem) {
	r.endLine()
	r.closeVerify()
	if len(items) == 0 {
		fmt.Fprintln(r.err, "plan: (cleared)")
		return
	}
	fmt.Fprintln(r.err, "plan:")
	for _, it := range items {
		mark, text := "[ ]", it.Content
		switch it.Status {
		case agent.PlanCompleted:
			mark = "[x]"
		case agent.PlanInProgress:
			mark = "[>]"
			if strings.TrimSpace(it.ActiveForm) != "" {
				text = it.ActiveForm
			}
		}
		fmt.Fprintf(r.err, "  %s %s\n", mark, termsafe.Line(compactLineMax(r.ex.scrub(text), maxPlanItem)))
	}
}

// lastLines returns the last n non-empty lines of s.
func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\r\n \t"), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if l := strings.TrimRight(lines[i], "\r \t"); l != "" {
			out = append(out, l)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
