// Package netrules matches hosts against the [network] allow and deny
// rules. The policy decides network tools' calls with it, and web_fetch
// checks every redirect and every address it dials with the same rules,
// so the two can never disagree on what a rule names.
//
// A rule is one of:
//
//   - a host name, "docs.example.com", matching that host only;
//   - a wildcard, "*.github.com", matching every name below github.com at
//     any depth ("api.github.com", "a.b.github.com") but not github.com;
//   - an IP address, "127.0.0.1" or "::1", matching that address;
//   - a CIDR prefix, "10.0.0.0/8", matching the addresses inside it.
//
// Names are compared case-insensitively, without a trailing dot; ports are
// not part of a rule. A bare "*" is refused: allowing every host is what
// the full preset does.
package netrules

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// ErrInvalidRule reports a pattern that is none of the accepted forms.
var ErrInvalidRule = errors.New("invalid network rule")

// maxRuleLen bounds a pattern (a DNS name is at most 253 characters).
const maxRuleLen = 260

// Rules are the merged [network] rules: Deny from every layer, Allow from
// the layers that may widen (the user's).
type Rules struct {
	Allow []string
	Deny  []string
}

// Verdict is what the rules say about one host.
type Verdict int

// Verdicts.
const (
	// None: no rule names the host.
	None Verdict = iota
	// Allowed: an allow rule names it and no deny rule does.
	Allowed
	// Denied: a deny rule names it (deny wins over allow).
	Denied
)

// Validate checks every pattern.
func (r Rules) Validate() error {
	for _, list := range [][]string{r.Allow, r.Deny} {
		for _, p := range list {
			if err := Validate(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Decide returns the verdict for host (a name or an IP literal, without
// port or brackets) and the rule that decided it.
func (r Rules) Decide(host string) (Verdict, string) {
	for _, p := range r.Deny {
		if Match(p, host) {
			return Denied, p
		}
	}
	for _, p := range r.Allow {
		if Match(p, host) {
			return Allowed, p
		}
	}
	return None, ""
}

// Validate reports whether pattern is an accepted rule.
func Validate(pattern string) error {
	if len(pattern) > maxRuleLen {
		return fmt.Errorf("%w: %.40q… is longer than %d characters", ErrInvalidRule, pattern, maxRuleLen)
	}
	if _, ok := parsePrefix(pattern); ok {
		return nil
	}
	name := normalize(pattern)
	name = strings.TrimPrefix(name, "*.")
	if name == "" || name == "*" {
		return fmt.Errorf("%w: %q: name a host (\"docs.example.com\"), a wildcard below a domain (\"*.github.com\"), an IP address or a CIDR prefix", ErrInvalidRule, pattern)
	}
	if !validName(name) {
		return fmt.Errorf("%w: %q is not a host name, a wildcard such as \"*.github.com\", an IP address or a CIDR prefix", ErrInvalidRule, pattern)
	}
	return nil
}

// Match reports whether pattern names host. An invalid pattern matches
// nothing.
func Match(pattern, host string) bool {
	if len(pattern) > maxRuleLen || len(host) > maxRuleLen {
		return false
	}
	h := normalize(host)
	if pfx, ok := parsePrefix(pattern); ok {
		addr, err := netip.ParseAddr(h)
		if err != nil {
			return false
		}
		return pfx.Contains(addr.Unmap())
	}
	p := normalize(pattern)
	if p == "" || !validName(strings.TrimPrefix(p, "*.")) {
		return false
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return false // a name rule never names an address
	}
	if rest, ok := strings.CutPrefix(p, "*."); ok {
		return strings.HasSuffix(h, "."+rest) && len(h) > len(rest)+1
	}
	return h == p
}

// MatchAddr reports whether pattern names the address a (an IP or CIDR
// rule containing it).
func MatchAddr(pattern string, a netip.Addr) bool {
	pfx, ok := parsePrefix(pattern)
	return ok && pfx.Contains(a.Unmap())
}

// parsePrefix parses an IP or CIDR rule as a prefix (an address is a
// full-length prefix).
func parsePrefix(pattern string) (netip.Prefix, bool) {
	s := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(pattern), "["), "]")
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, false
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		return p.Masked(), true
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Prefix{}, false
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), true
}

// normalize lower-cases a name and drops a trailing dot and IPv6
// brackets.
func normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	return strings.TrimSuffix(s, ".")
}

// validName reports a DNS name of letters, digits, hyphens and
// underscores in dot-separated labels of 1 to 63 characters.
func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
