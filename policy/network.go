package policy

import (
	"fmt"
	"net/url"

	"github.com/reinharness/rein/policy/internal/wspath"
	"github.com/reinharness/rein/policy/netrules"
	"github.com/reinharness/rein/tool"
)

// networkVerdict applies the [network] host rules to a call of a tool
// that names its URL argument. A deny rule naming the host denies (no
// tool rule or approval lifts it). An allow rule lifts the question the
// editor preset puts to a network tool, and only that: never the
// read-only preset's denial, an explicit tool rule, or a verdict
// something else (paths, arguments) tightened. A URL rein cannot parse
// gets no lift; the tool itself refuses it.
func (e *Engine) networkVerdict(spec tool.Spec, args callArgs, base, v verdict, tr *tracer) verdict {
	urls, bad := args.strings(spec.Effects.URLArg)
	if bad || len(urls) == 0 {
		return v
	}
	lift := true
	var allowRule string
	for _, raw := range urls {
		host := hostOf(raw)
		if host == "" {
			lift = false
			continue
		}
		switch verdictOf, rule := e.network.Decide(host); verdictOf {
		case netrules.Denied:
			d := verdict{action: Deny, rule: "network:deny " + rule, explicit: true,
				reason: fmt.Sprintf("the host %s matches the [network] deny rule %q", wspath.Quote(host), rule)}
			tr.add("network", d.reason, Deny, d.rule)
			return stricter(v, d)
		case netrules.Allowed:
			allowRule = rule
		default:
			lift = false
		}
	}
	liftable := lift && allowRule != "" && !base.explicit && v.rule == base.rule && v.action == Ask &&
		e.preset == PresetEditor && !spec.Effects.Exec && !spec.Effects.External
	if !liftable {
		return v
	}
	a := verdict{action: Allow, rule: "network:allow " + allowRule,
		reason: fmt.Sprintf("the [network] allow rule %q names the host", allowRule)}
	tr.add("network", a.reason, Allow, a.rule)
	return a
}

// hostOf returns the host of an http(s) URL, or "" when raw is not one.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.Hostname()
}
