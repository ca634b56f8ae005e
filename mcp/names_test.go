package mcp

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/tool"
)

func TestExposedNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	got := exposedNames("fs", []string{"read_file", "read file", "read.file", "ünïcode", long, "a__b"})
	want := map[string]string{
		"read_file": "fs__read_file",
		"a__b":      "fs__a__b",
		"read file": hashedName("fs", "read file", 8),
		"read.file": hashedName("fs", "read.file", 8),
		"ünïcode":   hashedName("fs", "ünïcode", 8),
		long:        hashedName("fs", long, 8),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	// "read file" and "read.file" sanitise alike but their hashes differ.
	if got["read file"] == got["read.file"] {
		t.Errorf("collision not resolved: %q", got["read file"])
	}
	if !strings.HasPrefix(got["read file"], "fs__read_file_") {
		t.Errorf("hashed name %q does not keep the sanitised base", got["read file"])
	}
	for r, n := range got {
		if err := tool.ValidateName(n); err != nil {
			t.Errorf("%q → %q: %v", r, n, err)
		}
	}
}

func TestExposedNamesLongServer(t *testing.T) {
	server := strings.Repeat("s", MaxServerNameLen)
	got := exposedNames(server, []string{strings.Repeat("t", 64)})
	for _, n := range got {
		if err := tool.ValidateName(n); err != nil || !strings.HasPrefix(n, server+"__") {
			t.Errorf("name %q: %v; want a valid name with the server prefix", n, err)
		}
	}
}

// TestExposedNamesProperties checks, over random tool sets, that names are
// valid, unique, prefixed by their server, and independent of order.
func TestExposedNamesProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abAB09_-. /:é__")
	randName := func() string {
		n := 1 + r.IntN(80)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for iter := range 300 {
		servers := []string{"a", "a-b", "srv_1", strings.Repeat("z", 32)}
		all := map[string]string{}
		for _, s := range servers {
			var tools []string
			for range r.IntN(30) {
				tools = append(tools, randName())
			}
			names := exposedNames(s, tools)
			shuffled := append([]string(nil), tools...)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if diff := cmp.Diff(names, exposedNames(s, shuffled)); diff != "" {
				t.Fatalf("iteration %d: order changed the names (-first +shuffled):\n%s", iter, diff)
			}
			for remote, n := range names {
				if err := tool.ValidateName(n); err != nil {
					t.Fatalf("iteration %d: %q → invalid %q: %v", iter, remote, n, err)
				}
				if !strings.HasPrefix(n, s+nameSep) {
					t.Fatalf("iteration %d: %q lost its server prefix %q", iter, n, s)
				}
				if prev, dup := all[n]; dup {
					t.Fatalf("iteration %d: %q and %s/%q both named %q", iter, prev, s, remote, n)
				}
				all[n] = s + "/" + remote
			}
		}
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{"": "", "ok_-09AZ": "ok_-09AZ", "a b.c/d": "a_b_c_d", "é": "__"} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
