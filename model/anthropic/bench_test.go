package anthropic_test

import (
	"bytes"
	"io"
	"iter"
	"runtime"
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
// recorded text stream: MB/s of wire bytes, allocations per stream and per
// chunk (SSE event).
func BenchmarkStreamEvents(b *testing.B) { benchEvents(b, anthropic.StreamEvents) }

// BenchmarkStreamEventsOracle measures the decoder as it was before the
// fast event path, on the same bytes, so that before and after are
// measured side by side on a noisy machine.
func BenchmarkStreamEventsOracle(b *testing.B) { benchEvents(b, anthropic.OracleStreamEvents) }

func benchEvents(b *testing.B, decode func(io.Reader) iter.Seq2[model.Event, error]) {
	data := bigStream(b)
	chunks := bytes.Count(data, []byte("\ndata:"))
	if bytes.HasPrefix(data, []byte("data:")) {
		chunks++
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		n := 0
		for ev, err := range decode(bytes.NewReader(data)) {
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
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(chunks), "chunks/op")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(chunks), "allocs/chunk")
}
