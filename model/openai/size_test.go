package openai_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/openai"
)

// hugeAnswer streams an answer of total content bytes in 1 KiB deltas of
// the given kind ("content", "reasoning_content" or tool-call
// "arguments"), generated as it is written so that the server holds no
// copy, and counts what it managed to send.
func hugeAnswer(kind string, total int, sent *atomic.Int64) modeltest.Step {
	return modeltest.Handler("huge "+kind, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		piece, _ := json.Marshal(strings.Repeat("x", 1024))
		write := func(s string) bool {
			n, err := io.WriteString(w, s)
			sent.Add(int64(n))
			return err == nil
		}
		if kind == "arguments" {
			write(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"write","arguments":"{\"content\":\""}}]}}]}` + "\n\n")
		}
		for i := 0; i < total/1024; i++ {
			var chunk string
			if kind == "arguments" {
				chunk = fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}}]}`+"\n\n", piece)
			} else {
				chunk = fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{%q:%s}}]}`+"\n\n", kind, piece)
			}
			if !write(chunk) {
				return
			}
		}
		write(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	}))
}

// peakHeap runs fn while sampling the live heap, and returns the highest
// sample above the heap before fn began, in MiB.
func peakHeap(fn func()) float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	fn()
	close(done)
	wg.Wait()
	return float64(peak-base) / (1 << 20)
}

// TestHugeAnswerIsCapped: a 20 MiB answer, as text, reasoning or one
// tool call's arguments, fails at the cap with an error naming the setting,
// and the provider's heap stays a small multiple of the cap.
func TestHugeAnswerIsCapped(t *testing.T) {
	const answer = 20 << 20
	for _, kind := range []string{"content", "reasoning_content", "arguments"} {
		for _, limit := range []int{1 << 20, model.DefaultMaxResponseBytes} {
			t.Run(fmt.Sprintf("%s/%s", kind, model.FormatBytes(limit)), func(t *testing.T) {
				var sent atomic.Int64
				srv := modeltest.NewServer(t, hugeAnswer(kind, answer, &sent))
				p := newProvider(t, srv.URL, func(c *openai.Config) { c.MaxResponseBytes = limit })
				var err error
				heap := peakHeap(func() { _, err = model.Collect(p.Stream(t.Context(), &model.Request{})) })
				t.Logf("peak heap +%.1f MiB for a %s cap; server sent %.1f MiB; %v", heap, model.FormatBytes(limit), float64(sent.Load())/(1<<20), err)
				if !errors.Is(err, model.ErrResponseTooLarge) {
					t.Fatalf("error %v, want ErrResponseTooLarge", err)
				}
				if want := "(" + model.FormatBytes(limit) + ")"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "max_response_bytes") {
					t.Errorf("error %q does not name the cap %s and its setting", err, want)
				}
				if capMiB := float64(limit) / (1 << 20); heap > 6*capMiB+8 {
					t.Errorf("peak heap +%.1f MiB for a %.0f MiB cap; want at most 6× the cap + 8 MiB", heap, capMiB)
				}
			})
		}
	}
}

// TestAnswerUnderTheCapIsWhole: an answer just under the cap is not cut,
// and costs a measured small multiple of its size.
func TestAnswerUnderTheCapIsWhole(t *testing.T) {
	const size = 3 << 20
	var sent atomic.Int64
	srv := modeltest.NewServer(t, hugeAnswer("content", size, &sent))
	p := newProvider(t, srv.URL, func(c *openai.Config) { c.MaxResponseBytes = 4 << 20 })
	var resp *model.Response
	var err error
	heap := peakHeap(func() { resp, err = model.Collect(p.Stream(t.Context(), &model.Request{})) })
	if err != nil {
		t.Fatal(err)
	}
	got := len(resp.Message.Parts[0].Text)
	t.Logf("a %.0f MiB answer: peak heap +%.1f MiB (%.1f× its size)", float64(got)/(1<<20), heap, heap*(1<<20)/float64(got))
	if got != size {
		t.Errorf("answer of %d bytes, want %d", got, size)
	}
	if heap > 6*float64(size)/(1<<20) {
		t.Errorf("peak heap +%.1f MiB for a 3 MiB answer; want under 6× its size", heap)
	}
}

// goTypeNames matches Go type and decoder names, which must never reach
// an error about what a server sent.
var goTypeNames = regexp.MustCompile(`Go (struct|value|type|int|string|\[\])|openai\.chunk|\*json\.|json: cannot|jsontext:`)

// TestGarbageChunksSayWhatWasWrong: garbage in a stream is described in
// words about the data, with a short escaped excerpt.
func TestGarbageChunksSayWhatWasWrong(t *testing.T) {
	tests := []struct{ data, want string }{
		{`{bad`, `stream chunk 1 is not valid JSON (invalid character 'b'`},
		{"\x00\x01\x1b[31mgarbage", `stream chunk 1 is not valid JSON (invalid character '\x00' at start of value at byte 0): "\x00\x01\x1b[31mgarbage"`},
		{`{"choices":[{"index":0,"delta":{"content":5}}]}`, `does not follow the Chat Completions format (field /choices/0/delta/content is a number, want a string)`},
		{`{"choices":"x"}`, `(field /choices is a string, want an array)`},
		{`[1,2]`, `(the data is an array, want an object)`},
		{`{"choices":[{"index":"0"}]}`, `(field /choices/0/index is a string, want an integer)`},
		{`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":"a"}]}}]}`, `(field /choices/0/delta/tool_calls/0/index is a string, want an integer)`},
		{`{"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("y", 500) + `"}}], "x":}`, `(1 bytes)`},
	}
	for _, tt := range tests {
		_, err := parse("data: " + tt.data + "\n\n")
		if !errors.Is(err, openai.ErrMalformedResponse) {
			t.Errorf("%.40q: error %v, want ErrMalformedResponse", tt.data, err)
			continue
		}
		msg := err.Error()
		if goTypeNames.MatchString(msg) {
			t.Errorf("%.40q: %q names Go types", tt.data, msg)
		}
		if tt.want == "(1 bytes)" {
			if len(msg) > 400 || !strings.Contains(msg, "bytes)") {
				t.Errorf("a long bad chunk is quoted whole or without its size: %q", msg)
			}
			continue
		}
		if want := strings.ReplaceAll(tt.want, `\x`, `\x`); !strings.Contains(msg, want) {
			t.Errorf("%.40q:\n got %q\nwant it to contain %q", tt.data, msg, want)
		}
		if strings.ContainsAny(msg, "\x00\x1b") {
			t.Errorf("%.40q: control bytes reach the message: %q", tt.data, msg)
		}
	}
}

// FuzzChunkErrorsNameNoGoTypes: whatever a chunk holds, a parse error
// describes the data, not the decoder.
func FuzzChunkErrorsNameNoGoTypes(f *testing.F) {
	for _, s := range []string{`{bad`, `{"choices":[{"index":0,"delta":{"content":5}}]}`, `[1]`, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":"a"}]}}]}`, `{"usage":{"prompt_tokens":"x"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		if strings.ContainsAny(data, "\r\n") {
			return // one event's data only
		}
		_, err := parse("data: " + data + "\n\n")
		if err != nil && goTypeNames.MatchString(err.Error()) {
			t.Fatalf("%q: %q names Go types", data, err)
		}
	})
}
