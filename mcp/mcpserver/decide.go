package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// Rules naming who decided, when the server (not the policy) did.
const (
	ruleNoApprover     = "mcpserver:no-approver"
	ruleApproverFailed = "mcpserver:approver-failed"
	rulePolicyFailed   = "mcpserver:policy-failed"
)

// admit asks the policy (and, for Ask, the approver) whether a call may
// run. It returns the context to run the call in — carrying the call's
// idempotency key when the tool mutates — or, for a denial, the isError
// result to answer with.
func (s *Server) admit(ctx context.Context, spec tool.Spec, args json.RawMessage) (context.Context, *sdk.CallToolResult) {
	call := policy.Call{ID: s.callID(), Spec: spec, Args: args}
	return s.settle(ctx, call, s.decide(ctx, call))
}

// settle acts on a final decision: it reports it, and answers a denial
// with its reason or readies the context of an allowed call.
func (s *Server) settle(ctx context.Context, call policy.Call, d policy.Decision) (context.Context, *sdk.CallToolResult) {
	if s.cfg.OnDecision != nil {
		s.cfg.OnDecision(call, d)
	}
	if d.Action != policy.Allow {
		return ctx, errorResult("tool call denied: %s", d.Reason)
	}
	if spec := call.Spec; spec.Effects.Mutating() {
		ctx = tool.WithIdempotencyKey(ctx, call.ID)
	}
	return ctx, nil
}

// decide returns Allow or Deny, never Ask: the strictest reading of what
// the policy and the approver said.
func (s *Server) decide(ctx context.Context, c policy.Call) policy.Decision {
	d := safeDecide(ctx, s.cfg.Policy, c)
	switch {
	case d.Action == policy.Allow && !d.Hard:
		return d
	case d.Action == policy.Ask && !d.Hard:
		d = s.approve(ctx, c, d)
		if d.Action == policy.Allow {
			return d
		}
	}
	return denial(d)
}

// denial turns anything but an approved Allow — Deny, a hard decision,
// an unknown action — into a Deny with a reason.
func denial(d policy.Decision) policy.Decision {
	d.Action = policy.Deny
	if d.Reason == "" {
		d.Reason = "the policy does not allow this call"
	}
	return d
}

// approve resolves an Ask. Without an approver it denies, saying how to
// allow the call; approver calls are serialised (the Approver contract)
// while still honouring ctx.
func (s *Server) approve(ctx context.Context, c policy.Call, d policy.Decision) policy.Decision {
	if s.cfg.Approver == nil {
		return policy.Decision{
			Action: policy.Deny,
			Reason: fmt.Sprintf("%s; this MCP server has no one to ask — allow the call with a policy rule or serve with --approve auto", d.Reason),
			Rule:   ruleNoApprover,
		}
	}
	if err := s.lockApprover(ctx); err != nil {
		return policy.Decision{Action: policy.Deny, Reason: "approval was cancelled: " + err.Error(), Rule: ruleApproverFailed}
	}
	defer s.unlockApprover()
	ad, err := safeApprove(ctx, s.cfg.Approver, c, d)
	if err != nil {
		return policy.Decision{Action: policy.Deny, Reason: "approval failed: " + err.Error(), Rule: ruleApproverFailed}
	}
	if ad.Action != policy.Allow {
		ad.Action = policy.Deny
	}
	return ad
}

func (s *Server) lockApprover(ctx context.Context) error {
	select {
	case s.approveSem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) unlockApprover() { <-s.approveSem }

// safeDecide calls the policy, failing closed if it panics.
func safeDecide(ctx context.Context, p policy.Decider, c policy.Call) (d policy.Decision) {
	defer func() {
		if v := recover(); v != nil {
			d = policy.Decision{Action: policy.Deny, Reason: fmt.Sprintf("the policy failed (%v)", v), Rule: rulePolicyFailed}
		}
	}()
	return p.Decide(ctx, c)
}

// safeApprove calls the approver, turning a panic into an error.
func safeApprove(ctx context.Context, a policy.Approver, c policy.Call, d policy.Decision) (ad policy.Decision, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the approver failed (%v)", v)
		}
	}()
	return a.Approve(ctx, c, d)
}
