package openai_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/openai"
)

const okStream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

// sentBody sends req through a provider and returns the decoded body the
// server received.
func sentBody(t *testing.T, req *model.Request, mutate func(*openai.Config)) (map[string]any, modeltest.Request) {
	t.Helper()
	srv := modeltest.NewServer(t, modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream"}, okStream))
	p := newProvider(t, srv.URL, mutate)
	if _, err := model.Collect(p.Stream(t.Context(), req)); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests", len(reqs))
	}
	return normJSON(t, reqs[0].Body).(map[string]any), reqs[0]
}

func TestRequestEncoding(t *testing.T) {
	seed := int64(42)
	req := &model.Request{
		System: "be brief",
		Messages: []model.Message{
			model.SystemText("history note"),
			{Role: model.RoleUser, Parts: []model.Part{model.TextPart("part one"), model.TextPart("part two")}},
			{Role: model.RoleAssistant, Parts: []model.Part{
				model.ReasoningPart("think ", ""), model.ReasoningPart("more", "sig"),
				model.TextPart("calling"),
				model.ToolCallPart(model.ToolCall{ID: "c1", Name: "read", Args: json.RawMessage(`{"path":"a"}`)}),
				model.ToolCallPart(model.ToolCall{ID: "c2", Name: "list"}),
			}},
			model.ToolResults(
				model.ToolResult{CallID: "c1", Name: "read", Content: "file a"},
				model.ToolResult{CallID: "c2", Name: "list", Content: "denied", IsError: true}),
			{Role: model.RoleAssistant, Parts: []model.Part{
				model.ToolCallPart(model.ToolCall{ID: "c3", Name: "read", Args: json.RawMessage(`{}`)})}},
			{Role: model.RoleUser, Parts: []model.Part{
				model.ToolResultPart(model.ToolResult{CallID: "c3", Content: "x"}), model.TextPart("now answer")}},
		},
		Tools:           []model.ToolSpec{weatherTool, {Name: "noargs"}},
		ToolChoice:      "weather",
		Temperature:     f64(0.2),
		TopP:            f64(0.9),
		MaxTokens:       512,
		Stop:            []string{"END"},
		Seed:            &seed,
		ResponseFormat:  json.RawMessage(`{"type":"json_schema","json_schema":{"name":"x","schema":{}}}`),
		ReasoningEffort: "low",
		Extra:           map[string]any{"top_k": 40, "temperature": 0.7},
	}
	got, _ := sentBody(t, req, func(c *openai.Config) { c.Model = "default-model" })
	want := normJSON(t, []byte(`{
		"model": "default-model",
		"messages": [
			{"role":"system","content":"be brief"},
			{"role":"system","content":"history note"},
			{"role":"user","content":"part one\n\npart two"},
			{"role":"assistant","content":"calling","reasoning_content":"think more","tool_calls":[
				{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}},
				{"id":"c2","type":"function","function":{"name":"list","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"c1","content":"file a"},
			{"role":"tool","tool_call_id":"c2","content":"Error: denied"},
			{"role":"assistant","content":null,"tool_calls":[
				{"id":"c3","type":"function","function":{"name":"read","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"c3","content":"x"},
			{"role":"user","content":"now answer"}
		],
		"tools": [
			{"type":"function","function":{"name":"weather","description":"Get weather information for a location",
				"parameters":{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}}},
			{"type":"function","function":{"name":"noargs","parameters":{"type":"object","properties":{}}}}
		],
		"tool_choice": {"type":"function","function":{"name":"weather"}},
		"temperature": 0.7, "top_p": 0.9, "max_tokens": 512, "stop": ["END"], "seed": 42, "top_k": 40,
		"response_format": {"type":"json_schema","json_schema":{"name":"x","schema":{}}},
		"reasoning_effort": "low",
		"stream": true, "stream_options": {"include_usage": true}
	}`))
	if diff := cmp.Diff(want, any(got)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestRequestToolChoiceAndModel(t *testing.T) {
	tests := []struct {
		choice model.ToolChoice
		want   any
	}{
		{model.ToolChoiceAuto, "auto"},
		{model.ToolChoiceNone, "none"},
		{model.ToolChoiceRequired, "required"},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.choice), func(t *testing.T) {
			got, _ := sentBody(t, &model.Request{Model: "m2", Messages: []model.Message{model.UserText("hi")},
				Tools: []model.ToolSpec{weatherTool}, ToolChoice: tt.choice}, func(c *openai.Config) { c.Model = "m1" })
			if diff := cmp.Diff(tt.want, got["tool_choice"]); diff != "" {
				t.Errorf("tool_choice (-want +got):\n%s", diff)
			}
			if got["model"] != "m2" {
				t.Errorf("model = %v, want the request's m2 over the default", got["model"])
			}
		})
	}
}

func TestRequestHeaders(t *testing.T) {
	_, r := sentBody(t, hello(), func(c *openai.Config) { c.Headers = map[string]string{"X-Gateway": "g1"} })
	got := map[string]string{
		"Authorization": r.Header.Get("Authorization"),
		"X-Gateway":     r.Header.Get("X-Gateway"),
		"Content-Type":  r.Header.Get("Content-Type"),
		"Accept":        r.Header.Get("Accept"),
		"path":          r.Path,
	}
	want := map[string]string{"Authorization": "", "X-Gateway": "g1", "Content-Type": "application/json",
		"Accept": "text/event-stream", "path": "/v1/chat/completions"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}

func TestRequestNoStreaming(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.JSON(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`))
	p := newProvider(t, srv.URL, func(c *openai.Config) { c.NoStreaming = true })
	resp, err := model.Collect(p.Stream(t.Context(), hello()))
	if err != nil || resp.Message.Text() != "ok" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	body := normJSON(t, srv.Requests()[0].Body).(map[string]any)
	if _, ok := body["stream"]; ok {
		t.Errorf("non-streaming request sent stream: %v", body)
	}
	if _, ok := body["stream_options"]; ok {
		t.Errorf("non-streaming request sent stream_options: %v", body)
	}
}

// TestInvalidRequests checks that requests the provider cannot send fail
// with a clear error before any network traffic (the server has no steps,
// so any request would fail the test).
func TestInvalidRequests(t *testing.T) {
	user := []model.Message{model.UserText("hi")}
	tests := []struct {
		name string
		req  *model.Request
		want string
	}{
		{"nil", nil, "nil Request"},
		{"reserved extra", &model.Request{Messages: user, Extra: map[string]any{"stream": false}}, `Request.Extra sets "stream"`},
		{"reserved extra messages", &model.Request{Messages: user, Extra: map[string]any{"messages": nil}}, `"messages"`},
		{"unencodable extra", &model.Request{Messages: user, Extra: map[string]any{"x": func() {}}}, `Request.Extra["x"]`},
		{"unknown role", &model.Request{Messages: []model.Message{{Role: "robot"}}}, `message 0: unknown role "robot"`},
		{"call without id", &model.Request{Messages: []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{
			model.ToolCallPart(model.ToolCall{Name: "f"})}}}}, "no id or name"},
		{"invalid args", &model.Request{Messages: []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{
			model.ToolCallPart(model.ToolCall{ID: "a", Name: "f", Args: json.RawMessage(`{"x":`)})}}}}, "not valid JSON"},
		{"result without call id", &model.Request{Messages: []model.Message{model.ToolResults(model.ToolResult{Content: "x"})}}, "no call id"},
		{"result in assistant", &model.Request{Messages: []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{
			model.ToolResultPart(model.ToolResult{CallID: "a"})}}}}, "assistant message carries a tool result"},
		{"call in user", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Parts: []model.Part{
			model.ToolCallPart(model.ToolCall{ID: "a", Name: "f"})}}}}, "only assistant messages may"},
		{"tool without name", &model.Request{Messages: user, Tools: []model.ToolSpec{{Description: "x"}}}, "a tool has no name"},
		{"bad schema", &model.Request{Messages: user, Tools: []model.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`{`)}}}, `tool "t"`},
		{"bad response format", &model.Request{Messages: user, ResponseFormat: json.RawMessage(`nope`)}, "ResponseFormat"},
	}
	srv := modeltest.NewServer(t)
	p := newProvider(t, srv.URL, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.Collect(p.Stream(t.Context(), tt.req))
			if !errors.Is(err, openai.ErrInvalidRequest) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want ErrInvalidRequest mentioning %q", err, tt.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("invalid requests reached the server %d times", n)
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct{ suffix, path string }{
		{"", "/v1/chat/completions"},
		{"/", "/v1/chat/completions"},
		{"/v1", "/v1/chat/completions"},
		{"/v1/", "/v1/chat/completions"},
		{"/v1/chat/completions", "/v1/chat/completions"},
		{"/api/v1", "/api/v1/chat/completions"},
		{"/openai", "/openai/chat/completions"},
	}
	for _, tt := range tests {
		t.Run(tt.suffix, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream"}, okStream))
			p := newProvider(t, srv.URL+tt.suffix, nil)
			if _, err := model.Collect(p.Stream(t.Context(), hello())); err != nil {
				t.Fatal(err)
			}
			if got := srv.Requests()[0].Path; got != tt.path {
				t.Errorf("path = %q, want %q", got, tt.path)
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  openai.Config
		want string
	}{
		{"empty", openai.Config{}, "BaseURL is empty"},
		{"no scheme", openai.Config{BaseURL: "127.0.0.1:8080"}, "not an http(s) URL"},
		{"ftp", openai.Config{BaseURL: "ftp://host"}, "not an http(s) URL"},
		{"no host", openai.Config{BaseURL: "http:///v1"}, "not an http(s) URL"},
		{"credentials", openai.Config{BaseURL: "http://user:hunter2@host"}, "carries credentials"},
		{"query", openai.Config{BaseURL: "http://host/v1?key=abc"}, "query or fragment"},
		{"window", openai.Config{BaseURL: "http://host", ContextWindow: -1}, "ContextWindow"},
		{"header", openai.Config{BaseURL: "http://host", Headers: map[string]string{"Bad Name": "x"}}, `header "Bad Name"`},
		{"header value", openai.Config{BaseURL: "http://host", Headers: map[string]string{"X": "a\r\nInjected: y"}}, `header "X"`},
		{"key", openai.Config{BaseURL: "http://host", APIKey: "sk-abc\n"}, "API key contains"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openai.New(tt.cfg)
			if !errors.Is(err, openai.ErrBadConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want ErrBadConfig mentioning %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "key=abc") || strings.Contains(err.Error(), "sk-abc") {
				t.Errorf("error leaks a secret: %v", err)
			}
		})
	}
}

// TestToolErrorsAreMarked: Chat Completions has no is_error flag, so a
// failed call's result goes out with an "Error: " prefix — once, whatever
// produced it — and a successful one unchanged.
func TestToolErrorsAreMarked(t *testing.T) {
	results := []model.ToolResult{
		{CallID: "c1", Content: "no such file", IsError: true},
		{CallID: "c2", Content: "Error: already marked", IsError: true},
		{CallID: "c3", Content: " error: mcp said so", IsError: true},
		{CallID: "c4", Content: "", IsError: true},
		{CallID: "c5", Content: "Error: is just a value here"},
		{CallID: "c6", Content: "ErrorCode 7", IsError: true},
	}
	var calls []model.Part
	for _, r := range results {
		calls = append(calls, model.ToolCallPart(model.ToolCall{ID: r.CallID, Name: "t", Args: json.RawMessage(`{}`)}))
	}
	req := &model.Request{Messages: []model.Message{
		model.UserText("go"),
		{Role: model.RoleAssistant, Parts: calls},
		model.ToolResults(results...),
	}}
	_, sent := sentBody(t, req, nil)
	var body struct {
		Messages []struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(sent.Body, &body); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range body.Messages {
		if m.Role == "tool" {
			got = append(got, *m.Content)
		}
	}
	want := []string{"Error: no such file", "Error: already marked", " error: mcp said so",
		"Error: the tool call failed", "Error: is just a value here", "Error: ErrorCode 7"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tool message contents (-want +got):\n%s", d)
	}
}
