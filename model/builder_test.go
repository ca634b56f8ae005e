package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuilderLongTextIsLinear: a long answer streamed in small deltas is
// assembled without copying the text per delta (which made a 2 MB answer
// allocate gigabytes), and responses taken mid-stream keep their text.
func TestBuilderLongTextIsLinear(t *testing.T) {
	const deltas, size = 20000, 100
	piece := strings.Repeat("x", size)
	var mid *Response
	allocs := testing.AllocsPerRun(1, func() {
		var b Builder
		b.Add(Event{Kind: EventReasoningDelta, Text: "think"})
		b.Add(Event{Kind: EventReasoningDelta, Text: "ing"})
		for i := range deltas {
			b.Add(Event{Kind: EventTextDelta, Text: piece})
			if i == deltas/2 {
				mid = b.Response()
			}
		}
		b.Add(Event{Kind: EventToolCall, ToolCall: &ToolCall{ID: "c", Name: "n"}})
		b.Add(Event{Kind: EventTextDelta, Text: "tail"})
		r := b.Response()
		if got := r.Message.Parts[1].Text; len(got) != deltas*size {
			t.Fatalf("text length %d, want %d", len(got), deltas*size)
		}
		if r.Message.Parts[0].Text != "thinking" || r.Message.Parts[3].Text != "tail" {
			t.Fatalf("parts = %+v", r.Message.Parts)
		}
	})
	if allocs > 200 {
		t.Errorf("%v allocations for %d deltas; the text is being copied per delta", allocs, deltas)
	}
	if got := len(mid.Message.Parts[1].Text); got != (deltas/2+1)*size {
		t.Errorf("a mid-stream response changed: %d bytes, want %d", got, (deltas/2+1)*size)
	}
}

func BenchmarkBuilderText(b *testing.B) {
	piece := strings.Repeat("x", 64)
	b.ReportAllocs()
	for b.Loop() {
		var bl Builder
		for range 30000 {
			bl.Add(Event{Kind: EventTextDelta, Text: piece})
		}
		_ = bl.Response()
	}
}

// Take gives what Response gives and leaves the Builder empty for the
// next stream.
func TestBuilderTake(t *testing.T) {
	var b Builder
	events := []Event{
		{Kind: EventTextDelta, Text: "a"},
		{Kind: EventTextDelta, Text: "b"},
		{Kind: EventToolCall, ToolCall: &ToolCall{ID: "c1", Name: "t", Args: []byte(`{}`)}},
		{Kind: EventStop, StopReason: StopToolUse},
	}
	for _, ev := range events {
		b.Add(ev)
	}
	want := b.Response()
	got := b.Take()
	if got.StopReason != want.StopReason || len(got.Message.Parts) != 2 ||
		got.Message.Parts[0].Text != "ab" || got.Message.Parts[1].ToolCall.ID != "c1" {
		t.Fatalf("Take = %+v; Response gave %+v", got, want)
	}
	if b.Stopped() || len(b.Response().Message.Parts) != 0 {
		t.Fatal("the Builder is not empty after Take")
	}
	b.Add(Event{Kind: EventTextDelta, Text: "next"})
	if got.Message.Parts[0].Text != "ab" {
		t.Fatal("the next stream changed the taken response")
	}
}

// TestBuilderToolCallsAreCopies: every tool-call part holds its own copy
// of the provider's ToolCall, in order, whether it is the answer's only
// part (one allocation for part and copy) or one of several.
func TestBuilderToolCallsAreCopies(t *testing.T) {
	for _, lead := range [][]Event{nil, {{Kind: EventTextDelta, Text: "let me look"}}} {
		var b Builder
		for _, ev := range lead {
			b.Add(ev)
		}
		shared := &ToolCall{ID: "c1", Name: "a", Args: []byte(`{"n":1}`)}
		b.Add(Event{Kind: EventToolCall, ToolCall: shared})
		shared.ID, shared.Name = "c2", "b" // a provider reusing its value
		b.Add(Event{Kind: EventToolCall, ToolCall: shared})
		got := b.Take().Message
		var ids []string
		for _, p := range got.Parts[len(lead):] {
			if p.Kind != PartToolCall || p.ToolCall == nil || p.ToolCall == shared {
				t.Fatalf("part %+v is not a tool call of its own", p)
			}
			ids = append(ids, p.ToolCall.ID+"/"+p.ToolCall.Name)
		}
		if diff := cmp.Diff([]string{"c1/a", "c2/b"}, ids); diff != "" {
			t.Errorf("after %d leading parts, calls (-want +got):\n%s", len(lead), diff)
		}
	}
	c := &ToolCall{ID: "c1", Name: "a"}
	allocs := testing.AllocsPerRun(100, func() {
		var b Builder
		b.Add(Event{Kind: EventToolCall, ToolCall: c})
		_ = b.Take()
	})
	if allocs != 1 {
		t.Errorf("a lone tool call took %.0f allocations; want 1", allocs)
	}
}
