package hooks

import (
	"slices"
	"testing"

	"github.com/reinharness/rein/agent"
)

// TestEventsIsACopy: an importer changing the returned list cannot make
// configuration accept or order events differently.
func TestEventsIsACopy(t *testing.T) {
	got := Events()
	if len(got) == 0 || got[0] != agent.SteerSessionStart {
		t.Fatalf("Events() = %q", got)
	}
	got[0] = "Bogus"
	if slices.Contains(Events(), "Bogus") || knownEvent("Bogus") || !knownEvent(string(agent.SteerSessionStart)) {
		t.Errorf("writing to Events()'s result changed the events rein accepts")
	}
}
