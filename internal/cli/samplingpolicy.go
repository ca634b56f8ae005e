package cli

import (
	"fmt"
	"io"

	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/policy"
)

// Sampling requests of MCP servers are decided by rein's policy
// (policy.Engine.DecideSampling), with the server's sampling setting as
// one input: "never" is a hard denial, "allow" an allow rule for the
// user's own servers, and [[policy.tools]] rules on
// "mcp_sampling:SERVER" decide as well. An allowed request runs, with a
// line saying so; a denied one is refused, with a line saying why; one
// that asks goes to the user in chat (the elicitation dialog's path) and
// is refused where nobody can answer (rein run, rein acp).

// decide is the policy's decision on a sampling request. A sampler
// without an engine (tests) decides by the setting alone.
func (s *sampler) decide(req *mcp.SamplingRequest) policy.Decision {
	return s.policy.DecideSampling(policy.Sampling{Server: req.Server, Setting: string(req.Setting), Project: req.Project})
}

// noteSamplingDecision says, in one line, that a server's sampling
// request runs unasked or is refused, so that neither the spending nor
// the refusal is silent. An ask needs no line: the question is one.
func noteSamplingDecision(out io.Writer, req *mcp.SamplingRequest, s *sampler, d policy.Decision) {
	switch d.Action {
	case policy.Allow:
		why := "allowed by " + d.Rule
		if d.Rule == "setting:sampling=allow" {
			why = `sampling = "allow"`
		}
		tools := ""
		if len(req.Tools) > 0 && req.ToolChoice != "none" {
			tools = ", " + plural(len(req.Tools), "tool") + " offered"
		}
		fmt.Fprintf(out, "\nMCP server %s: rein's model answers its sampling request (%s, at most %d tokens%s)\n",
			termText(req.Server, 60), termText(why, 120), s.tokens(req.MaxTokens), tools)
	case policy.Deny:
		fmt.Fprintf(out, "\nMCP server %s: its sampling request is refused: %s\n", termText(req.Server, 60), termText(d.Reason, 300))
	}
}
