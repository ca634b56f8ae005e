package temporal

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/model"
)

// TestFitHistory: a continuation's history shrinks under the limit by
// dropping the oldest results, keeping every message, the prompt and the
// call/result pairing; the input is not modified.
func TestFitHistory(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	msgs := []model.Message{{Role: model.RoleUser, Parts: []model.Part{model.TextPart("the task")}}}
	for i := range 40 {
		id := "c" + string(rune('A'+i))
		msgs = append(msgs,
			model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(model.ToolCall{ID: id, Name: "read_file"})}},
			model.ToolResults(model.ToolResult{CallID: id, Name: "read_file", Content: big}))
	}
	before := payloadSize(msgs)
	got := fitHistory(msgs, maxCarried)
	if size := payloadSize(got); size > maxCarried || size >= before {
		t.Fatalf("fitted size %d (was %d, limit %d)", size, before, maxCarried)
	}
	if len(got) != len(msgs) || got[0].Parts[0].Text != "the task" {
		t.Fatal("messages or the prompt were lost")
	}
	if last := got[len(got)-1].Parts[0].ToolResult; last.Content != big || last.CallID != "c"+string(rune('A'+39)) {
		t.Error("the newest result was dropped")
	}
	if first := got[2].Parts[0].ToolResult; first.Content != droppedResult || first.CallID != "cA" {
		t.Errorf("the oldest result was kept: %.40q", first.Content)
	}
	if msgs[2].Parts[0].ToolResult.Content != big {
		t.Error("fitHistory modified its input")
	}
	if small := msgs[:3]; payloadSize(fitHistory(small, maxCarried)) != payloadSize(small) {
		t.Error("a small history changed")
	}
}
