package cli

import (
	"testing"
	"time"
)

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "90m": 90 * time.Minute, "1h30m": 90 * time.Minute} {
		if got, err := parseTTL(in); err != nil || got != want {
			t.Errorf("parseTTL(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "-1d", "7x", "30s", "400d", "1e9d", "7 d", "99999999999999999999d"} {
		if _, err := parseTTL(in); err == nil {
			t.Errorf("parseTTL(%q) accepted", in)
		}
	}
}
