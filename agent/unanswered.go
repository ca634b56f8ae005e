package agent

import (
	"fmt"
	"strings"

	"github.com/reinharness/rein/model"
)

// ruleNever is the Rule of policy.Never's denials: an Ask turned down
// because no one can be asked (--approve never, no terminal), not
// because anyone said no.
const ruleNever = "approver:never"

// maxNeedsApproval bounds Outcome.NeedsApproval.
const maxNeedsApproval = 20

// ApprovalNeeded is a call the policy asked about that no one could
// answer (no approver, or --approve never). Reason says how to allow it.
type ApprovalNeeded struct {
	Tool   string `json:"tool"`
	CallID string `json:"call_id"`
	Reason string `json:"reason"`
}

// noteUnanswered records a call whose Ask no one could answer. Such a
// call is refused (the model is told and goes on without it) but is not
// a denial: it does not count toward MaxConsecutiveDenials. The run ends
// NeedsApproval when MaxConsecutiveDenials of them come in a row with no
// call running in between (or when one is repeated, see afterTurn),
// because then it is stuck on them; noteUnanswered reports that.
func (r *run) noteUnanswered(st *callState) bool {
	reason := strings.TrimPrefix(st.result.Content, "tool call denied: ")
	if reason == reasonNoApprover {
		reason += "; allow it with a policy rule, or give the run an approver"
	}
	if len(r.out.NeedsApproval) < maxNeedsApproval {
		r.out.NeedsApproval = append(r.out.NeedsApproval, ApprovalNeeded{Tool: st.call.Name, CallID: st.call.ID, Reason: clip(reason, 500)})
	}
	r.asks++
	limit := r.a.cfg.MaxConsecutiveDenials
	if limit <= 0 || r.asks < limit {
		return false
	}
	r.out.Reason = r.needsApprovalReason()
	return true
}

// needsApprovalReason names the calls that needed approval and how to
// allow them (the last one's reason carries the fix).
func (r *run) needsApprovalReason() string {
	calls := r.out.NeedsApproval
	if len(calls) == 0 {
		return "calls needed approval and no one could be asked"
	}
	var names []string
	seen := map[string]bool{}
	for _, c := range calls {
		if !seen[c.Tool] {
			seen[c.Tool] = true
			names = append(names, c.Tool)
		}
	}
	return fmt.Sprintf("%s needed approval and no one could be asked (%s); the last: %s",
		plural(len(calls), "tool call"), clip(strings.Join(names, ", "), 300), clip(calls[len(calls)-1].Reason, 300))
}

// contentFiltered ends the run on an answer the provider's content
// filter stopped. What text arrived is recorded (a filtered answer's
// tool calls are not: they are cut and never run); the turn is not
// retried, since asking again would most likely be filtered again.
func (r *run) contentFiltered(msg model.Message) (OutcomeKind, error, bool) {
	var kept []model.Part
	for _, p := range msg.Parts {
		if p.Kind != model.PartToolCall {
			kept = append(kept, p)
		}
	}
	msg.Parts = kept
	if strings.TrimSpace(msg.Text()) != "" {
		r.c.Append(msg)
		r.out.Text = msg.Text()
		if err := r.emitMessage(); err != nil {
			return Failed, err, true
		}
	}
	r.out.Reason = fmt.Sprintf("the provider's content filter stopped the answer to model call %d", r.step)
	return ContentFiltered, nil, true
}
