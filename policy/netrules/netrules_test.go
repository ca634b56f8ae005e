package netrules

import (
	"net/netip"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, host string
		want          bool
	}{
		{"docs.example.com", "docs.example.com", true},
		{"docs.example.com", "DOCS.Example.com.", true},
		{"docs.example.com", "example.com", false},
		{"docs.example.com", "evil-docs.example.com", false},
		{"docs.example.com", "docs.example.com.evil.net", false},
		{"*.github.com", "api.github.com", true},
		{"*.github.com", "a.b.github.com", true},
		{"*.github.com", "github.com", false},
		{"*.github.com", "evilgithub.com", false},
		{"*.github.com", ".github.com", false},
		{"127.0.0.1", "127.0.0.1", true},
		{"127.0.0.1", "127.0.0.2", false},
		{"127.0.0.1", "localhost", false},
		{"localhost", "127.0.0.1", false},
		{"10.0.0.0/8", "10.1.2.3", true},
		{"10.0.0.0/8", "11.0.0.1", false},
		{"::1", "[::1]", true},
		{"::1", "::1", true},
		{"127.0.0.1", "::ffff:127.0.0.1", true},
		{"fd00::/8", "fd12::1", true},
		{"*", "example.com", false},
		{"", "", false},
		{"a..b", "a..b", false},
	} {
		if got := Match(tc.pattern, tc.host); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.host, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, ok := range []string{"docs.example.com", "*.github.com", "127.0.0.1", "::1", "10.0.0.0/8", "localhost", "my_host.internal"} {
		if err := Validate(ok); err != nil {
			t.Errorf("Validate(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "*", "*.", "https://example.com", "example.com:443", "a b", "ex*mple.com", "10.0.0.0/33", "-a.com", strings.Repeat("a", 300)} {
		if err := Validate(bad); err == nil {
			t.Errorf("Validate(%q) accepted it", bad)
		}
	}
}

// Deny wins over allow, whatever the order.
func TestDecideDenyWins(t *testing.T) {
	r := Rules{Allow: []string{"*.example.com"}, Deny: []string{"secret.example.com"}}
	if v, p := r.Decide("secret.example.com"); v != Denied || p != "secret.example.com" {
		t.Errorf("Decide = %v %q, want Denied", v, p)
	}
	if v, _ := r.Decide("docs.example.com"); v != Allowed {
		t.Errorf("Decide(docs) = %v, want Allowed", v)
	}
	if v, _ := r.Decide("other.org"); v != None {
		t.Errorf("Decide(other) = %v, want None", v)
	}
}

// FuzzMatch: Match never panics, an invalid pattern matches nothing, a
// wildcard never matches its apex nor a host outside its domain, and a
// name rule never names an IP address.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{{"*.github.com", "api.github.com"}, {"127.0.0.1", "127.0.0.1"}, {"10.0.0.0/8", "10.0.0.1"}, {"::1", "[::1]"}, {"a.b", "A.B."}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, host string) {
		m := Match(pattern, host)
		if !m {
			return
		}
		if Validate(pattern) != nil {
			t.Fatalf("invalid pattern %q matched %q", pattern, host)
		}
		h := normalize(host)
		if _, ok := parsePrefix(pattern); ok {
			if _, err := netip.ParseAddr(h); err != nil {
				t.Fatalf("IP rule %q matched a name %q", pattern, host)
			}
			return
		}
		if _, err := netip.ParseAddr(h); err == nil {
			t.Fatalf("name rule %q matched an address %q", pattern, host)
		}
		p := normalize(pattern)
		if rest, ok := strings.CutPrefix(p, "*."); ok {
			if h == rest || !strings.HasSuffix(h, "."+rest) {
				t.Fatalf("wildcard %q matched %q", pattern, host)
			}
		} else if h != p {
			t.Fatalf("name %q matched %q", pattern, host)
		}
	})
}
