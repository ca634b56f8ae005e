package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/transport"
)

// recorded returns interaction i of a cassette.
func recorded(t *testing.T, file string, i int) modeltest.Interaction {
	t.Helper()
	c, err := modeltest.LoadCassette(file)
	if err != nil {
		t.Fatal(err)
	}
	return c.Interactions[i]
}

// simpleStream is the recorded streamed answer to "Say hi in Portuguese".
func simpleStream(t *testing.T) string {
	return recorded(t, commonDir+"/simple_streaming.yaml", 0).Response.Body
}

// afterEvents returns the byte offset just past the n-th event of body.
func afterEvents(t *testing.T, body string, n int) int {
	t.Helper()
	off := 0
	for range n {
		i := strings.Index(body[off:], "\n\n")
		if i < 0 {
			t.Fatalf("body has fewer than %d events", n)
		}
		off += i + 2
	}
	return off
}

var hello = &model.Request{Messages: []model.Message{model.UserText("Say hi in Portuguese")}}

func collect(t *testing.T, p *anthropic.Provider, req *model.Request) (*model.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return model.Collect(p.Stream(ctx, req))
}

func TestErrorStatusNotRetried(t *testing.T) {
	tests := []struct {
		name string
		code int
		body string
		want *model.APIError
	}{
		{
			name: "401 bad key",
			code: 401,
			body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			want: &model.APIError{Provider: "anthropic", StatusCode: 401, Type: "authentication_error", Message: "invalid x-api-key", RequestID: "req_011CS"},
		},
		{
			name: "400 invalid request",
			code: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`,
			want: &model.APIError{Provider: "anthropic", StatusCode: 400, Type: "invalid_request_error", Message: "max_tokens: Field required", RequestID: "req_011CS"},
		},
		{
			name: "404 from a proxy that is not the API",
			code: 404,
			body: `<html><body>Not Found</body></html>`,
			want: &model.APIError{Provider: "anthropic", StatusCode: 404, Message: "Not Found: <html><body>Not Found</body></html>", RequestID: "req_011CS"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Status(tt.code, map[string]string{"request-id": "req_011CS"}, tt.body))
			p := newProvider(t, srv.URL)
			_, err := collect(t, p, hello)
			var apiErr *model.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T), want *model.APIError", err, err)
			}
			if diff := cmp.Diff(tt.want, apiErr, cmpopts.IgnoreFields(model.APIError{}, "Attempts")); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("server got %d requests, want exactly 1 (no retry)", n)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error text contains the API key: %v", err)
			}
		})
	}
}

func TestOverloadedRetriedWithBackoff(t *testing.T) {
	in := recorded(t, commonDir+"/simple_streaming.yaml", 0)
	srv := modeltest.NewServer(t, modeltest.Overloaded(), modeltest.Overloaded(), modeltest.Replay(in))
	var (
		mu     sync.Mutex
		delays []time.Duration
	)
	p := newProvider(t, srv.URL, func(c *anthropic.Config) {
		c.HTTP.Rand = func() float64 { return 0.5 }
		c.HTTP.Sleep = func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			delays = append(delays, d)
			return ctx.Err()
		}
	})
	resp, err := collect(t, p, hello)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Message.Text(), "Olá! (That's \"hi\" in Portuguese)\n\nYou could also say \"Oi!\" which is a more casual way to say hi in Portuguese."; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("server got %d requests, want 3 (two 529s, then success)", len(reqs))
	}
	for i := 1; i < len(reqs); i++ {
		if string(reqs[i].Body) != string(reqs[0].Body) {
			t.Errorf("retry %d sent a different body:\n%s\nfirst:\n%s", i, reqs[i].Body, reqs[0].Body)
		}
	}
	if len(delays) != 2 || delays[0] <= 0 || delays[1] <= delays[0] {
		t.Errorf("backoff delays %v, want two growing positive delays", delays)
	}
}

// streamStep answers 200 with an event-stream body written in one piece.
func streamStep(body string) modeltest.Step {
	return modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream", "request-id": "req_stream"}, body)
}

func TestInStreamError(t *testing.T) {
	body := sse(evStart, evTextStart, textDelta(0, "Olá"), evPing,
		`error {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	srv := modeltest.NewServer(t, streamStep(body))
	p := newProvider(t, srv.URL)
	resp, err := collect(t, p, hello)
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v (%T), want *model.APIError", err, err)
	}
	want := &model.APIError{Provider: "anthropic", StatusCode: 200, Type: "overloaded_error", Message: "Overloaded", RequestID: "req_stream", InStream: true}
	if diff := cmp.Diff(want, apiErr); diff != "" {
		t.Errorf("APIError (-want +got):\n%s", diff)
	}
	if got := resp.Message.Text(); got != "Olá" {
		t.Errorf("partial text %q, want %q", got, "Olá")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests, want 1: a stream that delivered bytes is never retried", n)
	}
}

func TestResetAfterFirstTokens(t *testing.T) {
	body := simpleStream(t)
	// message_start, content_block_start, ping, then two text deltas.
	srv := modeltest.NewServer(t, modeltest.ResetAfter(body, afterEvents(t, body, 5)))
	p := newProvider(t, srv.URL)
	resp, err := collect(t, p, hello)
	if !errors.Is(err, model.ErrIncompleteStream) {
		t.Fatalf("error %v, want one wrapping model.ErrIncompleteStream", err)
	}
	var connErr *model.ConnectError
	if errors.As(err, &connErr) {
		t.Errorf("a reset after the server answered is reported as unreachable server: %v", err)
	}
	if got := resp.Message.Text(); got != "Olá! (That" {
		t.Errorf("partial text %q, want the two deltas that arrived", got)
	}
	if resp.StopReason != "" {
		t.Errorf("partial answer has stop reason %q", resp.StopReason)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests, want 1: a stream that delivered bytes is never retried", n)
	}
}

func TestTruncatedStream(t *testing.T) {
	body := simpleStream(t)
	events := strings.Count(body, "\n\n")
	for _, tt := range []struct {
		name string
		n    int
		msg  string
	}{
		{"at an event boundary before message_stop", afterEvents(t, body, events-1), "without message_stop"},
		{"in the middle of an event", afterEvents(t, body, 4) + 30, "reading the stream failed"},
		{"right after the headers", 0, "after 0 events"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Truncate(body, tt.n))
			p := newProvider(t, srv.URL)
			_, err := collect(t, p, hello)
			if !errors.Is(err, model.ErrIncompleteStream) {
				t.Fatalf("error %v, want one wrapping model.ErrIncompleteStream", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}

func TestPingBetweenEveryEvent(t *testing.T) {
	body := simpleStream(t)
	const ping = "event: ping\ndata: {\"type\": \"ping\"}\n\n"
	pinged := ping + strings.ReplaceAll(body, "\n\n", "\n\n"+ping)
	srv := modeltest.NewServer(t, streamStep(body), streamStep(pinged))
	p := newProvider(t, srv.URL)
	ctx := context.Background()
	want, err := drain(p.Stream(ctx, hello))
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(p.Stream(ctx, hello))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events with pings differ (-without +with):\n%s", diff)
	}
}

func TestGarbage(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Garbage())
	p := newProvider(t, srv.URL)
	_, err := collect(t, p, hello)
	if !errors.Is(err, anthropic.ErrMalformedResponse) {
		t.Fatalf("error %v, want one wrapping ErrMalformedResponse", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests, want 1", n)
	}
}

func TestIdleTimeout(t *testing.T) {
	body := simpleStream(t)
	srv := modeltest.NewServer(t, modeltest.Stall(body, afterEvents(t, body, 4), time.Minute))
	p := newProvider(t, srv.URL, func(c *anthropic.Config) { c.HTTP.IdleTimeout = 100 * time.Millisecond })
	start := time.Now()
	resp, err := collect(t, p, hello)
	if !errors.Is(err, transport.ErrIdleTimeout) || !errors.Is(err, model.ErrIncompleteStream) {
		t.Fatalf("error %v, want one wrapping transport.ErrIdleTimeout and model.ErrIncompleteStream", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("idle timeout took %v", d)
	}
	if got := resp.Message.Text(); got != "Olá! (" {
		t.Errorf("partial text %q", got)
	}
}

func TestCancelMidStream(t *testing.T) {
	body := simpleStream(t)
	srv := modeltest.NewServer(t, modeltest.Stall(body, afterEvents(t, body, 4), time.Minute))
	p := newProvider(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	var err error
	for ev, e := range p.Stream(ctx, hello) {
		if e != nil {
			err = e
			break
		}
		if ev.Kind == model.EventTextDelta {
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one wrapping context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestEarlyBreak checks that a consumer that stops iterating releases the
// request: the next request on the same provider is served normally.
func TestEarlyBreak(t *testing.T) {
	body := simpleStream(t)
	srv := modeltest.NewServer(t, modeltest.Stall(body, afterEvents(t, body, 4), time.Minute), streamStep(body))
	p := newProvider(t, srv.URL)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range p.Stream(context.Background(), hello) {
			break
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("breaking out of the stream did not return")
	}
	if _, err := collect(t, p, hello); err != nil {
		t.Fatal(err)
	}
}

// TestWholeMessageForStreamRequest covers a gateway that ignores stream:true
// and answers with one JSON message.
func TestWholeMessageForStreamRequest(t *testing.T) {
	in := recorded(t, commonDir+"/simple.yaml", 0)
	srv := modeltest.NewServer(t, modeltest.JSON(in.Response.Body))
	p := newProvider(t, srv.URL)
	resp, err := collect(t, p, hello)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Message.Text(), "Olá!") || resp.StopReason != model.StopEndTurn {
		t.Errorf("response %+v", resp)
	}
}

func TestNonStreamingFaults(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.JSON(`{"type":"message","content":[{"type":"text"`), modeltest.JSON(`{"type":"error","error":{"type":"api_error","message":"boom"}}`))
	p := newProvider(t, srv.URL, func(c *anthropic.Config) { c.NoStreaming = true })
	if _, err := collect(t, p, hello); !errors.Is(err, anthropic.ErrMalformedResponse) {
		t.Errorf("truncated JSON: error %v, want ErrMalformedResponse", err)
	}
	_, err := collect(t, p, hello)
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) || apiErr.Type != "api_error" || apiErr.Message != "boom" {
		t.Errorf("error body under 200: %v, want APIError api_error", err)
	}
	if h := srv.Requests()[0].Header.Get("Accept"); h != "application/json" {
		t.Errorf("non-streaming Accept %q", h)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil || body["stream"] != nil {
		t.Errorf("non-streaming request has stream=%v (%v)", body["stream"], err)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := newProvider(t, "http://"+addr, func(c *anthropic.Config) { c.HTTP.MaxRetries = 1 })
	_, err = collect(t, p, hello)
	var connErr *model.ConnectError
	if !errors.As(err, &connErr) {
		t.Fatalf("error %v (%T), want *model.ConnectError", err, err)
	}
	if !strings.Contains(err.Error(), addr) || strings.Contains(err.Error(), testKey) {
		t.Errorf("error %q should name %s and not the key", err, addr)
	}
}

func TestInvalidRequestNotSent(t *testing.T) {
	srv := modeltest.NewServer(t)
	p := newProvider(t, srv.URL)
	req := &model.Request{Messages: hello.Messages, Extra: map[string]any{"stream": false}}
	_, err := collect(t, p, req)
	if !errors.Is(err, anthropic.ErrInvalidRequest) {
		t.Fatalf("error %v, want ErrInvalidRequest", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server got %d requests for an invalid request", n)
	}
}
