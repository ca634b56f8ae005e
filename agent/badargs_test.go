package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/openai"
	"github.com/reinharness/rein/tool"
)

// marshalJournal encodes every event as a persisted journal would, so a
// tool call whose arguments are not JSON fails the run if it ever reaches
// an event.
type marshalJournal struct {
	mu    sync.Mutex
	types []EventType
}

func (j *marshalJournal) Append(_ context.Context, ev Event) error {
	if _, err := json.Marshal(ev); err != nil {
		return err
	}
	j.mu.Lock()
	j.types = append(j.types, ev.Type)
	j.mu.Unlock()
	return nil
}

// badArgsRun runs the agent against a loopback model server whose first
// answer requests calls with unusable arguments and whose second answers
// with text. It returns the tool results and the second request's body.
func badArgsRun(t *testing.T, p model.Provider, srv *modeltest.Server, calls int) ([]model.ToolResult, []byte, *marshalJournal) {
	t.Helper()
	ran := 0
	f := newTool("f", func(context.Context, json.RawMessage) (*tool.Result, error) {
		ran++
		return &tool.Result{Content: "ran"}, nil
	})
	j := &marshalJournal{}
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, f), Journal: j})
	c := NewConversation("s")
	ctx, cancel := context.WithTimeout(context.Background(), 10e9)
	defer cancel()
	out, err := a.RunToEnd(ctx, c, "go")
	if err != nil || out.Kind != Complete || out.Text != "ok" {
		t.Fatalf("run ended %+v, %v; want complete with the second answer", out, err)
	}
	if ran != 0 {
		t.Errorf("the tool ran %d times with unusable arguments", ran)
	}
	res := toolMessages(c.Messages())
	if len(res) != calls {
		t.Fatalf("%d results, want %d", len(res), calls)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	return res, reqs[1].Body, j
}

// TestNonObjectArgumentsOpenAI: arguments that are an array, broken JSON or
// a number used to end the run ("arguments are not a JSON object"); now
// each call gets an is_error result naming the problem, the run goes on,
// and the next request carries valid JSON for the recorded calls.
func TestNonObjectArgumentsOpenAI(t *testing.T) {
	first := "data: " + `{"choices":[{"index":0,"delta":{"tool_calls":[` +
		`{"index":0,"id":"a","function":{"name":"f","arguments":"[1,2]"}},` +
		`{"index":1,"id":"b","function":{"name":"f","arguments":"\"not json"}},` +
		`{"index":2,"id":"c","function":{"name":"f","arguments":"42"}}]},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	second := "data: " + `{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	sse := map[string]string{"Content-Type": "text/event-stream"}
	srv := modeltest.NewServer(t, modeltest.Status(200, sse, first), modeltest.Status(200, sse, second))
	p, err := openai.New(openai.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	res, body, j := badArgsRun(t, p, srv, 3)
	for i, want := range []string{"must be a JSON object, not an array", "not valid JSON", "must be a JSON object, not a number"} {
		if !res[i].IsError || !strings.Contains(res[i].Content, want) {
			t.Errorf("result %d = %+v, want an error mentioning %q", i, res[i], want)
		}
	}
	var req struct {
		Messages []struct {
			Role      string `json:"role"`
			Content   any    `json:"content"`
			ToolCalls []struct {
				Function struct {
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var args, errs []string
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			args = append(args, c.Function.Arguments)
		}
		if s, ok := m.Content.(string); ok && m.Role == "tool" {
			errs = append(errs, s)
		}
	}
	if strings.Join(args, " ") != "{} {} {}" {
		t.Errorf("next request sends arguments %q, want {} for each call", args)
	}
	for _, e := range errs {
		if !strings.HasPrefix(e, "Error: ") {
			t.Errorf("tool message %q is not marked as an error", e)
		}
	}
	checkStartedEvents(t, j, 3)
}

// TestNonObjectArgumentsAnthropic is the same for tool_use input that is
// no JSON object.
func TestNonObjectArgumentsAnthropic(t *testing.T) {
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }
	first := ev("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"[1, 2]"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	second := ev("message_start", `{"type":"message_start","message":{"id":"m2","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	sse := map[string]string{"Content-Type": "text/event-stream"}
	srv := modeltest.NewServer(t, modeltest.Status(200, sse, first), modeltest.Status(200, sse, second))
	p, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "test-key", Model: "claude-test"})
	if err != nil {
		t.Fatal(err)
	}
	res, body, j := badArgsRun(t, p, srv, 1)
	if !res[0].IsError || !strings.Contains(res[0].Content, "must be a JSON object, not an array") {
		t.Errorf("result %+v, want an error naming the array", res[0])
	}
	var req struct {
		Messages []struct {
			Content []struct {
				Type    string          `json:"type"`
				Input   json.RawMessage `json:"input"`
				IsError bool            `json:"is_error"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var input string
	isError := false
	for _, m := range req.Messages {
		for _, b := range m.Content {
			switch b.Type {
			case "tool_use":
				input = string(b.Input)
			case "tool_result":
				isError = b.IsError
			}
		}
	}
	if input != "{}" || !isError {
		t.Errorf("next request sends input %q and is_error %v; want {} and true", input, isError)
	}
	checkStartedEvents(t, j, 1)
}

// checkStartedEvents checks that the run reported n tool.call.started
// events, each before the tool.call events.
func checkStartedEvents(t *testing.T, j *marshalJournal, n int) {
	t.Helper()
	started, firstCall := 0, -1
	for i, typ := range j.types {
		switch typ {
		case EventToolCallStarted:
			started++
			if firstCall >= 0 {
				t.Errorf("tool.call.started at %d after a tool.call at %d", i, firstCall)
			}
		case EventToolCall:
			if firstCall < 0 {
				firstCall = i
			}
		}
	}
	if started != n {
		t.Errorf("%d tool.call.started events, want %d: %v", started, n, j.types)
	}
}
