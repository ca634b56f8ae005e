package openai_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/openai"
)

// sse joins data payloads into an event stream ending in [DONE].
func sse(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func parse(body string) ([]model.Event, error) {
	return collectEvents(openai.ParseStream(strings.NewReader(body)))
}

func startEv(id, name string) model.Event {
	return model.Event{Kind: model.EventToolCallStart, ToolCall: &model.ToolCall{ID: id, Name: name}}
}

func toolCallEv(id, name, args string) model.Event {
	return model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}}
}

func stopEv(r model.StopReason) model.Event { return model.Event{Kind: model.EventStop, StopReason: r} }

func TestParseStreamEvents(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []model.Event
	}{
		{
			name: "reasoning, text, tool call, usage in order",
			body: sse(
				`{"id":"r1","choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}`,
				`{"id":"r1","choices":[{"index":0,"delta":{"reasoning":"think"}}]}`,
				`{"id":"r1","choices":[{"index":0,"delta":{"content":"Hi"}}]}`,
				`{"id":"r1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]}}]}`,
				`{"id":"r1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}`,
				`{"id":"r1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":3},"completion_tokens_details":{"reasoning_tokens":2}}}`),
			want: []model.Event{
				{Kind: model.EventReasoningDelta, Text: "think"},
				{Kind: model.EventReasoningEnd},
				{Kind: model.EventTextDelta, Text: "Hi"},
				startEv("c1", "f"),
				toolCallEv("c1", "f", `{"a":1}`),
				{Kind: model.EventUsage, Usage: &model.Usage{InputTokens: 5, OutputTokens: 7, CacheReadTokens: 3, ReasoningTokens: 2}},
				stopEv(model.StopToolUse),
			},
		},
		{
			name: "reasoning closed at the end of the stream",
			body: sse(`{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}`),
			want: []model.Event{{Kind: model.EventReasoningDelta, Text: "hmm"}, {Kind: model.EventReasoningEnd}, stopEv(model.StopEndTurn)},
		},
		{
			name: "refusal is visible text",
			body: sse(`{"choices":[{"index":0,"delta":{"refusal":"I can't"},"finish_reason":"content_filter"}]}`),
			want: []model.Event{{Kind: model.EventTextDelta, Text: "I can't"}, stopEv(model.StopContentFilter)},
		},
		{
			name: "finish reasons",
			body: sse(`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"length"}]}`),
			want: []model.Event{{Kind: model.EventTextDelta, Text: "x"}, stopEv(model.StopMaxTokens)},
		},
		{
			name: "unknown finish reason",
			body: sse(`{"choices":[{"index":0,"delta":{},"finish_reason":"eos_token"}]}`),
			want: []model.Event{stopEv(model.StopOther)},
		},
		{
			name: "other choices ignored",
			body: sse(`{"choices":[{"index":1,"delta":{"content":"B"}},{"index":0,"delta":{"content":"A"},"finish_reason":"stop"}]}`),
			want: []model.Event{{Kind: model.EventTextDelta, Text: "A"}, stopEv(model.StopEndTurn)},
		},
		{
			name: "arguments as an object, empty arguments, calls in index order",
			body: sse(
				`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":""}}]}}]}`,
				`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":{"x":[1,2]}}}]}}]}`,
				`{"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}`),
			want: []model.Event{startEv("b", "g"), startEv("a", "f"), toolCallEv("a", "f", `{"x":[1,2]}`), toolCallEv("b", "g", `{}`), stopEv(model.StopToolUse)},
		},
		{
			name: "fragments without an index continue the latest call",
			body: sse(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"p\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\"/tmp\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}`),
			want: []model.Event{startEv("a", "f"), startEv("b", "g"), toolCallEv("a", "f", `{"p":"/tmp"}`), toolCallEv("b", "g", `{}`), stopEv(model.StopToolUse)},
		},
		{
			name: "complete calls sharing one index",
			body: sse(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"n\":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"f","arguments":"{\"n\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"2}"}}]},"finish_reason":"tool_calls"}]}`),
			want: []model.Event{startEv("a", "f"), startEv("b", "f"), toolCallEv("a", "f", `{"n":1}`), toolCallEv("b", "f", `{"n":2}`), stopEv(model.StopToolUse)},
		},
		{
			name: "double-encoded and fenced arguments are repaired",
			body: sse(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"\"{\\\"k\\\":1}\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":"`+"```json\\n{\\\"k\\\":2,}\\n```"+`"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			want: []model.Event{startEv("a", "f"), startEv("b", "g"), toolCallEv("a", "f", `{"k":1}`), toolCallEv("b", "g", `{"k":2}`), stopEv(model.StopToolUse)},
		},
		{
			// The model's mistake is passed through for the agent to
			// answer with an is_error result; the response goes on.
			name: "arguments that are no JSON object are passed through",
			body: sse(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":" [1,2] "}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":"\"not json"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"c","function":{"name":"h","arguments":42}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"id":"d","function":{"name":"w","arguments":"{\"path\":\"x\",\"content\":\"trunc"}}]},"finish_reason":"length"}]}`),
			want: []model.Event{startEv("a", "f"), startEv("b", "g"), startEv("c", "h"), startEv("d", "w"),
				toolCallEv("a", "f", `[1,2]`), toolCallEv("b", "g", `"not json`), toolCallEv("c", "h", `42`),
				toolCallEv("d", "w", `{"path":"x","content":"trunc`), stopEv(model.StopMaxTokens)},
		},
		{
			name: "usage with llama.cpp timings, keep-alive comments",
			body: ": ping\n\n" + sse(
				`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`,
				`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2},"timings":{"cache_n":8,"prompt_n":2,"predicted_n":2,"predicted_ms":1.5}}`),
			want: []model.Event{
				{Kind: model.EventTextDelta, Text: "ok"},
				{Kind: model.EventUsage, Usage: &model.Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: 8,
					Timings: &model.Timings{CacheN: 8, PromptN: 2, PredictedN: 2, PredictedMS: 1.5}}},
				stopEv(model.StopEndTurn),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse(tt.body)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseStreamMissingCallID(t *testing.T) {
	body := func(respID, args string) string {
		return sse(fmt.Sprintf(`{"id":%q,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":%q}}]},"finish_reason":"tool_calls"}]}`, respID, args))
	}
	id := func(respID, args string) string {
		t.Helper()
		evs, err := parse(body(respID, args))
		// Without an id the start comes just before the call, with the
		// id derived for it.
		if err != nil || len(evs) != 3 || evs[0].Kind != model.EventToolCallStart || evs[1].ToolCall == nil ||
			evs[0].ToolCall.ID != evs[1].ToolCall.ID {
			t.Fatalf("events %+v, err %v", evs, err)
		}
		return evs[1].ToolCall.ID
	}
	a := id("resp-1", `{"x":1}`)
	if !strings.HasPrefix(a, "call_") || len(a) != len("call_")+24 {
		t.Errorf("generated id %q, want call_ and 24 hex digits", a)
	}
	if b := id("resp-1", `{"x":1}`); b != a {
		t.Errorf("ids differ across identical replays: %q, %q", a, b)
	}
	if b := id("resp-2", `{"x":1}`); b == a {
		t.Errorf("different responses produced the same id %q", a)
	}
	if b := id("", `{"x":2}`); b == id("", `{"x":1}`) {
		t.Errorf("servers without response ids get colliding call ids")
	}
}

func TestParseStreamErrors(t *testing.T) {
	var many strings.Builder
	for i := range 300 {
		fmt.Fprintf(&many, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"c%d","function":{"name":"f"}}]}}]}`+"\n", i, i)
	}
	manyChunks := strings.Split(strings.TrimSpace(many.String()), "\n")
	tests := []struct {
		name, body string
		want       error
		contains   string
	}{
		{"object mixed with fragments", sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":{"a":1}}}]}}]}`),
			openai.ErrMalformedResponse, "mixes argument fragments"},
		{"fragment after the call completed", `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"x"}}]}}]}` + "\n\ndata: [DONE]\n\n",
			openai.ErrMalformedResponse, "after the call was complete"},
		{"too many tool calls", sse(manyChunks...), openai.ErrMalformedResponse, "more than 256 tool calls"},
		{"chunk of the wrong shape", sse(`{"choices":{"index":0}}`), openai.ErrMalformedResponse, "stream chunk 1 does not follow the Chat Completions format (field /choices is an object, want an array)"},
		{"no [DONE]", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\n",
			model.ErrIncompleteStream, "without [DONE]"},
		{"no events at all", "event: ping\n\n: comment\n\n", model.ErrIncompleteStream, "sent no events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := parse(tt.body)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("error = %v, want %v mentioning %q", err, tt.want, tt.contains)
			}
			for _, ev := range evs {
				if ev.Kind == model.EventStop {
					t.Errorf("a failed stream yielded a stop event")
				}
			}
		})
	}
}

// TestParseStreamConsumerStops checks that breaking out of the loop ends
// parsing: no event is yielded after the consumer said stop.
func TestParseStreamConsumerStops(t *testing.T) {
	body := toolStream(t)
	n := 0
	for _, err := range openai.ParseStream(strings.NewReader(body)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("saw %d events, want to stop at 3", n)
	}
}

// splitWorthTrying selects the split points of the property test: all of
// them normally; under -race or -short every 97th plus the points next to
// each newline, where the decoder's line state changes.
func splitWorthTrying(body string, k int) bool {
	if !raceEnabled && !testing.Short() {
		return true
	}
	if k%97 == 0 {
		return true
	}
	for i := max(0, k-1); i < min(len(body), k+1); i++ {
		if body[i] == '\n' {
			return true
		}
	}
	return false
}

// streamBodies returns every streamed response body in the recordings.
func streamBodies(t testing.TB) map[string]string {
	out := map[string]string{}
	for _, rel := range []string{
		"fantasy/TestOpenAICommon/openai-gpt-4o/simple_streaming.yaml",
		"fantasy/TestOpenAICommon/openai-gpt-4o/tool_streaming.yaml",
		"fantasy/TestOpenAICommon/openai-gpt-4o/multi_tool_streaming.yaml",
		"fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/simple_streaming.yaml",
		"fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool_streaming.yaml",
		"fantasy/TestOpenAICompatibleThinking/llama-cpp-gpt-oss/thinking-streaming.yaml",
		"envoy/chat-streaming.yaml",
	} {
		for i, in := range loadCassette(t, rel).Interactions {
			out[fmt.Sprintf("%s#%d", rel, i)] = in.Response.Body
		}
	}
	return out
}

// TestParseStreamSplitAnywhere is a property test: however the transport
// splits a recorded stream into reads, the parser yields the same events.
func TestParseStreamSplitAnywhere(t *testing.T) {
	for name, body := range streamBodies(t) {
		t.Run(name, func(t *testing.T) {
			want, err := parse(body)
			if err != nil {
				t.Fatalf("whole stream: %v", err)
			}
			if len(want) == 0 || want[len(want)-1].Kind != model.EventStop {
				t.Fatalf("whole stream did not end with a stop event: %+v", want)
			}
			for k := 0; k <= len(body); k++ {
				if !splitWorthTrying(body, k) {
					continue
				}
				r := io.MultiReader(strings.NewReader(body[:k]), strings.NewReader(body[k:]))
				got, err := collectEvents(openai.ParseStream(r))
				if err != nil {
					t.Fatalf("split at byte %d: %v", k, err)
				}
				// reflect.DeepEqual first: cmp.Diff on every split would
				// dominate the test's run time.
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("split at byte %d changed the events (-whole +split):\n%s", k, cmp.Diff(want, got))
				}
			}
			got, err := collectEvents(openai.ParseStream(iotest.OneByteReader(strings.NewReader(body))))
			if err != nil {
				t.Fatalf("one byte at a time: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("one-byte reads changed the events (-whole +split):\n%s", diff)
			}
		})
	}
}
