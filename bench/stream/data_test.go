package stream

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

const fixtures = "../../model/modeltest/testdata/fantasy/"

func body(tb testing.TB, rel string, id int) string {
	tb.Helper()
	c, err := modeltest.LoadCassette(fixtures + rel)
	if err != nil {
		tb.Fatal(err)
	}
	for _, in := range c.Interactions {
		if in.ID == id {
			return in.Response.Body
		}
	}
	tb.Fatalf("%s has no interaction %d", rel, id)
	return ""
}

// openaiStream is the ~2 MB OpenAI stream of rein's BenchmarkStreamParse:
// the recorded content and reasoning chunks repeated, then the recorded
// tool-call, finish, usage and [DONE] chunks.
func openaiStream(tb testing.TB) []byte {
	const rel = "TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool_streaming.yaml"
	tool, answer := body(tb, rel, 0), body(tb, rel, 1)
	// The chunks come from two responses; openai-go's accumulator drops
	// chunks whose completion id differs from the first one's, so all
	// carry the tool response's id (same length: the byte count is
	// rein's benchmark's).
	answer = completionID.ReplaceAllString(answer, completionID.FindString(tool))
	var middle, tail []string
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

var completionID = regexp.MustCompile(`"id":"chatcmpl-[^"]*"`)

// anthropicStream is the ~2 MB Anthropic stream of rein's
// BenchmarkStreamEvents: the recorded head, text deltas repeated, then
// the recorded ending.
func anthropicStream(tb testing.TB) []byte {
	events := strings.SplitAfter(body(tb, "TestAnthropicCommon/claude-sonnet-4/tool_streaming.yaml", 1), "\n\n")
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

// chunks counts the SSE events of a stream.
func chunks(data []byte) int {
	n := 0
	for _, ev := range strings.Split(string(data), "\n\n") {
		if strings.Contains(ev, "data:") {
			n++
		}
	}
	return n
}

// replay is an http.RoundTripper answering every request with the same
// event stream from memory, and counting the bytes its clients read.
type replay struct {
	data []byte
	read int64 // bytes read by the client from the last response
}

func (r *replay) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	r.read = 0
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"text/event-stream"}},
		Body:          &counting{r: bytes.NewReader(r.data), n: &r.read},
		ContentLength: -1,
		Request:       req,
	}, nil
}

type counting struct {
	r *bytes.Reader
	n *int64
}

func (c *counting) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	*c.n += int64(k)
	return k, err
}

func (c *counting) Close() error { return nil }
