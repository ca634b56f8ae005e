package policy

import (
	"fmt"
	"strings"
)

// Sampling decisions. An MCP server may ask rein's model for a
// completion (sampling/createMessage, with tools since SEP-1577). That
// spends the user's tokens and puts the server's text before the model,
// so it is decided like a tool call: deny by default, rules, the
// server's own setting as one more rule, and a hard denial nothing
// lifts. Rules are [[policy.tools]] entries on the name SamplingName
// gives, such as
//
//	[[policy.tools]]
//	name = "mcp_sampling:github"   # or "mcp_sampling:*"
//	action = "allow"
//
// Presets do not decide sampling: it touches no file and runs nothing,
// and what it costs is the user's to allow.

// samplingPrefix begins every sampling decision's name.
const samplingPrefix = "mcp_sampling:"

// SamplingName is the name a server's sampling requests are decided and
// ruled under.
func SamplingName(server string) string { return samplingPrefix + server }

// Sampling is a server's sampling request, as the policy sees it.
type Sampling struct {
	// Server is the server's configured name.
	Server string
	// Setting is the server's sampling setting: "ask" or "" (no opinion),
	// "allow" (an allow rule for this server) or "never" (a hard denial).
	Setting string
	// Project marks a server from a workspace's configuration (a cloned
	// repository's): its own "allow" is not honoured, and only a rule
	// naming it exactly allows it.
	Project bool
}

// DecideSampling decides a server's sampling request: the strictest of
// the server's setting and the most specific rule for its SamplingName,
// tightened by the project's ask and deny rules; with neither setting
// nor rule, it asks (and where nobody can answer, the ask is a refusal).
// "never" is a hard denial. A nil engine has no rules.
func (e *Engine) DecideSampling(s Sampling) Decision {
	name := SamplingName(s.Server)
	if strings.EqualFold(s.Setting, "never") {
		return Decision{Action: Deny, Hard: true, Rule: "setting:sampling=never",
			Reason: name + " is denied: the server's sampling setting is \"never\""}
	}
	v := verdict{action: Ask, rule: "default:sampling", reason: "no rule allows the server's sampling requests; rein asks"}
	var setting verdict // no opinion unless the server says allow
	if strings.EqualFold(s.Setting, "allow") {
		if s.Project {
			v.reason = `a workspace's server's own sampling = "allow" is not honoured; rein asks`
		} else {
			setting = verdict{action: Allow, rule: "setting:sampling=allow", reason: `the server's sampling setting is "allow"`, explicit: true}
		}
	}
	var r, tight *rule
	if e != nil {
		r = bestTool(e.pool, name)
		tight = strictest(e.tighten, toolRule, func(r *rule) bool { return r.matchesTool(name) })
	}
	switch {
	case r != nil && r.action == Allow && s.Project && hasGlob(r.name):
		v.reason = fmt.Sprintf("rule %q names servers by a pattern, which does not allow a workspace's server; rein asks", r.name)
		setting = verdict{}
	case r != nil:
		v = r.verdict(fmt.Sprintf("%s rule for %s", r.layer, name))
	}
	if setting.rule != "" {
		if v.explicit {
			v = stricter(v, setting)
		} else {
			v = setting
		}
	}
	if tight != nil {
		v = stricter(v, tight.verdict(fmt.Sprintf("the project's rule for %s", name)))
	}
	return decision(name, v)
}
