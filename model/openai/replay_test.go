package openai_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/openai"
)

// replayCase is one recording: the first request rein sends, the tool
// results it answers tool calls with (for a second turn), and what each
// turn must yield. Expectations were read off the recordings by hand.
type replayCase struct {
	cassette  string
	streaming bool
	first     model.Request
	results   []string          // tool result contents for turn 2, in call order
	want      []*model.Response // per turn; nil when the turn fails
	wantErr   *model.APIError   // the failure of the only turn, if any
	// ignore lists request keys that legitimately differ from the recorded
	// client's request, with the reason in a comment at the case.
	ignore []string
}

func tm(cacheN, promptN int, promptMS, promptPS float64, predN int, predMS, predPS float64) model.Timings {
	return model.Timings{
		PromptN: promptN, PromptMS: promptMS, PromptPerSecond: promptPS,
		PredictedN: predN, PredictedMS: predMS, PredictedPerSecond: predPS, CacheN: cacheN,
	}
}

const (
	helpful  = "You are a helpful assistant"
	florence = "What's the weather in Florence,Italy?"
	hiPT     = "Say hi in Portuguese"
	bothSys  = "You are a helpful assistant. Always use both add and multiply at the same time."
)

func gpt4o(system, user string, tools ...model.ToolSpec) model.Request {
	r := model.Request{Model: "gpt-4o", System: system, Messages: []model.Message{model.UserText(user)}, MaxTokens: 4000, Tools: tools}
	if len(tools) > 0 {
		r.ToolChoice = model.ToolChoiceAuto
	}
	return r
}

func llama(user string, tools ...model.ToolSpec) model.Request {
	r := model.Request{
		Model: "openai/gpt-oss-20b", System: helpful, Messages: []model.Message{model.UserText(user)}, Tools: tools,
		Extra: map[string]any{"max_completion_tokens": 4000},
	}
	if len(tools) > 0 {
		r.ToolChoice = model.ToolChoiceAuto
	}
	return r
}

func llamaThinking() model.Request {
	return model.Request{
		Model: "openai/gpt-oss-20b", System: helpful,
		Messages:        []model.Message{model.UserText("What's the weather in Florence, Italy?")},
		Tools:           []model.ToolSpec{weatherTool},
		ToolChoice:      model.ToolChoiceAuto,
		ReasoningEffort: "high",
	}
}

func replayCases() []replayCase {
	const fl = "The current weather in Florence, Italy is **40\u202f°C**." // a narrow no-break space, as sent
	return []replayCase{
		// OpenAI gpt-4o.
		{cassette: "fantasy/TestOpenAICommon/openai-gpt-4o/simple.yaml", first: gpt4o(helpful, hiPT),
			want: []*model.Response{response(model.StopEndTurn, openaiUsage(20, 2, 0), text("Oi!"))}},
		{cassette: "fantasy/TestOpenAICommon/openai-gpt-4o/simple_streaming.yaml", streaming: true, first: gpt4o(helpful, hiPT),
			want: []*model.Response{response(model.StopEndTurn, openaiUsage(20, 2, 0), text("Olá!"))}},
		{cassette: "fantasy/TestOpenAICommon/openai-gpt-4o/tool.yaml", first: gpt4o(helpful, florence, weatherTool), results: []string{"40 C"},
			want: []*model.Response{
				response(model.StopToolUse, openaiUsage(61, 16, 0), call("call_IUonKM9GCNis5eMRHuusMqoy", "weather", `{"location":"Florence, Italy"}`)),
				response(model.StopEndTurn, openaiUsage(86, 13, 0), text("The weather in Florence, Italy is currently 40°C.")),
			}},
		{cassette: "fantasy/TestOpenAICommon/openai-gpt-4o/tool_streaming.yaml", streaming: true, first: gpt4o(helpful, florence, weatherTool), results: []string{"40 C"},
			want: []*model.Response{
				response(model.StopToolUse, openaiUsage(61, 16, 0), call("call_7kE4IjtnwXcGbX6hDM7xFu8T", "weather", `{"location":"Florence, Italy"}`)),
				response(model.StopEndTurn, openaiUsage(86, 13, 0), text("The current temperature in Florence, Italy is 40°C.")),
			}},
		{cassette: "fantasy/TestOpenAICommon/openai-gpt-4o/multi_tool.yaml",
			first:   gpt4o("You are a helpful assistant. CRITICAL: Always use both add and multiply at the same time ALWAYS.", "Add and multiply the number 2 and 3", addTool, multiplyTool),
			results: []string{"5", "6"},
			want: []*model.Response{
				response(model.StopToolUse, openaiUsage(110, 50, 0),
					call("call_fifE5poZ3dg3JDUKGFi48NGq", "add", `{"a": 2, "b": 3}`),
					call("call_cvvIly4eGLZUYOMhAviT8jAF", "multiply", `{"a": 2, "b": 3}`)),
				response(model.StopEndTurn, openaiUsage(176, 28, 0), text("The result of adding 2 and 3 is 5, and the result of multiplying 2 and 3 is 6.")),
			}},
		{cassette: "fantasy/TestOpenAICommon/openai-gpt-4o/multi_tool_streaming.yaml", streaming: true,
			first:   gpt4o(bothSys, "Add and multiply the number 2 and 3", addTool, multiplyTool),
			results: []string{"5", "6"},
			want: []*model.Response{
				response(model.StopToolUse, openaiUsage(106, 50, 0),
					call("call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", `{"a": 2, "b": 3}`),
					call("call_fBSgA47J5VeONggizTIvl7AH", "multiply", `{"a": 2, "b": 3}`)),
				response(model.StopEndTurn, openaiUsage(172, 20, 0), text("The sum of 2 and 3 is 5, and the product is 6.")),
			}},

		// llama.cpp llama-server with gpt-oss-20b.
		{cassette: "fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/simple.yaml", first: llama(hiPT),
			want: []*model.Response{response(model.StopEndTurn,
				llamaUsage(84, 47, tm(0, 84, 292.377, 287.3003006392431, 47, 391.773, 119.96743011897196)),
				reasoning(`The user says: "Say hi in Portuguese". So answer: "Olá" or "Oi". Likely "Olá". Probably a friendly greeting. Just respond with that.`),
				text("Olá!"))}},
		{cassette: "fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/simple_streaming.yaml", streaming: true, first: llama(hiPT),
			want: []*model.Response{response(model.StopEndTurn,
				llamaUsage(84, 57, tm(83, 1, 8.996, 111.16051578479323, 57, 484.01, 117.76616185616001)),
				reasoning("The user: \"Say hi in Portuguese\". They want a greeting in Portuguese. Simple: \"Olá!\" or \"Oi!\". Probably respond with \"Olá!\" or \"Oi!\".\n\nWe should keep it concise. We'll respond."),
				text("Olá!"))}},
		{cassette: "fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool.yaml", first: llama(florence, weatherTool), results: []string{"40 C"},
			want: []*model.Response{
				response(model.StopToolUse,
					llamaUsage(139, 58, tm(59, 80, 138.363, 578.1892557981541, 58, 483.677, 119.91473648736657)),
					reasoning(`The user asks: "What's the weather in Florence, Italy?" We have a tool "functions.weather" that can get weather information. We should call it.`),
					call("mvVq65j66dyGRizURhbdNCEnSO56GhXx", "weather", `{"location":"Florence,Italy"}`)),
				response(model.StopEndTurn,
					llamaUsage(213, 18, tm(177, 36, 79.143, 454.8728251393048, 18, 144.84, 124.27506213753105)),
					text(fl)),
			}},
		{cassette: "fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool_streaming.yaml", streaming: true, first: llama(florence, weatherTool), results: []string{"40 C"},
			want: []*model.Response{
				response(model.StopToolUse,
					llamaUsage(139, 41, tm(138, 1, 8.691, 115.06155793349441, 41, 339.279, 120.84449671214546)),
					reasoning("User wants weather in Florence, Italy. We can use the weather function."),
					call("g2KOIWzn722hzEaZQmNVP4roUPEiYafL", "weather", `{"location":"Florence, Italy"}`)),
				response(model.StopEndTurn,
					llamaUsage(196, 18, tm(160, 36, 79.853, 450.8283971798179, 18, 145.366, 123.82537869928318)),
					text(fl)),
			}},
		{cassette: "fantasy/TestOpenAICompatibleThinking/llama-cpp-gpt-oss/thinking.yaml", first: llamaThinking(), results: []string{"40 C"},
			want: []*model.Response{
				response(model.StopToolUse,
					llamaUsage(139, 51, tm(134, 5, 49.294, 101.43222298859902, 51, 428.45, 119.03372622242969)),
					reasoning(`The user asks: "What's the weather in Florence, Italy?" We can use the weather function. So call the function.`),
					call("fdRvrwCxXKWGpydIdV3kNaiuirhnhEoL", "weather", `{"location":"Florence, Italy"}`)),
				response(model.StopEndTurn,
					llamaUsage(206, 57, tm(170, 36, 79.333, 453.7834192580641, 57, 476.185, 119.70137656583051)),
					text("Here’s the current weather in Florence, Italy:\n\n- **Temperature:** 40\u202f°C  \n- **Conditions:** Sunny with light wind  \n\nEnjoy your day! (If you need more details—humidity, wind speed, forecast, etc.—just let me know.)")),
			}},
		{cassette: "fantasy/TestOpenAICompatibleThinking/llama-cpp-gpt-oss/thinking-streaming.yaml", streaming: true, first: llamaThinking(), results: []string{"40 C"},
			want: []*model.Response{
				response(model.StopToolUse,
					llamaUsage(139, 42, tm(138, 1, 9.198, 108.71928680147857, 42, 344.633, 121.86877054721981)),
					reasoning(`We need to call function 'weather' with location "Florence, Italy".`),
					call("1wNpqrejg1FCTjf6xq8JRCGKgWZO74AL", "weather", `{"location":"Florence, Italy"}`)),
				response(model.StopEndTurn,
					llamaUsage(197, 18, tm(161, 36, 79.751, 451.40499805645067, 18, 139.164, 129.34379580926102)),
					text(fl)),
			}},

		// OpenAI gpt-5-nano through envoy's recorder.
		{cassette: "envoy/chat-basic.yaml", first: model.Request{Model: "gpt-5-nano", Messages: []model.Message{model.UserText("Hello!")}},
			want: []*model.Response{response(model.StopEndTurn, openaiUsage(8, 377, 320),
				text("Hi there! How can I help you today? I can explain concepts, answer questions, help with writing or editing, brainstorm ideas, assist with coding or math, plan tasks, and more. Tell me what you’d like to do."))}},
		// The recorded client did not ask for usage in the stream; rein always does.
		{cassette: "envoy/chat-streaming.yaml", streaming: true, ignore: []string{"stream_options"},
			first: model.Request{Model: "gpt-5-nano", Messages: []model.Message{model.UserText("Hello!")}},
			want: []*model.Response{response(model.StopEndTurn, model.Usage{},
				text("Hi there! How can I help today? I can answer questions, explain concepts, help with writing or brainstorming, code, plan something, and more. Tell me what you’d like to work on or a topic you’re curious about."))}},
		{cassette: "envoy/chat-tools.yaml",
			first: model.Request{Model: "gpt-5-nano", Messages: []model.Message{model.UserText("What is the weather like in Boston today?")},
				Tools: []model.ToolSpec{bostonTool}, ToolChoice: model.ToolChoiceAuto},
			want: []*model.Response{response(model.StopToolUse, openaiUsage(162, 287, 256),
				call("call_8fxy20OEu9ulvvaa5b5CzVA4", "get_current_weather", `{"location":"Boston, MA","unit":"fahrenheit"}`))}},
		// The recorded "developer" role is sent as "system" by rein (see normalize).
		{cassette: "envoy/chat-multiturn.yaml",
			first: model.Request{Model: "gpt-5-nano", System: "You are a helpful assistant.", Temperature: f64(1), Messages: []model.Message{
				model.UserText("Hello!"), model.AssistantText("Hello! How can I assist you today?"),
				model.UserText("Answer in up to 5 words: What's the weather like?")}},
			want: []*model.Response{response(model.StopEndTurn, openaiUsage(50, 526, 512), text("What city or region?"))}},
		{cassette: "envoy/chat-json-mode.yaml",
			first: model.Request{Model: "gpt-5-nano", ResponseFormat: json.RawMessage(`{"type":"json_object"}`),
				Messages: []model.Message{model.UserText("Generate a JSON object with three properties: name, age, and city.")}},
			want: []*model.Response{response(model.StopEndTurn, openaiUsage(21, 280, 256), text(`{"name":"Alex Smith","age":29,"city":"San Francisco"}`))}},
		{cassette: "envoy/chat-detailed-usage.yaml",
			first: model.Request{Model: "gpt-5-nano", System: "Hello, I'm a developer!", Temperature: f64(1),
				Extra: map[string]any{"max_completion_tokens": 100}},
			want: []*model.Response{response(model.StopMaxTokens, openaiUsage(12, 100, 100))}},

		// Error answers.
		// The recorded client sent "content": null for the user, which rein
		// never does; the messages are not compared.
		{cassette: "envoy/chat-bad-request.yaml", ignore: []string{"messages"},
			first: model.Request{Model: "gpt-5-nano", Temperature: f64(-0.5), Messages: []model.Message{model.UserText("")},
				Extra: map[string]any{"max_tokens": 0}},
			wantErr: &model.APIError{Provider: "openai", StatusCode: 400, Type: "invalid_request_error", Code: "unsupported_parameter",
				Message:   "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
				RequestID: "req_13d9b359dc234adc87be3833cacab1c6"}},
		{cassette: "envoy/chat-unknown-model.yaml",
			first: model.Request{Model: "gpt-4.1-nano-wrong", Messages: []model.Message{model.UserText("Hello!")}},
			wantErr: &model.APIError{Provider: "openai", StatusCode: 404, Type: "invalid_request_error", Code: "model_not_found",
				Message:   "The model `gpt-4.1-nano-wrong` does not exist or you do not have access to it.",
				RequestID: "req_ae3c59cd7df34e978057035f370e04be"}},
		{cassette: "envoy/chat-no-messages.yaml",
			first: model.Request{Model: "gpt-5-nano", Messages: []model.Message{}},
			wantErr: &model.APIError{Provider: "openai", StatusCode: 400, Type: "invalid_request_error", Code: "empty_array",
				Message:   "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
				RequestID: requestIDOf("envoy/chat-no-messages.yaml")}},
	}
}

// requestIDOf reads the recorded x-request-id, for cases where writing it
// out adds nothing.
func requestIDOf(rel string) string {
	c, err := modeltest.LoadCassette(fixtures + "/" + rel)
	if err != nil {
		return "unreadable cassette " + rel
	}
	return c.Interactions[0].Response.Headers.Get("X-Request-Id")
}

// TestReplayRecordings replays every OpenAI-format recording through the
// provider, checks what each turn yields, and checks that the request rein
// sends for the same conversation matches the recorded request.
func TestReplayRecordings(t *testing.T) {
	for _, tc := range replayCases() {
		t.Run(tc.cassette, func(t *testing.T) {
			c := loadCassette(t, tc.cassette)
			srv := modeltest.NewServer(t, modeltest.ReplayCassette(c)...)
			p := newProvider(t, srv.URL, func(cfg *openai.Config) { cfg.NoStreaming = !tc.streaming })

			req := tc.first
			turns := len(c.Interactions)
			for turn := range turns {
				resp, err := model.Collect(modeltest.CheckToolCallStarts(t, p.Stream(t.Context(), &req), true))
				if tc.wantErr != nil {
					var apiErr *model.APIError
					if !errors.As(err, &apiErr) {
						t.Fatalf("error = %v, want *model.APIError", err)
					}
					if diff := cmp.Diff(tc.wantErr, apiErr, cmpopts.IgnoreFields(model.APIError{}, "Attempts")); diff != "" {
						t.Errorf("APIError (-want +got):\n%s", diff)
					}
				} else {
					if err != nil {
						t.Fatalf("turn %d: %v", turn, err)
					}
					if diff := cmp.Diff(tc.want[turn], resp); diff != "" {
						t.Errorf("turn %d response (-want +got):\n%s", turn, diff)
					}
				}
				got := srv.Requests()
				if len(got) != turn+1 {
					t.Fatalf("server saw %d requests after turn %d, want %d (no retries)", len(got), turn, turn+1)
				}
				compareRequest(t, turn, c.Interactions[turn].Request.Body, got[turn].Body, tc.ignore)
				if turn+1 < turns {
					req = nextTurn(t, req, resp, tc.results)
				}
			}
		})
	}
}

// nextTurn extends the conversation with the assistant's answer and the
// scripted tool results, as the agent loop would.
func nextTurn(t *testing.T, req model.Request, resp *model.Response, results []string) model.Request {
	t.Helper()
	calls := resp.Message.ToolCalls()
	if len(calls) != len(results) {
		t.Fatalf("turn produced %d tool calls, the case scripts %d results", len(calls), len(results))
	}
	var rs []model.ToolResult
	for i, c := range calls {
		rs = append(rs, model.ToolResult{CallID: c.ID, Name: c.Name, Content: results[i]})
	}
	req.Messages = append(append([]model.Message(nil), req.Messages...), resp.Message, model.ToolResults(rs...))
	return req
}

// compareRequest checks that the body rein sent is JSON-equal to the
// recorded one after normalising what clients legitimately differ in.
func compareRequest(t *testing.T, turn int, recorded string, sent []byte, ignore []string) {
	t.Helper()
	want := normalizeRequest(normJSON(t, []byte(recorded)), ignore)
	got := normalizeRequest(normJSON(t, sent), ignore)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turn %d request body differs from the recording (-recorded +sent):\n%s", turn, diff)
	}
}

// normalizeRequest drops null values (an absent "content" and
// "content": null mean the same), the recorded clients' "strict": false on
// tools (the API default), and maps the "developer" role onto "system"
// (rein's model has no developer role; OpenAI treats them alike).
func normalizeRequest(v any, ignore []string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for _, k := range ignore {
		delete(m, k)
	}
	return dropNulls(m)
}

func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil || (k == "strict" && e == false) {
				delete(x, k)
				continue
			}
			if k == "role" && e == "developer" {
				x[k] = "system"
			}
			x[k] = dropNulls(x[k])
		}
	case []any:
		for i := range x {
			x[i] = dropNulls(x[i])
		}
	}
	return v
}
