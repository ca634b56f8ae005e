package openai_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/openai"
	"github.com/reinharness/rein/model/transport"
)

// toolStream is a recorded llama.cpp stream: reasoning, then a tool call
// in fragments, finish_reason, usage and [DONE].
func toolStream(t testing.TB) string {
	return loadCassette(t, "fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool_streaming.yaml").Interactions[0].Response.Body
}

// afterEvents returns the offset just past the first k events of body.
func afterEvents(body string, k int) int {
	off := 0
	for range k {
		i := strings.Index(body[off:], "\n\n")
		if i < 0 {
			return len(body)
		}
		off += i + 2
	}
	return off
}

func hello() *model.Request {
	return &model.Request{Messages: []model.Message{model.UserText("hi")}}
}

func TestUnauthorizedIsNotRetried(t *testing.T) {
	const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"
	body := `{"error":{"message":"Incorrect API key provided: ` + key + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	srv := modeltest.NewServer(t, modeltest.Status(401, map[string]string{"X-Request-Id": "req_401"}, body))
	p := newProvider(t, srv.URL, func(c *openai.Config) { c.APIKey = key })

	_, err := model.Collect(p.Stream(t.Context(), hello()))
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v, want *model.APIError", err)
	}
	got := []any{apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.RequestID, apiErr.InStream}
	want := []any{401, "invalid_request_error", "invalid_api_key", "req_401", false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("APIError fields (-want +got):\n%s", diff)
	}
	if strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "abcdefghijklmnop") {
		t.Errorf("error leaks the API key: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want exactly 1 (401 is not retried)", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Errorf("Authorization = %q, want the bearer key", got)
	}
}

func TestRetriedStatuses(t *testing.T) {
	ok := loadCassette(t, "fantasy/TestOpenAICommon/openai-gpt-4o/simple_streaming.yaml").Interactions[0]
	tests := []struct {
		name  string
		steps []modeltest.Step
	}{
		{"429 with Retry-After", []modeltest.Step{modeltest.RateLimited(10 * time.Millisecond), modeltest.Replay(ok)}},
		{"529 overloaded", []modeltest.Step{modeltest.Overloaded(), modeltest.Replay(ok)}},
		{"500 then 503", []modeltest.Step{
			modeltest.Status(500, nil, `{"error":{"message":"boom","type":"server_error"}}`),
			modeltest.Status(503, map[string]string{"Content-Type": "text/html"}, "<html>unavailable</html>"),
			modeltest.Replay(ok)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, tt.steps...)
			p := newProvider(t, srv.URL, nil)
			resp, err := model.Collect(p.Stream(t.Context(), &model.Request{Model: "gpt-4o", Messages: []model.Message{model.UserText("hi")}}))
			if err != nil {
				t.Fatalf("Collect: %v", err)
			}
			if got := resp.Message.Text(); got != "Olá!" {
				t.Errorf("text = %q, want the answer after the retries", got)
			}
			if got, want := len(srv.Requests()), len(tt.steps); got != want {
				t.Errorf("server saw %d requests, want %d", got, want)
			}
		})
	}
}

func TestErrorAfterRetriesGiveUp(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.Status(502, map[string]string{"Content-Type": "text/html"}, "<html><body>Bad gateway</body></html>"),
		modeltest.Status(502, map[string]string{"Content-Type": "text/html"}, "<html><body>Bad gateway</body></html>"))
	p := newProvider(t, srv.URL, func(c *openai.Config) { c.HTTP.MaxRetries = 1 })
	_, err := model.Collect(p.Stream(t.Context(), hello()))
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || !strings.Contains(apiErr.Message, "Bad Gateway") {
		t.Fatalf("error = %v, want a 502 APIError naming the status", err)
	}
	if got := len(srv.Requests()); got != 2 {
		t.Errorf("server saw %d requests, want 2", got)
	}
}

// TestResetMidStream checks that a connection reset after the first tokens
// is an error, is not retried, and that what arrived is not presented as a
// complete answer.
func TestResetMidStream(t *testing.T) {
	body := toolStream(t)
	n := strings.Index(body, `"reasoning_content":" Florence"`) // several tokens in
	srv := modeltest.NewServer(t, modeltest.ResetAfter(body, n))
	p := newProvider(t, srv.URL, nil)

	resp, err := model.Collect(p.Stream(t.Context(), hello()))
	if !errors.Is(err, model.ErrIncompleteStream) {
		t.Fatalf("error = %v, want ErrIncompleteStream", err)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("server saw %d requests, want 1 (never retry after bytes arrived)", got)
	}
	if resp.StopReason != "" || len(resp.Message.ToolCalls()) != 0 {
		t.Errorf("partial response presented as complete: %+v", resp)
	}
	if len(resp.Message.Parts) == 0 || !strings.HasPrefix(resp.Message.Parts[0].Text, "User wants weather in") {
		t.Errorf("partial reasoning = %+v, want the tokens that arrived", resp.Message.Parts)
	}
}

func TestTruncatedStreams(t *testing.T) {
	body := toolStream(t)
	finish := strings.Index(body, `"finish_reason":"tool_calls"`)
	beforeFinish := strings.LastIndex(body[:finish], "data: ")
	usage := strings.Index(body, `"usage"`)
	beforeUsage := strings.LastIndex(body[:usage], "data: ")
	done := strings.Index(body, "data: [DONE]")
	tests := []struct {
		name string
		n    int
	}{
		{"empty body", 0},
		{"inside a chunk", beforeFinish + 20},
		{"before finish_reason", beforeFinish},
		{"after finish_reason", beforeUsage},
		{"after usage, before [DONE]", done},
		{"inside [DONE]", done + 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Truncate(body, tt.n))
			p := newProvider(t, srv.URL, nil)
			resp, err := model.Collect(p.Stream(t.Context(), hello()))
			if !errors.Is(err, model.ErrIncompleteStream) {
				t.Fatalf("error = %v, want ErrIncompleteStream", err)
			}
			if resp.StopReason != "" {
				t.Errorf("truncated stream reported stop reason %q", resp.StopReason)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("server saw %d requests, want 1", len(srv.Requests()))
			}
		})
	}
}

func TestGarbageStream(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Garbage())
	p := newProvider(t, srv.URL, nil)
	_, err := model.Collect(p.Stream(t.Context(), hello()))
	if !errors.Is(err, openai.ErrMalformedResponse) {
		t.Fatalf("error = %v, want ErrMalformedResponse", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "not valid JSON") || !strings.Contains(msg, "<!doctype html>") {
		t.Errorf("error %q should say the chunk is not JSON and quote it", msg)
	}
}

func TestWrongContentType(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Status(200, map[string]string{"Content-Type": "text/html"}, "<html>login</html>"))
	p := newProvider(t, srv.URL, nil)
	_, err := model.Collect(p.Stream(t.Context(), hello()))
	if !errors.Is(err, openai.ErrMalformedResponse) || !strings.Contains(err.Error(), `Content-Type "text/html"`) {
		t.Fatalf("error = %v, want ErrMalformedResponse naming the content type", err)
	}
}

// TestStreamAnsweredWithJSON covers servers that ignore "stream": true.
func TestStreamAnsweredWithJSON(t *testing.T) {
	in := loadCassette(t, "fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/simple.yaml").Interactions[0]
	srv := modeltest.NewServer(t, modeltest.Status(200, nil, in.Response.Body))
	p := newProvider(t, srv.URL, nil)
	resp, err := model.Collect(p.Stream(t.Context(), hello()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "Olá!" || resp.StopReason != model.StopEndTurn {
		t.Errorf("response = %+v", resp)
	}
}

func TestInStreamError(t *testing.T) {
	tests := []struct {
		name, body string
		want       model.APIError
	}{
		{"error chunk", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
			"data: {\"error\":{\"message\":\"the model crashed\",\"type\":\"server_error\",\"code\":500}}\n\n",
			model.APIError{Provider: "openai", StatusCode: 200, Type: "server_error", Code: "500", Message: "the model crashed", RequestID: "req_s", InStream: true}},
		{"error event", "event: error\ndata: {\"message\":\"context length exceeded\",\"type\":\"invalid_request_error\"}\n\n",
			model.APIError{Provider: "openai", StatusCode: 200, Type: "invalid_request_error", Message: "context length exceeded", RequestID: "req_s", InStream: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream", "X-Request-Id": "req_s"}, tt.body))
			p := newProvider(t, srv.URL, nil)
			_, err := model.Collect(p.Stream(t.Context(), hello()))
			var apiErr *model.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v, want *model.APIError", err)
			}
			if diff := cmp.Diff(&tt.want, apiErr); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestIdleStall(t *testing.T) {
	body := toolStream(t)
	n := afterEvents(body, 3)
	t.Run("times out", func(t *testing.T) {
		srv := modeltest.NewServer(t, modeltest.Stall(body, n, time.Hour))
		p := newProvider(t, srv.URL, func(c *openai.Config) { c.HTTP.IdleTimeout = 100 * time.Millisecond })
		start := time.Now()
		_, err := model.Collect(p.Stream(t.Context(), hello()))
		if !errors.Is(err, transport.ErrIdleTimeout) || !errors.Is(err, model.ErrIncompleteStream) {
			t.Fatalf("error = %v, want an idle timeout on an incomplete stream", err)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("took %v to notice a 100ms idle timeout", el)
		}
	})
	t.Run("short pause is fine", func(t *testing.T) {
		srv := modeltest.NewServer(t, modeltest.Stall(body, n, 20*time.Millisecond))
		p := newProvider(t, srv.URL, func(c *openai.Config) { c.HTTP.IdleTimeout = 2 * time.Second })
		if _, err := model.Collect(p.Stream(t.Context(), hello())); err != nil {
			t.Fatalf("a pause shorter than the idle timeout failed the stream: %v", err)
		}
	})
}

func TestCancelEndsPromptly(t *testing.T) {
	body := toolStream(t)
	srv := modeltest.NewServer(t, modeltest.Stall(body, afterEvents(body, 3), time.Hour))
	p := newProvider(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var (
		events  int
		lastErr error
		start   time.Time
	)
	for ev, err := range p.Stream(ctx, hello()) {
		if err != nil {
			lastErr = err
			break
		}
		if ev.Kind != 0 && events == 0 {
			start = time.Now()
			cancel()
		}
		events++
	}
	if !errors.Is(lastErr, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", lastErr)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("stream ended %v after cancel", el)
	}
}

func TestConnectError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	p := newProvider(t, "http://"+addr, func(c *openai.Config) { c.HTTP.MaxRetries = -1 })
	_, err = model.Collect(p.Stream(t.Context(), hello()))
	var ce *model.ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v, want *model.ConnectError", err)
	}
	if !strings.Contains(ce.Endpoint, addr) {
		t.Errorf("endpoint %q does not name %s", ce.Endpoint, addr)
	}
}
