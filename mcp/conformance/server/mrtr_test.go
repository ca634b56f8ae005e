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

// FuzzStateOpen feeds forged states to the verifier: it never panics, and
// accepts only what the signer produced for the payload it returns.
func FuzzStateOpen(f *testing.F) {
	s := newStateSigner()
	for _, seed := range []string{"", ".", "a.b", s.sign("1:"), s.sign("2:Ada") + "-TAMPERED", "====.====", "\x00.\xff"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, state string) {
		payload, err := s.open(state)
		if err == nil && s.sign(payload) != state {
			t.Fatalf("open accepted %q, which the signer did not make (payload %q)", state, payload)
		}
	})
}
