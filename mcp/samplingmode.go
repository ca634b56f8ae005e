package mcp

// SamplingMode is a server's sampling setting (ServerConfig.Sampling):
// whether rein's model answers the server's sampling requests. It is an
// input of the policy's decision (SamplingRequest.Setting), not the
// decision itself: a [[policy.tools]] rule on "mcp_sampling:NAME" may
// allow, ask or deny as well.
type SamplingMode string

// Sampling modes.
const (
	// SamplingAsk (the default) has no opinion: unless a policy rule
	// decides, the user is asked for each request, as for elicitation,
	// and where nobody can answer (headless runs) it is refused.
	SamplingAsk SamplingMode = "ask"
	// SamplingAllow answers without asking (an allow rule for the
	// server, which a stricter policy rule overrides). It is honoured only for
	// servers of the user's own configuration: a workspace's file (a
	// cloned repository) cannot make rein spend tokens unasked, so there
	// it means ask.
	SamplingAllow SamplingMode = "allow"
	// SamplingNever does not declare sampling to the server at all, and
	// is a hard denial of any request that comes anyway.
	SamplingNever SamplingMode = "never"
)

func validSamplingMode(m SamplingMode) bool {
	switch m {
	case SamplingAsk, SamplingAllow, SamplingNever:
		return true
	}
	return false
}
