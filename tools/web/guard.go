package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/reinharness/rein/policy/netrules"
)

// ErrBlockedAddress reports a connection refused because of the address
// it would reach.
var ErrBlockedAddress = errors.New("web_fetch refuses the address")

// specialPrefixes are the ranges web_fetch does not reach unless a rule
// names them: besides loopback, private, link-local (which holds the
// cloud metadata address 169.254.169.254), unspecified and multicast
// addresses (netip's predicates), carrier-grade NAT, the IPv4 and IPv6
// documentation and benchmarking ranges, NAT64 and 6to4 (which embed an
// IPv4 address that may be private), and the reserved 240/4.
var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("100::/64"),
}

// Special reports whether a is an address web_fetch refuses by default:
// one on this machine, a private network, a link-local or metadata
// address, or a range that is not the public internet.
func Special(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range specialPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// guard decides each connection by the address it actually reaches, after
// DNS resolution, so neither a name that resolves to a private address
// nor one that changes its answer between checks (DNS rebinding) gets
// through.
type guard struct {
	rules netrules.Rules
}

// dialContext is the transport's DialContext: it checks the host name
// against the deny rules, then dials with a Control hook that checks the
// resolved address of every connection attempt.
func (g *guard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if v, rule := g.rules.Decide(host); v == netrules.Denied {
		return nil, fmt.Errorf("%w: %s matches the [network] deny rule %q", ErrBlockedAddress, host, rule)
	}
	namedHost := false
	if v, _ := g.rules.Decide(host); v == netrules.Allowed {
		namedHost = true
	}
	d := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			return g.check(host, address, namedHost)
		},
	}
	return d.DialContext(ctx, network, addr)
}

// check decides one resolved address: a deny rule naming it refuses it;
// a special address needs an allow rule naming it or the host name.
func (g *guard) check(host, address string, namedHost bool) error {
	ipText, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrBlockedAddress, address)
	}
	a, err := netip.ParseAddr(ipText)
	if err != nil {
		return fmt.Errorf("%w: %q is not an IP address", ErrBlockedAddress, ipText)
	}
	a = a.Unmap()
	for _, p := range g.rules.Deny {
		if netrules.MatchAddr(p, a) {
			return fmt.Errorf("%w: %s (%s) matches the [network] deny rule %q", ErrBlockedAddress, host, a, p)
		}
	}
	if !Special(a) || namedHost {
		return nil
	}
	for _, p := range g.rules.Allow {
		if netrules.MatchAddr(p, a) {
			return nil
		}
	}
	return fmt.Errorf("%w: %s resolves to %s, a loopback, private, link-local or otherwise non-public address; "+
		"add it to [network] allow to fetch from it", ErrBlockedAddress, host, a)
}
