package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// Approvals as elicitations (Config.ElicitApprovals). When the policy
// asks about a rein tool's call and the client can show a form, the call
// answers with one elicitation input request — "approve this call?" —
// and a signed state bound to the call; the client's next round carries
// the answer. In the 2026-07-28 era that is the client's retry; for an
// initialize-era session the SDK sends a real elicitation/create and
// calls the handler again, so the same code serves both. Within a task
// the task waits as input_required for the answer.

// ApprovalInputKey names the approval among a call's input requests.
const ApprovalInputKey = "rein_approval"

// approvalState is the data an approval's requestState carries: it says
// the state was issued for an approval, not by some other round.
var approvalState = []byte("approval")

// Rules naming who decided an elicited approval.
const (
	ruleClientApproved = "mcpserver:client-approved"
	ruleClientDeclined = "mcpserver:client-declined"
)

// maxArgsPreview bounds the arguments quoted in the approval message.
const maxArgsPreview = 1000

// admitRein is admit for a rein tool's call, whose Ask is put to the
// client when it can answer. Besides admit's results it may return an
// input-required result (the approval asked) or a protocol error (a
// refused requestState).
func (s *Server) admitRein(ctx context.Context, req *sdk.CallToolRequest, spec tool.Spec, args json.RawMessage) (context.Context, *sdk.CallToolResult, error) {
	if !s.cfg.ElicitApprovals || !elicitsForms(req) {
		ctx, denied := s.admit(ctx, spec, args)
		return ctx, denied, nil
	}
	call := policy.Call{ID: s.callID(), Spec: spec, Args: args}
	d := safeDecide(ctx, s.cfg.Policy, call)
	switch {
	case d.Action == policy.Allow && !d.Hard:
	case d.Action == policy.Ask && !d.Hard:
		answered, ask, err := s.elicitedApproval(req, call, d)
		if ask != nil || err != nil {
			return ctx, ask, err
		}
		if d = answered; d.Action != policy.Allow {
			d = denial(d)
		}
	default:
		d = denial(d)
	}
	ctx, denied := s.settle(ctx, call, d)
	return ctx, denied, nil
}

// elicitedApproval asks for the approval on the first round and reads
// the answer on the next. A state that fails verification is refused
// outright; answers without a state are ignored and the approval asked.
func (s *Server) elicitedApproval(req *sdk.CallToolRequest, c policy.Call, d policy.Decision) (policy.Decision, *sdk.CallToolResult, error) {
	data, err := s.state.Open(req)
	if err != nil {
		return d, nil, StateError(err)
	}
	if data == nil {
		ask, err := s.state.Ask(req, sdk.InputRequestMap{ApprovalInputKey: approvalRequest(c, d)}, approvalState)
		return d, ask, err
	}
	if string(data) != string(approvalState) {
		return d, nil, StateError(fmt.Errorf("%w: it was not issued for an approval", ErrRequestState))
	}
	answer, _ := req.Params.InputResponses[ApprovalInputKey].(*sdk.ElicitResult)
	switch {
	case answer == nil:
		return policy.Decision{Action: policy.Deny, Rule: ruleClientDeclined,
			Reason: fmt.Sprintf("%s; the client's answer to the approval request (input %q) is missing", d.Reason, ApprovalInputKey)}, nil, nil
	case answer.Action == "accept":
		return policy.Decision{Action: policy.Allow, Rule: ruleClientApproved,
			Reason: d.Reason + "; approved by the client (elicitation)"}, nil, nil
	default:
		return policy.Decision{Action: policy.Deny, Rule: ruleClientDeclined,
			Reason: fmt.Sprintf("%s; the client's user did not approve it (%s)", d.Reason, answerAction(answer.Action))}, nil, nil
	}
}

func answerAction(action string) string {
	switch action {
	case "decline":
		return "declined"
	case "cancel":
		return "cancelled"
	}
	return fmt.Sprintf("answered %q", action)
}

// approvalRequest is the elicitation that asks for a call's approval: a
// form without fields, since accepting it is the answer.
func approvalRequest(c policy.Call, d policy.Decision) *sdk.ElicitParams {
	args := string(c.Args)
	if len(args) > maxArgsPreview {
		cut := maxArgsPreview
		for cut > 0 && !utf8.RuneStart(args[cut]) {
			cut--
		}
		args = args[:cut] + "…"
	}
	return &sdk.ElicitParams{
		Mode: "form",
		Message: fmt.Sprintf("Approve the tool call %s %s?\nrein's policy asks: %s.\nAccept to run it; decline or cancel to deny it.",
			c.Spec.Name, args, d.Reason),
		RequestedSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}},
	}
}

// elicitsForms reports whether the client declared form elicitation
// (an elicitation capability naming neither mode means form, as in the
// revisions before modes existed).
func elicitsForms(req *sdk.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil
}
