package policy

import (
	"context"
	"fmt"
	"strings"
)

// Auto returns an approver that turns every Ask into Allow (--approve
// auto). Hard denials never reach an approver, and a Deny given to it is
// returned unchanged.
func Auto() Approver { return autoApprover{} }

type autoApprover struct{}

// Approve implements Approver.
func (autoApprover) Approve(_ context.Context, c Call, d Decision) (Decision, error) {
	if d.Action != Ask {
		return d, nil
	}
	why := strings.TrimPrefix(d.Reason, c.Spec.Name+" needs approval: ")
	return Decision{
		Action: Allow,
		Reason: c.Spec.Name + " was approved automatically (--approve auto) although " + why,
		Rule:   "approver:auto",
	}, nil
}

// Never returns an approver that turns every Ask into Deny, with a reason
// that says how to allow the call (--approve never, and the default
// without a terminal).
func Never() Approver { return neverApprover{} }

type neverApprover struct{}

// Approve implements Approver.
func (neverApprover) Approve(_ context.Context, c Call, d Decision) (Decision, error) {
	if d.Action != Ask {
		return d, nil
	}
	why := strings.TrimPrefix(d.Reason, c.Spec.Name+" needs approval: ")
	table := "[[policy.tools]]"
	if c.Spec.Effects.Exec && c.Spec.Effects.CommandArg != "" {
		table = "[[policy.commands]]"
	}
	return Decision{
		Action: Deny,
		Reason: fmt.Sprintf("%s needs approval (%s); rein is running without a terminal — allow it with a %s rule or --approve auto",
			c.Spec.Name, why, table),
		Rule: "approver:never",
	}, nil
}
