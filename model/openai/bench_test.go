package openai_test

import (
	"bytes"
	"io"
	"iter"
	"runtime"
	"strings"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/openai"
)

// benchStream builds a ~2 MB stream from a recording: the recorded
// reasoning, content and tool-argument chunks repeated, then the recorded
// finish, usage and [DONE] chunks.
func benchStream(b *testing.B) []byte {
	tool := toolStream(b)
	answer := loadCassette(b, "fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool_streaming.yaml").Interactions[1].Response.Body
	var middle []string
	for _, ev := range strings.SplitAfter(answer, "\n\n") {
		if strings.Contains(ev, `"content":"`) {
			middle = append(middle, ev)
		}
	}
	for _, ev := range strings.SplitAfter(tool, "\n\n") {
		if strings.Contains(ev, `"reasoning_content"`) {
			middle = append(middle, ev)
		}
	}
	var tail []string
	for _, ev := range strings.SplitAfter(tool, "\n\n") {
		if strings.Contains(ev, `"tool_calls"`) || strings.Contains(ev, "finish_reason\":\"tool_calls") ||
			strings.Contains(ev, `"usage"`) || strings.Contains(ev, "[DONE]") {
			tail = append(tail, ev)
		}
	}
	var buf bytes.Buffer
	for buf.Len() < 2<<20 {
		for _, ev := range middle {
			buf.WriteString(ev)
		}
	}
	for _, ev := range tail {
		buf.WriteString(ev)
	}
	return buf.Bytes()
}

// BenchmarkStreamParse measures the stream parser alone (SSE decoding,
// chunk decoding, event assembly) on a recorded stream.
func BenchmarkStreamParse(b *testing.B) { benchParse(b, openai.ParseStream) }

// BenchmarkStreamParseOracle measures the parser as it was before the fast
// chunk path, on the same bytes, so that before and after are measured side
// by side on a noisy machine.
func BenchmarkStreamParseOracle(b *testing.B) { benchParse(b, openai.OracleParseStream) }

func benchParse(b *testing.B, parse func(io.Reader) iter.Seq2[model.Event, error]) {
	data := benchStream(b)
	events, err := collectEvents(parse(bytes.NewReader(data)))
	if err != nil {
		b.Fatal(err)
	}
	chunks := bytes.Count(data, []byte("\ndata:")) + 1
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		n := 0
		for _, err := range parse(bytes.NewReader(data)) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != len(events) {
			b.Fatalf("%d events, want %d", n, len(events))
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(len(events)), "events/op")
	b.ReportMetric(float64(chunks), "chunks/op")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(chunks), "allocs/chunk")
}
