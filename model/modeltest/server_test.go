package modeltest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// recordingTB captures Errorf calls so tests can check the failures the
// server reports without failing themselves.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func post(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestReplayAllCassettes replays every recording and checks that status,
// content type and body arrive byte for byte, and that the server recorded
// each request.
func TestReplayAllCassettes(t *testing.T) {
	for _, p := range allCassettes(t) {
		t.Run(p, func(t *testing.T) {
			c, err := modeltest.LoadCassette(p)
			if err != nil {
				t.Fatal(err)
			}
			srv := modeltest.NewServer(t, modeltest.ReplayCassette(c)...)
			for _, in := range c.Interactions {
				resp := post(t, t.Context(), srv.URL+in.Request.Path(), in.Request.Body)
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatalf("interaction %d: reading body: %v", in.ID, err)
				}
				if resp.StatusCode != in.Response.Code {
					t.Errorf("interaction %d: status %d, want %d", in.ID, resp.StatusCode, in.Response.Code)
				}
				if got, want := resp.Header.Get("Content-Type"), in.Response.Headers.Get("Content-Type"); got != want {
					t.Errorf("interaction %d: Content-Type %q, want %q", in.ID, got, want)
				}
				if string(body) != in.Response.Body {
					t.Errorf("interaction %d: body differs from the recording:\n%s", in.ID, cmp.Diff(in.Response.Body, string(body)))
				}
			}
			reqs := srv.Requests()
			if len(reqs) != len(c.Interactions) {
				t.Fatalf("recorded %d requests, want %d", len(reqs), len(c.Interactions))
			}
			for i, r := range reqs {
				in := c.Interactions[i]
				if r.Method != "POST" || r.Path != in.Request.Path() || string(r.Body) != in.Request.Body {
					t.Errorf("request %d recorded as %s %s %.40q, want POST %s %.40q", i, r.Method, r.Path, r.Body, in.Request.Path(), in.Request.Body)
				}
				if got := r.Header.Get("Content-Type"); got != "application/json" {
					t.Errorf("request %d: recorded Content-Type %q", i, got)
				}
			}
			if n := srv.Pending(); n != 0 {
				t.Errorf("Pending = %d after playing the whole cassette", n)
			}
		})
	}
}

func TestReplayReportsMismatch(t *testing.T) {
	c, err := modeltest.LoadCassette("testdata/envoy/chat-basic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingTB{TB: t}
	srv := modeltest.NewServer(rec, modeltest.ReplayCassette(c)...)
	resp := post(t, t.Context(), srv.URL+"/v1/completions", "{}")
	io.Copy(io.Discard, resp.Body)
	errs := rec.errors()
	if len(errs) != 1 || !strings.Contains(errs[0], "request path /v1/completions, recorded /v1/chat/completions") {
		t.Errorf("reported %q, want one path mismatch", errs)
	}
}

func TestScriptExhausted(t *testing.T) {
	rec := &recordingTB{TB: t}
	srv := modeltest.NewServer(rec, modeltest.JSON(`{"ok":true}`))
	first := post(t, t.Context(), srv.URL+"/props", "")
	if first.StatusCode != http.StatusOK {
		t.Fatalf("first status %d", first.StatusCode)
	}
	second := post(t, t.Context(), srv.URL+"/v1/chat/completions", "{}")
	if second.StatusCode != http.StatusInternalServerError {
		t.Errorf("status past the script = %d, want 500", second.StatusCode)
	}
	errs := rec.errors()
	want := "unexpected request #2 POST /v1/chat/completions: the script has only 1 step(s)"
	if len(errs) != 1 || !strings.Contains(errs[0], want) {
		t.Errorf("reported %q, want %q", errs, want)
	}
	if got := len(srv.Requests()); got != 2 {
		t.Errorf("recorded %d requests, want 2", got)
	}
}

func TestStatusSteps(t *testing.T) {
	tests := []struct {
		step       modeltest.Step
		code       int
		header     string
		headerWant string
		body       string
	}{
		{modeltest.RateLimited(1500 * time.Millisecond), 429, "Retry-After", "1.5", modeltest.RateLimitBody},
		{modeltest.Overloaded(), 529, "Content-Type", "application/json", modeltest.OverloadedBody},
		{modeltest.Status(401, map[string]string{"X-Request-Id": "req_1"}, `{"error":{"message":"bad key"}}`), 401, "X-Request-Id", "req_1", `{"error":{"message":"bad key"}}`},
		{modeltest.Status(502, map[string]string{"Content-Type": "text/html"}, "<html>"), 502, "Content-Type", "text/html", "<html>"},
		{modeltest.JSON(`{"n_ctx":4096}`), 200, "Content-Type", "application/json", `{"n_ctx":4096}`},
	}
	for _, tt := range tests {
		t.Run(tt.step.String(), func(t *testing.T) {
			srv := modeltest.NewServer(t, tt.step)
			resp := post(t, t.Context(), srv.URL+"/x", "")
			body, _ := io.ReadAll(resp.Body)
			got := []any{resp.StatusCode, resp.Header.Get(tt.header), string(body)}
			want := []any{tt.code, tt.headerWant, tt.body}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

const sseBody = "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n"

func TestResetAfter(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.ResetAfter(sseBody, 16))
	resp := post(t, t.Context(), srv.URL+"/v1/chat/completions", "{}")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	got, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Fatalf("read the whole body %q without an error after a reset", got)
	}
	if string(got) != sseBody[:16] {
		t.Errorf("got %q before the reset, want %q", got, sseBody[:16])
	}
}

func TestTruncate(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Truncate(sseBody, 30))
	resp := post(t, t.Context(), srv.URL+"/v1/chat/completions", "{}")
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("truncated response should end cleanly, got %v", err)
	}
	if string(got) != sseBody[:30] {
		t.Errorf("body %q, want %q", got, sseBody[:30])
	}
}

func TestGarbage(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Garbage())
	resp := post(t, t.Context(), srv.URL+"/v1/chat/completions", "{}")
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || string(got) != modeltest.GarbageBody {
		t.Errorf("status %d type %q body %q", resp.StatusCode, resp.Header.Get("Content-Type"), got)
	}
}

func TestStallThenResume(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Stall(sseBody, 15, 50*time.Millisecond))
	start := time.Now()
	resp := post(t, t.Context(), srv.URL+"/v1/chat/completions", "{}")
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != sseBody {
		t.Errorf("body %q, want the whole stream after the stall", got)
	}
	if el := time.Since(start); el < 50*time.Millisecond {
		t.Errorf("answered in %v, want a stall of at least 50ms", el)
	}
}

func TestStallEndsWhenClientLeaves(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Stall(sseBody, 15, time.Hour))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	resp := post(t, ctx, srv.URL+"/v1/chat/completions", "{}")
	start := time.Now()
	var buf bytes.Buffer
	_, err := io.Copy(&buf, resp.Body)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("read error %v, want context deadline", err)
	}
	if buf.String() != sseBody[:15] {
		t.Errorf("got %q before the stall, want %q", buf.String(), sseBody[:15])
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("client waited %v", el)
	}
}

// TestCleanupReleasesStall checks that a test whose client never gives up
// still finishes: cleanup releases stalled handlers.
func TestCleanupReleasesStall(t *testing.T) {
	start := time.Now()
	done := make(chan struct{})
	t.Run("inner", func(t *testing.T) {
		srv := modeltest.NewServer(t, modeltest.Stall(sseBody, 15, time.Hour))
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer close(done)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("client still blocked 5s after the server's cleanup")
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("cleanup took %v", el)
	}
}

func TestHandlerStepAndAdd(t *testing.T) {
	srv := modeltest.NewServer(t)
	srv.Add(modeltest.Handler("echo", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(bytes.ToUpper(b))
	})))
	resp := post(t, t.Context(), srv.URL+"/echo?x=1", "hello")
	got, _ := io.ReadAll(resp.Body)
	if string(got) != "HELLO" {
		t.Errorf("body %q, want HELLO", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Query != "x=1" || string(reqs[0].Body) != "hello" {
		t.Errorf("recorded %+v", reqs)
	}
}
