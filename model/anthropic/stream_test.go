package anthropic_test

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
)

// sse frames events the way the API does: "event: NAME\ndata: JSON\n\n".
// Each item is "name data".
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		name, data, _ := strings.Cut(e, " ")
		b.WriteString("event: " + name + "\ndata: " + data + "\n\n")
	}
	return b.String()
}

const (
	evStart     = `message_start {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`
	evTextStart = `content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	evStop0     = `content_block_stop {"type":"content_block_stop","index":0}`
	evEndTurn   = `message_delta {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}`
	evMsgStop   = `message_stop {"type":"message_stop"}`
	evPing      = `ping {"type": "ping"}`
)

func textDelta(i int, s string) string {
	d, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": s}})
	return "content_block_delta " + string(d)
}

func jsonDelta(i int, s string) string {
	d, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": s}})
	return "content_block_delta " + string(d)
}

func toolStart(i int, id, name string) string {
	return `content_block_start {"type":"content_block_start","index":` + itoa(i) + `,"content_block":{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":{}}}`
}

func blockStop(i int) string {
	return `content_block_stop {"type":"content_block_stop","index":` + itoa(i) + `}`
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func text(s string) model.Event { return model.Event{Kind: model.EventTextDelta, Text: s} }

func reasoning(s string) model.Event { return model.Event{Kind: model.EventReasoningDelta, Text: s} }

func toolCall(id, name, args string) model.Event {
	return model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}}
}

func toolStarted(id, name string) model.Event {
	return model.Event{Kind: model.EventToolCallStart, ToolCall: &model.ToolCall{ID: id, Name: name}}
}

func usageEv(u model.Usage) model.Event { return model.Event{Kind: model.EventUsage, Usage: &u} }

func stop(r model.StopReason) model.Event { return model.Event{Kind: model.EventStop, StopReason: r} }

// drain collects a stream's events and its error.
func drain(seq func(func(model.Event, error) bool)) ([]model.Event, error) {
	var evs []model.Event
	for ev, err := range seq {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func TestStreamEvents(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []model.Event
	}{
		{
			name: "text",
			body: sse(evStart, evTextStart, textDelta(0, "Hel"), textDelta(0, "lo"), evStop0, evEndTurn, evMsgStop),
			want: []model.Event{text("Hel"), text("lo"), usageEv(usage(10, 7)), stop(model.StopEndTurn)},
		},
		{
			name: "tool input fragments are joined, parsed once and compacted",
			body: sse(evStart, toolStart(0, "toolu_1", "grep"), jsonDelta(0, ""), jsonDelta(0, `{"pattern"`), jsonDelta(0, `: "a b", "n": [1, `), jsonDelta(0, `2]}`), blockStop(0),
				`message_delta {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20}}`, evMsgStop),
			want: []model.Event{toolStarted("toolu_1", "grep"), toolCall("toolu_1", "grep", `{"pattern":"a b","n":[1,2]}`), usageEv(usage(10, 20)), stop(model.StopToolUse)},
		},
		{
			name: "tool without input fragments gets the empty object",
			body: sse(evStart, toolStart(0, "toolu_1", "now"), blockStop(0), evMsgStop),
			want: []model.Event{toolStarted("toolu_1", "now"), toolCall("toolu_1", "now", `{}`), usageEv(usage(10, 1)), stop(model.StopOther)},
		},
		{
			// The model's mistake is passed through for the agent to
			// answer with an is_error result; the stream goes on.
			name: "tool input that is no JSON object is passed through",
			body: sse(evStart, toolStart(0, "toolu_1", "f"), jsonDelta(0, ` [1]`), blockStop(0), toolStart(1, "toolu_2", "g"), jsonDelta(1, `{"a":`), blockStop(1),
				toolStart(2, "toolu_3", "h"), jsonDelta(2, `"x"`), blockStop(2), evEndTurn, evMsgStop),
			want: []model.Event{toolStarted("toolu_1", "f"), toolCall("toolu_1", "f", `[1]`), toolStarted("toolu_2", "g"), toolCall("toolu_2", "g", `{"a":`),
				toolStarted("toolu_3", "h"), toolCall("toolu_3", "h", `"x"`), usageEv(usage(10, 7)), stop(model.StopEndTurn)},
		},
		{
			name: "thinking, signature held for the block end, redacted thinking",
			body: sse(evStart,
				`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
				`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}`,
				`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" think."}}`,
				`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
				evStop0,
				`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"ZW5jcnlwdGVk"}}`,
				blockStop(1),
				`content_block_start {"type":"content_block_start","index":2,"content_block":{"type":"text","text":"Done"}}`,
				blockStop(2), evEndTurn, evMsgStop),
			want: []model.Event{
				reasoning("Let me"), reasoning(" think."),
				{Kind: model.EventReasoningEnd, Signature: "c2ln"},
				{Kind: model.EventReasoningEnd, Redacted: "ZW5jcnlwdGVk"},
				text("Done"), usageEv(usage(10, 7)), stop(model.StopEndTurn),
			},
		},
		{
			name: "cache counters are part of the prompt and reported apart",
			body: sse(`message_start {"type":"message_start","message":{"usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000,"output_tokens":1}}}`,
				evTextStart, textDelta(0, "x"), evStop0,
				`message_delta {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`, evMsgStop),
			want: []model.Event{text("x"), usageEv(model.Usage{InputTokens: 2105, OutputTokens: 3, CacheReadTokens: 2000, CacheWriteTokens: 100}), stop(model.StopEndTurn)},
		},
		{
			name: "pings, unknown events, unknown blocks and unknown deltas are ignored",
			body: sse(evPing, evStart, evPing,
				`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`,
				jsonDelta(0, `{"query":"x"}`), evStop0, evPing,
				`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
				`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{}}}`,
				textDelta(1, "ok"), blockStop(1),
				`future_event {"type":"future_event","whatever":[1,2,3]}`,
				evEndTurn, evPing, evMsgStop),
			want: []model.Event{text("ok"), usageEv(usage(10, 7)), stop(model.StopEndTurn)},
		},
		{
			name: "stop reasons map onto rein's",
			body: sse(evStart, `message_delta {"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{"output_tokens":2}}`, evMsgStop),
			want: []model.Event{usageEv(usage(10, 2)), stop(model.StopContentFilter)},
		},
		{
			name: "pause_turn is other",
			body: sse(evStart, `message_delta {"type":"message_delta","delta":{"stop_reason":"pause_turn"}}`, evMsgStop),
			want: []model.Event{usageEv(usage(10, 1)), stop(model.StopOther)},
		},
		{
			name: "events after message_stop are not read",
			body: sse(evStart, evEndTurn, evMsgStop, `error {"type":"error","error":{"type":"overloaded_error","message":"late"}}`) + "garbage without an end",
			want: []model.Event{usageEv(usage(10, 7)), stop(model.StopEndTurn)},
		},
		{
			name: "event name taken from the SSE field when data has no type",
			body: sse(`message_start {"message":{"usage":{"input_tokens":3}}}`, `message_stop {}`),
			want: []model.Event{usageEv(usage(3, 0)), stop(model.StopOther)},
		},
		{
			name: "CRLF framing and a data line split across two lines",
			body: "event: message_start\r\ndata: {\"type\":\"message_start\",\r\ndata: \"message\":{\"usage\":{\"input_tokens\":1}}}\r\n\r\n" +
				"event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n",
			want: []model.Event{usageEv(usage(1, 0)), stop(model.StopOther)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := drain(anthropic.StreamEvents(strings.NewReader(tt.body)))
			if err != nil {
				t.Fatalf("error: %v (events so far %v)", err, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamEventsErrors(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		is      error  // errors.Is target, nil when wantAPI
		wantAPI string // APIError type
		msg     string // substring of the error text
	}{
		{"empty body", "", model.ErrIncompleteStream, "", "without message_stop"},
		{"ends after a block", sse(evStart, evTextStart, textDelta(0, "a"), evStop0, evEndTurn), model.ErrIncompleteStream, "", "after 5 events"},
		{"ends mid-event", sse(evStart, evTextStart) + "event: content_block_delta\ndata: {\"type\":\"content_", model.ErrIncompleteStream, "", "reading the stream failed"},
		{"in-stream error", sse(evStart, evTextStart, textDelta(0, "a"), `error {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), nil, "overloaded_error", "Overloaded"},
		{"error without body", sse(`error {"type":"error"}`), nil, "", "without a message"},
		{"invalid JSON", sse(evStart, `content_block_start {"type":"content_block_start",`), anthropic.ErrMalformedResponse, "", "invalid JSON"},
		{"not SSE at all", "<html><body>502 Bad Gateway</body></html>\n\ndata: <!doctype html>\n\n", anthropic.ErrMalformedResponse, "", "invalid JSON"},
		{"content before message_start", sse(evTextStart), anthropic.ErrMalformedResponse, "", "before message_start"},
		{"two message_starts", sse(evStart, evStart), anthropic.ErrMalformedResponse, "", "second message_start"},
		{"delta for a block never started", sse(evStart, textDelta(3, "x")), anthropic.ErrMalformedResponse, "", "block 3 was never started"},
		{"delta after block stop", sse(evStart, evTextStart, evStop0, textDelta(0, "x")), anthropic.ErrMalformedResponse, "", "already stopped"},
		{"block started twice", sse(evStart, evTextStart, evTextStart), anthropic.ErrMalformedResponse, "", "started twice"},
		{"block event without index", sse(evStart, `content_block_stop {"type":"content_block_stop"}`), anthropic.ErrMalformedResponse, "", "no valid block index"},
		{"delta type of another block", sse(evStart, evTextStart, jsonDelta(0, "{}")), anthropic.ErrMalformedResponse, "", "input_json_delta for a block of another type"},
		{"tool without id", sse(evStart, toolStart(0, "", "f")), anthropic.ErrMalformedResponse, "", "without id or name"},
		{"message_stop with an open block", sse(evStart, toolStart(0, "toolu_1", "f"), jsonDelta(0, `{}`), evMsgStop), anthropic.ErrMalformedResponse, "", "never stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := drain(anthropic.StreamEvents(strings.NewReader(tt.body)))
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q does not wrap %v", err, tt.is)
			}
			if tt.is == nil {
				var apiErr *model.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("error %q (%T) is not an APIError", err, err)
				}
				want := &model.APIError{Provider: "anthropic", StatusCode: 200, Type: tt.wantAPI, Message: apiErr.Message, RequestID: "req_test", InStream: true}
				if diff := cmp.Diff(want, apiErr); diff != "" {
					t.Errorf("APIError (-want +got):\n%s", diff)
				}
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
		})
	}
}

// TestStreamEventsStopsReading checks that message_stop ends the stream
// without waiting for the server to close the connection.
func TestStreamEventsStopsReading(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, sse(evStart, evEndTurn, evMsgStop))
		// The writer never closes: a reader that waited for EOF would hang.
	}()
	defer pw.Close()
	got, err := drain(anthropic.StreamEvents(pr))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got); n != 2 || got[n-1].Kind != model.EventStop {
		t.Errorf("events %v, want usage then stop", got)
	}
}

func TestMessageEvents(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []model.Event
		is   error
	}{
		{
			name: "all block types",
			body: `{"type":"message","content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"redacted_thinking","data":"enc"},{"type":"text","text":"Hi"},{"type":"tool_use","id":"toolu_1","name":"f","input":{"a": [1, 2]}},{"type":"tool_use","id":"toolu_2","name":"g","input":null},{"type":"web_search_tool_result","content":[]}],"stop_reason":"tool_use","usage":{"input_tokens":7,"cache_read_input_tokens":3,"output_tokens":9}}`,
			want: []model.Event{reasoning("hm"), {Kind: model.EventReasoningEnd, Signature: "sig"}, {Kind: model.EventReasoningEnd, Redacted: "enc"}, text("Hi"),
				toolCall("toolu_1", "f", `{"a":[1,2]}`), toolCall("toolu_2", "g", `{}`),
				usageEv(model.Usage{InputTokens: 10, OutputTokens: 9, CacheReadTokens: 3}), stop(model.StopToolUse)},
		},
		{name: "max_tokens", body: `{"type":"message","content":[],"stop_reason":"max_tokens"}`, want: []model.Event{usageEv(model.Usage{}), stop(model.StopMaxTokens)}},
		{name: "stop_sequence", body: `{"type":"message","content":[],"stop_reason":"stop_sequence"}`, want: []model.Event{usageEv(model.Usage{}), stop(model.StopSequence)}},
		{name: "not JSON", body: `<html>`, is: anthropic.ErrMalformedResponse},
		{name: "not a message", body: `{"type":"completion"}`, is: anthropic.ErrMalformedResponse},
		{name: "tool args not an object are passed through", body: `{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":"x"}],"stop_reason":"tool_use"}`,
			want: []model.Event{toolCall("t", "f", `"x"`), usageEv(model.Usage{}), stop(model.StopToolUse)}},
		{name: "tool without name", body: `{"type":"message","content":[{"type":"tool_use","id":"t","input":{}}]}`, is: anthropic.ErrMalformedResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := anthropic.MessageEvents([]byte(tt.body))
			if tt.is != nil {
				if !errors.Is(err, tt.is) {
					t.Fatalf("error %v, want %v", err, tt.is)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMessageEventsError(t *testing.T) {
	_, err := anthropic.MessageEvents([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) || apiErr.Type != "overloaded_error" || apiErr.Message != "Overloaded" {
		t.Fatalf("error %v, want overloaded APIError", err)
	}
}

// TestSecretsNeverInErrors feeds server text that echoes a key into every
// error path that quotes the server.
func TestSecretsNeverInErrors(t *testing.T) {
	const secret = "sk-ant-api03-EchoedBackByAProxy"
	for _, tt := range []struct {
		name string
		body string
	}{
		{"in-stream error message", sse(evStart, `error {"type":"error","error":{"type":"authentication_error","message":"bad x-api-key: `+secret+`"}}`)},
		{"malformed event quoted", sse(evStart, `content_block_start {"type":"content_block_start","api_key":"`+secret+`",`)},
		{"sk key in garbage", "data: upstream said " + secret + " is invalid\n\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := drain(anthropic.StreamEvents(strings.NewReader(tt.body)))
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error leaks the key: %v", err)
			}
		})
	}
	_, err := anthropic.MessageEvents([]byte(`{"type":"unexpected","api_key":"` + secret + `"}`))
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("whole-message error leaks the key or is missing: %v", err)
	}
}

func TestToolInputCap(t *testing.T) {
	chunk := `"` + strings.Repeat("x", 1<<20) + `",`
	events := []string{evStart, toolStart(0, "t", "f"), jsonDelta(0, `{"a":[`)}
	for range 17 {
		events = append(events, jsonDelta(0, chunk))
	}
	_, err := drain(anthropic.StreamEvents(strings.NewReader(sse(events...))))
	// The answer cap (4 MiB by default) comes before the per-call one.
	if !errors.Is(err, model.ErrResponseTooLarge) || !strings.Contains(err.Error(), "(4 MiB)") {
		t.Fatalf("error %v, want the answer cap", err)
	}
}

// TestAnswerCap: text and thinking count toward the answer cap too, and
// the stream is abandoned at it, whatever the split.
func TestAnswerCap(t *testing.T) {
	piece := strings.Repeat("x", 64<<10)
	thinkingStart := `content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`
	thinkingDelta := `content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"` + piece + `"}}`
	tests := map[string][]string{
		"text":     {evStart, evTextStart},
		"thinking": {evStart, thinkingStart},
	}
	for name, events := range tests {
		for range 80 { // 5 MiB
			if name == "text" {
				events = append(events, textDelta(0, piece))
			} else {
				events = append(events, thinkingDelta)
			}
		}
		evs, err := drain(anthropic.StreamEvents(strings.NewReader(sse(events...))))
		if !errors.Is(err, model.ErrResponseTooLarge) {
			t.Errorf("%s: error %v after %d events, want ErrResponseTooLarge", name, err, len(evs))
		}
		if n := len(evs); n > 64 {
			t.Errorf("%s: %d deltas passed; the cap is 64 of them", name, n)
		}
	}
}
