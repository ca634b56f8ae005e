package openai_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/openai"
	"github.com/reinharness/rein/model/transport"
)

// fixtures is where the recorded cassettes live (see its README).
const fixtures = "../modeltest/testdata"

func loadCassette(t testing.TB, rel string) *modeltest.Cassette {
	t.Helper()
	c, err := modeltest.LoadCassette(filepath.Join(fixtures, rel))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fastHTTP is a retry policy for tests: real retries, tiny delays, and a
// breaker of the test's own so tests cannot trip each other's.
func fastHTTP() transport.Config {
	return transport.Config{
		MaxRetries:    3,
		BaseDelay:     time.Millisecond,
		MaxDelay:      5 * time.Millisecond,
		MaxRetryAfter: 5 * time.Second,
		Breaker:       transport.NewBreaker(100, time.Minute),
	}
}

// newProvider returns a provider for srv; mutate adjusts the config.
func newProvider(t testing.TB, url string, mutate func(*openai.Config)) *openai.Provider {
	t.Helper()
	cfg := openai.Config{BaseURL: url, HTTP: fastHTTP()}
	if mutate != nil {
		mutate(&cfg)
	}
	p, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// collectEvents drains a stream into its events and final error.
func collectEvents(seq func(func(model.Event, error) bool)) ([]model.Event, error) {
	var evs []model.Event
	for ev, err := range seq {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// normJSON decodes JSON for semantic comparison, failing the test on
// invalid input.
func normJSON(t testing.TB, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("invalid JSON %q: %v", data, err)
	}
	return v
}

func f64(v float64) *float64 { return &v }

var weatherTool = model.ToolSpec{
	Name:        "weather",
	Description: "Get weather information for a location",
	InputSchema: json.RawMessage(`{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`),
}

var addTool = model.ToolSpec{
	Name:        "add",
	Description: "Add two numbers",
	InputSchema: json.RawMessage(`{"properties":{"a":{"description":"first number","type":"integer"},"b":{"description":"second number","type":"integer"}},"required":["a","b"],"type":"object"}`),
}

var multiplyTool = model.ToolSpec{
	Name:        "multiply",
	Description: "Multiply two numbers",
	InputSchema: json.RawMessage(`{"properties":{"a":{"description":"first number","type":"integer"},"b":{"description":"second number","type":"integer"}},"required":["a","b"],"type":"object"}`),
}

var bostonTool = model.ToolSpec{
	Name:        "get_current_weather",
	Description: "Get the current weather in a given location",
	InputSchema: json.RawMessage(`{"properties":{"location":{"description":"The city and state, e.g. San Francisco, CA","type":"string"},"unit":{"enum":["celsius","fahrenheit"],"type":"string"}},"required":["location"],"type":"object"}`),
}

// Response builders for expectations.

func reasoning(s string) model.Part { return model.ReasoningPart(s, "") }

func text(s string) model.Part { return model.TextPart(s) }

func call(id, name, args string) model.Part {
	return model.ToolCallPart(model.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)})
}

func response(stop model.StopReason, usage model.Usage, parts ...model.Part) *model.Response {
	return &model.Response{Message: model.Message{Role: model.RoleAssistant, Parts: parts}, Usage: usage, StopReason: stop}
}

// openaiUsage is usage as OpenAI reports it (no cache hits in these
// recordings).
func openaiUsage(in, out, reasoning int) model.Usage {
	return model.Usage{InputTokens: in, OutputTokens: out, ReasoningTokens: reasoning}
}

// llamaUsage is usage with llama.cpp's timings block.
func llamaUsage(in, out int, t model.Timings) model.Usage {
	return model.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: t.CacheN, Timings: &t}
}
