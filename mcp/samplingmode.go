package mcp

// SamplingMode is a server's sampling setting (ServerConfig.Sampling):
// whether rein's model answers the server's sampling requests.
type SamplingMode string

// Sampling modes.
const (
	// SamplingAsk (the default) asks the user for each request, as for
	// elicitation; where nobody can answer (headless runs) it is refused.
	SamplingAsk SamplingMode = "ask"
	// SamplingAllow answers without asking. It is honoured only for
	// servers of the user's own configuration: a workspace's file (a
	// cloned repository) cannot make rein spend tokens unasked, so there
	// it means ask.
	SamplingAllow SamplingMode = "allow"
	// SamplingNever does not declare sampling to the server at all.
	SamplingNever SamplingMode = "never"
)

// samplingAllowed reports whether the server's requests run unasked.
func (c ServerConfig) samplingAllowed() bool {
	return c.Sampling == SamplingAllow && !c.Project
}

func validSamplingMode(m SamplingMode) bool {
	switch m {
	case SamplingAsk, SamplingAllow, SamplingNever:
		return true
	}
	return false
}
