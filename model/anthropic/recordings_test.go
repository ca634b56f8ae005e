package anthropic_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/transport"
)

// The recordings are shared with the other provider tests; see
// ../modeltest/testdata/README.md for where they come from.
const (
	commonDir   = "../modeltest/testdata/fantasy/TestAnthropicCommon/claude-sonnet-4"
	thinkingDir = "../modeltest/testdata/fantasy/TestAnthropicThinking/claude-sonnet-4"
	sonnet      = "claude-sonnet-4-20250514"
	testKey     = "sk-ant-api03-test-key-never-logged"
)

var (
	weatherTool = model.ToolSpec{
		Name:        "weather",
		Description: "Get weather information for a location",
		InputSchema: json.RawMessage(`{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`),
	}
	numberSchema = json.RawMessage(`{"properties":{"a":{"description":"first number","type":"integer"},"b":{"description":"second number","type":"integer"}},"required":["a","b"],"type":"object"}`)
	addTool      = model.ToolSpec{Name: "add", Description: "Add two numbers", InputSchema: numberSchema}
	multiplyTool = model.ToolSpec{Name: "multiply", Description: "Multiply two numbers", InputSchema: numberSchema}
)

// recordedTurn is one request/response of a recording: the answer rein
// must assemble from it, and the tool results the conversation then adds
// (which the next recorded request carries).
type recordedTurn struct {
	want    model.Response
	results []model.ToolResult
}

// recording describes the conversation behind one cassette, as read from
// its requests and responses.
type recording struct {
	file      string
	stream    bool
	system    string
	prompt    string
	tools     []model.ToolSpec
	maxTokens int
	thinking  int
	turns     []recordedTurn
}

func assistant(parts ...model.Part) model.Message {
	return model.Message{Role: model.RoleAssistant, Parts: parts}
}

func call(id, name, args string) model.Part {
	return model.ToolCallPart(model.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)})
}

func usage(in, out int) model.Usage { return model.Usage{InputTokens: in, OutputTokens: out} }

const (
	// Signatures of the thinking blocks, as recorded; the second request of
	// each thinking recording sends them back unchanged.
	sigStreaming = "EtYDCkYICxgCKkAVHEWRYo6RgSMs4ZZDX4gW16kdfp2EIXftcLesVephGa/p1m+1Y8mRQPvvKOQICrOkGKYoJBKSNLJ4ukI/mo6LEgx7FMTwIpYzM2WTWT8aDKY6c2i52xIX2NYX3SIwY5gI8frldE4pwUhseod0S0xZV2hTAQhqMCOu4+effAu250K2RPrqrO98+VD/hjF9Kr0C7EzGQ7dZ7MNwrkE+tCARkzIRk5Wtv8vVAhADlMcs78QvxmjOToU65I91p7w2/VP11peDoc9+7AbyldRKGp3chNnQgXHI7ObK89s0ltFBGrLf6tegaQL9httOtcUGCioZnI9LI9vJHMlQeoZiiWRq8hVbHlHc3f6BwBqlUJhYUyk7ld34UoaSNc5UKUNuLAmkOLg3KQLdbI7b3BQVdsWOhNTKd12fRJQcOLhXNSCv7hQ9FtWfV5C+pX59xF6YYIO3TCPUqWSubCtqdrDEoQVWdHtyveFA+4iixZxyqZ7Ea+kzbmc/6pXxwO2MX0rHrbe/yXWYAmU/XxY9HJTzXEO+CibGQOAaHdC11s8gOCFb8EWt3ALguFfj/p2SJtqybC44Alrjnhjqk+7Mi+DoMcINUh7SCK9rVl4VeDhPFVAYAQ=="
	sigWhole     = "Es8DCkYICxgCKkBROcM3239oIjVRtMTZin6UAjoE9xO0SXVQMr4UmHPaf8ABCrDZU7HQV0rZBBQjHz/LYBodQYqfhI6JW2CdZe5cEgy8y5mudpoPkWnTaV8aDJVR52Mx2nO7+eGpPyIwDFer1KYmKviIXPO6bpzvoC3AZzj7EyHpgeZMZZkKG2IZEC3tS0X46Gz0qAjQe3GjKrYCxSKWUv+dBGxXLgI8JtU/knWJR5GCTlLny+dvOLqdMjQIS/eJI2chHhrsND7SIcQG4EC2b21XBH07VbzYPWEDFmZULyXNXS66nkeqbqj+Y9lmhAn1ONYt47Txlaf0Zf5AAATe53hdDWd8VkJwcgHV7y142xtwVGK4EefJ06FIRfjpvhdKKjVHvgH4fqdTjtuchawXvek10MMqjl1BfOVNa3RoV+Y3ACpFxBXUVFOK7yqJExZYAjtCLTme6LGNhl/stnCq+I4mV3zHiy6PD3svzUyEO1bwvBpTXXXEyl2sRhm764/Rs/BxiVr+Z35zimii76pz+S+VT8Tch9ymIkZ8WySqFp3M2c2m/fpxZl8Iy4A2Y/cmqVHXyiX2RbM4/ViWJtj3V2UTVNwrKh4Uivqv4vvcwomAtRgB"
)

var recordings = []recording{
	{
		file: commonDir + "/simple.yaml", system: "You are a helpful assistant", prompt: "Say hi in Portuguese", maxTokens: 4000,
		turns: []recordedTurn{{want: model.Response{
			Message:    assistant(model.TextPart("Olá! \n\n(That's \"hello\" in Portuguese. You could also say \"Oi!\" for a more casual \"hi!\")")),
			Usage:      usage(16, 34),
			StopReason: model.StopEndTurn,
		}}},
	},
	{
		file: commonDir + "/simple_streaming.yaml", stream: true, system: "You are a helpful assistant", prompt: "Say hi in Portuguese", maxTokens: 4000,
		turns: []recordedTurn{{want: model.Response{
			Message:    assistant(model.TextPart("Olá! (That's \"hi\" in Portuguese)\n\nYou could also say \"Oi!\" which is a more casual way to say hi in Portuguese.")),
			Usage:      usage(16, 38),
			StopReason: model.StopEndTurn,
		}}},
	},
	{
		file: commonDir + "/tool.yaml", system: "You are a helpful assistant", prompt: "What's the weather in Florence,Italy?",
		tools: []model.ToolSpec{weatherTool}, maxTokens: 4000,
		turns: []recordedTurn{
			{
				want: model.Response{
					Message: assistant(model.TextPart("I'll check the weather in Florence, Italy for you."),
						call("toolu_01XLb9pzgfLa2EMyqWot6Ezt", "weather", `{"location":"Florence,Italy"}`)),
					Usage:      usage(394, 66),
					StopReason: model.StopToolUse,
				},
				results: []model.ToolResult{{CallID: "toolu_01XLb9pzgfLa2EMyqWot6Ezt", Name: "weather", Content: "40 C"}},
			},
			{want: model.Response{
				Message:    assistant(model.TextPart("The current weather in Florence, Italy is 40°C (104°F). That's quite hot! It would be a good idea to stay hydrated and seek shade or air conditioning if you're planning to be outdoors.")),
				Usage:      usage(475, 50),
				StopReason: model.StopEndTurn,
			}},
		},
	},
	{
		file: commonDir + "/tool_streaming.yaml", stream: true, system: "You are a helpful assistant", prompt: "What's the weather in Florence,Italy?",
		tools: []model.ToolSpec{weatherTool}, maxTokens: 4000,
		turns: []recordedTurn{
			{
				want: model.Response{
					Message: assistant(model.TextPart("I'll get the weather information for Florence, Italy for you."),
						call("toolu_01N2eM4V43kGCDkq2Lw7ChWQ", "weather", `{"location":"Florence,Italy"}`)),
					Usage:      usage(394, 67),
					StopReason: model.StopToolUse,
				},
				results: []model.ToolResult{{CallID: "toolu_01N2eM4V43kGCDkq2Lw7ChWQ", Name: "weather", Content: "40 C"}},
			},
			{want: model.Response{
				Message:    assistant(model.TextPart("The current weather in Florence, Italy shows a temperature of 40°C (104°F). That's quite hot! Make sure to stay hydrated and seek shade if you're planning to be outdoors.")),
				Usage:      usage(476, 46),
				StopReason: model.StopEndTurn,
			}},
		},
	},
	{
		file: commonDir + "/multi_tool.yaml", system: "You are a helpful assistant. CRITICAL: Always use both add and multiply at the same time ALWAYS.",
		prompt: "Add and multiply the number 2 and 3", tools: []model.ToolSpec{addTool, multiplyTool}, maxTokens: 4000,
		turns: []recordedTurn{
			{
				want: model.Response{
					Message: assistant(model.TextPart("I'll add and multiply the numbers 2 and 3 for you."),
						call("toolu_01StBeRxDEwsqcc3arbDgpS9", "add", `{"a":2,"b":3}`),
						call("toolu_01AC6WQhj2iRkdYHgTAGMpVQ", "multiply", `{"a":2,"b":3}`)),
					Usage:      usage(507, 137),
					StopReason: model.StopToolUse,
				},
				results: []model.ToolResult{
					{CallID: "toolu_01StBeRxDEwsqcc3arbDgpS9", Name: "add", Content: "5"},
					{CallID: "toolu_01AC6WQhj2iRkdYHgTAGMpVQ", Name: "multiply", Content: "6"},
				},
			},
			{want: model.Response{
				Message:    assistant(model.TextPart("The results are:\n- 2 + 3 = 5\n- 2 × 3 = 6")),
				Usage:      usage(705, 31),
				StopReason: model.StopEndTurn,
			}},
		},
	},
	{
		file: commonDir + "/multi_tool_streaming.yaml", stream: true, system: "You are a helpful assistant. Always use both add and multiply at the same time.",
		prompt: "Add and multiply the number 2 and 3", tools: []model.ToolSpec{addTool, multiplyTool}, maxTokens: 4000,
		turns: []recordedTurn{
			{
				want: model.Response{
					Message: assistant(model.TextPart("I'll add and multiply the numbers 2 and 3 for you."),
						call("toolu_01UYxUYC2zRPY8wiutnF48eP", "add", `{"a":2,"b":3}`),
						call("toolu_01VaRx1jpWCvPhi7L4kywAcd", "multiply", `{"a":2,"b":3}`)),
					Usage:      usage(502, 137),
					StopReason: model.StopToolUse,
				},
				results: []model.ToolResult{
					{CallID: "toolu_01UYxUYC2zRPY8wiutnF48eP", Name: "add", Content: "5"},
					{CallID: "toolu_01VaRx1jpWCvPhi7L4kywAcd", Name: "multiply", Content: "6"},
				},
			},
			{want: model.Response{
				Message:    assistant(model.TextPart("The results are:\n- 2 + 3 = 5\n- 2 × 3 = 6")),
				Usage:      usage(700, 31),
				StopReason: model.StopEndTurn,
			}},
		},
	},
	{
		file: thinkingDir + "/thinking.yaml", system: "You are a helpful assistant", prompt: "What's the weather in Florence, Italy?",
		tools: []model.ToolSpec{weatherTool}, maxTokens: 4096, thinking: 4000,
		turns: []recordedTurn{
			{
				want: model.Response{
					Message: assistant(
						model.ReasoningPart("The user is asking about the weather in Florence, Italy. I have a weather function available that takes a location parameter. The user has provided the location as \"Florence, Italy\" which is specific enough for the weather function. I have all the required parameters to make the function call.", sigWhole),
						call("toolu_014azqsWLU8Djh6RhmBGRC2u", "weather", `{"location":"Florence, Italy"}`)),
					Usage:      usage(424, 118),
					StopReason: model.StopToolUse,
				},
				results: []model.ToolResult{{CallID: "toolu_014azqsWLU8Djh6RhmBGRC2u", Name: "weather", Content: "40 C"}},
			},
			{want: model.Response{
				Message:    assistant(model.TextPart("The current temperature in Florence, Italy is 40°C (104°F). That's quite hot! Make sure to stay hydrated and seek shade or air conditioning if you're planning to be outdoors.")),
				Usage:      usage(557, 46),
				StopReason: model.StopEndTurn,
			}},
		},
	},
	{
		file: thinkingDir + "/thinking-streaming.yaml", stream: true, system: "You are a helpful assistant", prompt: "What's the weather in Florence, Italy?",
		tools: []model.ToolSpec{weatherTool}, maxTokens: 4096, thinking: 4000,
		turns: []recordedTurn{
			{
				want: model.Response{
					Message: assistant(
						model.ReasoningPart("The user is asking for weather information for Florence, Italy. I have access to a weather function that takes a location parameter. The user has provided the location as \"Florence, Italy\" which is specific enough for the weather function. I have all the required parameters to make the function call.", sigStreaming),
						call("toolu_01Js4AMfx5qpTLhwTusnvT68", "weather", `{"location":"Florence, Italy"}`)),
					Usage:      usage(424, 119),
					StopReason: model.StopToolUse,
				},
				results: []model.ToolResult{{CallID: "toolu_01Js4AMfx5qpTLhwTusnvT68", Name: "weather", Content: "40 C"}},
			},
			{want: model.Response{
				Message:    assistant(model.TextPart("The current weather in Florence, Italy is 40°C (104°F). That's quite hot! If you're planning to visit or are currently there, make sure to stay hydrated and seek shade or air conditioning when possible.")),
				Usage:      usage(558, 51),
				StopReason: model.StopEndTurn,
			}},
		},
	},
}

// TestRecordings replays every Anthropic recording, streamed and whole,
// through the provider against a loopback server. Each turn must assemble
// the recorded answer, and the request rein builds for the conversation
// (including the answer it assembled itself in the turn before, with its
// thinking signature) must equal the recorded request on the fields the
// API acts on.
func TestRecordings(t *testing.T) {
	for _, rec := range recordings {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(rec.file)))+"/"+filepath.Base(rec.file), func(t *testing.T) {
			t.Parallel()
			c, err := modeltest.LoadCassette(rec.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Interactions) != len(rec.turns) {
				t.Fatalf("cassette has %d interactions, the test describes %d turns", len(c.Interactions), len(rec.turns))
			}
			srv := modeltest.NewServer(t, modeltest.ReplayCassette(c)...)
			p := newProvider(t, srv.URL, func(cfg *anthropic.Config) { cfg.NoStreaming = !rec.stream })
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			msgs := []model.Message{model.UserText(rec.prompt)}
			for i, turn := range rec.turns {
				req := &model.Request{
					System:         rec.system,
					Messages:       msgs,
					Tools:          rec.tools,
					MaxTokens:      rec.maxTokens,
					ThinkingBudget: rec.thinking,
				}
				if len(rec.tools) > 0 {
					req.ToolChoice = model.ToolChoiceAuto
				}
				got, err := model.Collect(modeltest.CheckToolCallStarts(t, p.Stream(ctx, req), rec.stream))
				if err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
				if diff := cmp.Diff(&turn.want, got); diff != "" {
					t.Errorf("turn %d response mismatch (-want +got):\n%s", i, diff)
				}
				sent := srv.Requests()[i]
				checkHeaders(t, sent)
				if diff := cmp.Diff(requestFields(t, []byte(c.Interactions[i].Request.Body)), requestFields(t, sent.Body)); diff != "" {
					t.Errorf("turn %d request body differs from the recording (-recorded +sent):\n%s", i, diff)
				}
				msgs = append(msgs, got.Message)
				if len(turn.results) > 0 {
					msgs = append(msgs, model.ToolResults(turn.results...))
				}
			}
			if n := len(srv.Requests()); n != len(rec.turns) {
				t.Errorf("server got %d requests, want %d", n, len(rec.turns))
			}
		})
	}
}

// newProvider builds a provider for a loopback server with test-friendly
// HTTP settings: retries on a fake clock, a private circuit breaker.
func newProvider(t *testing.T, url string, edit ...func(*anthropic.Config)) *anthropic.Provider {
	t.Helper()
	cfg := anthropic.Config{
		BaseURL: url,
		APIKey:  testKey,
		Model:   sonnet,
		HTTP: transport.Config{
			Breaker: transport.NewBreaker(100, time.Minute),
			Sleep:   func(ctx context.Context, d time.Duration) error { return ctx.Err() },
		},
	}
	for _, e := range edit {
		e(&cfg)
	}
	p, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkHeaders verifies the headers the API requires and that the key
// travels only as x-api-key.
func checkHeaders(t *testing.T, r modeltest.Request) {
	t.Helper()
	if r.Method != "POST" || r.Path != "/v1/messages" {
		t.Errorf("request %s %s, want POST /v1/messages", r.Method, r.Path)
	}
	for k, want := range map[string]string{
		"X-Api-Key":         testKey,
		"Anthropic-Version": "2023-06-01",
		"Content-Type":      "application/json",
		"Authorization":     "",
	} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
}

// requestFields decodes a request body and keeps the fields the API acts
// on. disable_parallel_tool_use:false is the API default the recording
// client spelled out; rein leaves it implicit, so it is normalised away.
func requestFields(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body)
	}
	out := make(map[string]any)
	for _, k := range []string{"model", "max_tokens", "system", "messages", "tools", "tool_choice", "thinking", "stream"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	if tc, ok := out["tool_choice"].(map[string]any); ok && tc["disable_parallel_tool_use"] == false {
		delete(tc, "disable_parallel_tool_use")
	}
	return out
}
