package anthropic_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
)

// bigStream builds a ~2 MB stream from a recorded one: its message_start
// and first block start, its text deltas repeated, then the recorded
// ending. The events are real API frames, including their odd padding.
func bigStream(b *testing.B) []byte {
	body := recordedStreams(b)["tool_streaming.yaml#1"]
	events := strings.SplitAfter(body, "\n\n")
	var head, deltas, tail []string
	for _, ev := range events {
		switch {
		case strings.Contains(ev, `"text_delta"`):
			deltas = append(deltas, ev)
		case len(deltas) == 0:
			head = append(head, ev)
		default:
			tail = append(tail, ev)
		}
	}
	var buf bytes.Buffer
	buf.WriteString(strings.Join(head, ""))
	for buf.Len() < 2<<20 {
		buf.WriteString(strings.Join(deltas, ""))
	}
	buf.WriteString(strings.Join(tail, ""))
	return buf.Bytes()
}

// BenchmarkStreamEvents measures SSE decoding plus the state machine on a
// recorded text stream: MB/s of wire bytes and allocations per stream.
func BenchmarkStreamEvents(b *testing.B) {
	data := bigStream(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for ev, err := range anthropic.StreamEvents(bytes.NewReader(data)) {
			if err != nil {
				b.Fatal(err)
			}
			if ev.Kind == model.EventTextDelta {
				n++
			}
		}
		if n == 0 {
			b.Fatal("no text")
		}
	}
}
