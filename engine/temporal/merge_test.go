package temporal

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/model"
)

// TestMergeDeltasKeepsTheAnswer: merging a long stream's deltas keeps
// the text, the order of kinds and every non-delta event.
func TestMergeDeltasKeepsTheAnswer(t *testing.T) {
	var evs []model.Event
	var want strings.Builder
	for i := range 5000 {
		evs = append(evs, model.Event{Kind: model.EventTextDelta, Text: "ab"})
		want.WriteString("ab")
		if i == 2500 {
			evs = append(evs, model.Event{Kind: model.EventReasoningDelta, Text: "think"})
		}
	}
	evs = append(evs, model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn})
	got := mergeDeltas(evs)
	if len(got) >= maxModelEvents {
		t.Fatalf("%d events after merging", len(got))
	}
	var text strings.Builder
	reasoning := 0
	for _, ev := range got {
		switch ev.Kind {
		case model.EventTextDelta:
			text.WriteString(ev.Text)
			if len(ev.Text) > 4096+2 {
				t.Fatalf("a merged delta of %d bytes", len(ev.Text))
			}
		case model.EventReasoningDelta:
			reasoning++
		}
	}
	if text.String() != want.String() || reasoning != 1 || got[len(got)-1].Kind != model.EventStop {
		t.Fatalf("merged stream changed: %d text bytes (want %d), %d reasoning, last %v", text.Len(), want.Len(), reasoning, got[len(got)-1].Kind)
	}
}
