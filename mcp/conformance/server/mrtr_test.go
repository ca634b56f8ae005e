package main

import (
	"errors"
	"strings"
	"testing"
)

func TestStateSigner(t *testing.T) {
	s := newStateSigner()
	state := s.sign("2:Ada")
	if got, err := s.open(state); err != nil || got != "2:Ada" {
		t.Fatalf("open(sign(x)) = %q, %v", got, err)
	}
	other := newStateSigner()
	body, _, _ := strings.Cut(state, ".")
	forged := other.sign("2:Eve")
	_, forgedMAC, _ := strings.Cut(forged, ".")
	for _, bad := range []string{
		"", ".", "no-dot", state + "-TAMPERED", body + "." + forgedMAC, forged,
		"!!!." + strings.SplitN(state, ".", 2)[1],
	} {
		if got, err := s.open(bad); !errors.Is(err, errBadState) {
			t.Errorf("open(%q) = %q, %v; want errBadState", bad, got, err)
		}
	}
}
