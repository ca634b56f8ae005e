package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/model"
)

func TestDoRetryPolicy(t *testing.T) {
	const ok = `data: {"ok":true}` + "\n\n"
	tests := []struct {
		name         string
		steps        []step
		maxRetries   int
		wantRequests int32
		wantStatus   int // 0: success expected
		wantWaits    []time.Duration
		wantRetryAft time.Duration
	}{
		{name: "2xx first time", steps: []step{status(200, ok)}, wantRequests: 1},
		{name: "401 is not retried", steps: []step{status(401, `{"error":"bad key"}`), status(200, ok)},
			wantRequests: 1, wantStatus: 401},
		{name: "400 is not retried", steps: []step{status(400, "bad"), status(200, ok)}, wantRequests: 1, wantStatus: 400},
		{name: "404 is not retried", steps: []step{status(404, "no"), status(200, ok)}, wantRequests: 1, wantStatus: 404},
		{name: "429 honours Retry-After seconds", steps: []step{status(429, "slow down", "Retry-After", "2"), status(200, ok)},
			wantRequests: 2, wantWaits: []time.Duration{2 * time.Second}},
		{name: "retry-after-ms wins over Retry-After",
			steps:        []step{status(429, "", "retry-after-ms", "150", "Retry-After", "9"), status(200, ok)},
			wantRequests: 2, wantWaits: []time.Duration{150 * time.Millisecond}},
		{name: "529 retried with exponential backoff",
			steps:        []step{status(529, "overloaded"), status(529, "overloaded"), status(200, ok)},
			wantRequests: 3, wantWaits: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond}},
		{name: "408 and 409 retried", steps: []step{status(408, ""), status(409, ""), status(200, ok)},
			wantRequests: 3, wantWaits: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond}},
		{name: "x-should-retry true forces a retry of 400",
			steps:        []step{status(400, "", "x-should-retry", "true"), status(200, ok)},
			wantRequests: 2, wantWaits: []time.Duration{375 * time.Millisecond}},
		{name: "x-should-retry false forbids a retry of 503",
			steps:        []step{status(503, "", "x-should-retry", "false"), status(200, ok)},
			wantRequests: 1, wantStatus: 503},
		{name: "max retries exhausted returns the last error",
			steps:        []step{status(503, "one"), status(503, "two"), status(503, "three"), status(502, "last")},
			wantRequests: 4, wantStatus: 502,
			wantWaits: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond}},
		{name: "Retry-After longer than MaxRetryAfter gives up at once",
			steps:        []step{status(429, "", "Retry-After", "120"), status(200, ok)},
			wantRequests: 1, wantStatus: 429, wantRetryAft: 120 * time.Second},
		{name: "negative MaxRetries disables retries", steps: []step{status(503, ""), status(200, ok)},
			maxRetries: -1, wantRequests: 1, wantStatus: 503},
		{name: "MaxRetries 1", steps: []step{status(500, ""), status(500, ""), status(200, ok)},
			maxRetries: 1, wantRequests: 2, wantStatus: 500, wantWaits: []time.Duration{375 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newScripted(t, tt.steps...)
			sl := &sleeper{}
			cfg := testConfig(sl)
			cfg.MaxRetries = tt.maxRetries
			resp, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL+"/v1/chat"))
			if got := srv.requests.Load(); got != tt.wantRequests {
				t.Errorf("requests = %d, want %d", got, tt.wantRequests)
			}
			if diff := cmp.Diff(tt.wantWaits, sl.got()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if tt.wantStatus == 0 {
				if err != nil {
					t.Fatalf("Do: %v", err)
				}
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				if err != nil || string(body) != ok {
					t.Fatalf("body = %q, %v; want %q", body, err, ok)
				}
				return
			}
			apiErr, isAPI := errors.AsType[*model.APIError](err)
			if !isAPI {
				t.Fatalf("error = %v (%T), want *model.APIError", err, err)
			}
			if apiErr.StatusCode != tt.wantStatus || apiErr.RetryAfter != tt.wantRetryAft || apiErr.Provider != "testprov" {
				t.Errorf("APIError = %+v, want status %d, RetryAfter %s, provider testprov", apiErr, tt.wantStatus, tt.wantRetryAft)
			}
		})
	}
}

func TestDoLastErrorIsReturned(t *testing.T) {
	srv := newScripted(t, status(503, "first"), status(503, "second"))
	cfg := testConfig(&sleeper{})
	cfg.MaxRetries = 1
	_, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
	apiErr, ok := errors.AsType[*model.APIError](err)
	if !ok || !strings.Contains(apiErr.Message, "second") {
		t.Fatalf("error = %v, want the second attempt's APIError", err)
	}
}

// anthropicStyle parses an Anthropic-shaped error body, as a provider's
// ParseError would.
func anthropicStyle(resp *http.Response, body []byte) *model.APIError {
	var e struct {
		Error struct{ Type, Message string }
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Message == "" {
		return nil
	}
	return &model.APIError{Type: e.Error.Type, Message: e.Error.Message}
}

func TestDoBuildsAPIError(t *testing.T) {
	tests := []struct {
		name  string
		step  step
		parse func(*http.Response, []byte) *model.APIError
		want  model.APIError
	}{
		{
			name: "provider parser, request id, retry-after, redaction",
			step: status(429, `{"type":"error","error":{"type":"rate_limit_error","message":"key sk-ant-api03-abcdefgh over limit"}}`,
				"request-id", "req_123", "Retry-After", "90"),
			parse: anthropicStyle,
			want: model.APIError{Provider: "testprov", StatusCode: 429, Type: "rate_limit_error",
				Message: "key [REDACTED] over limit", RequestID: "req_123", RetryAfter: 90 * time.Second},
		},
		{
			name:  "x-request-id preferred",
			step:  status(401, `{"error":{"type":"authentication_error","message":"invalid x-api-key"}}`, "x-request-id", "abc", "request-id", "def"),
			parse: anthropicStyle,
			want: model.APIError{Provider: "testprov", StatusCode: 401, Type: "authentication_error",
				Message: "invalid x-api-key", RequestID: "abc"},
		},
		{
			name:  "fallback when the parser gives up",
			step:  status(502, "<html>\n  <body>Bad gateway from proxy</body>\n</html>"),
			parse: anthropicStyle,
			want: model.APIError{Provider: "testprov", StatusCode: 502,
				Message: "Bad Gateway: <html> <body>Bad gateway from proxy</body> </html>"},
		},
		{
			name: "fallback without a parser, long body cut",
			step: status(400, strings.Repeat("x", 2000)),
			want: model.APIError{Provider: "testprov", StatusCode: 400,
				Message: "Bad Request: " + strings.Repeat("x", maxExcerpt) + "…"},
		},
		{
			name: "529 is called overloaded",
			step: status(529, `{"type":"error"}`),
			want: model.APIError{Provider: "testprov", StatusCode: 529, Message: `Overloaded: {"type":"error"}`},
		},
		{
			name: "fallback with empty body and unknown status",
			step: status(599, ""),
			want: model.APIError{Provider: "testprov", StatusCode: 599, Message: "HTTP status 599"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newScripted(t, tt.step)
			cfg := testConfig(&sleeper{})
			cfg.MaxRetries = -1
			cfg.ParseError = tt.parse
			_, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
			apiErr, ok := errors.AsType[*model.APIError](err)
			if !ok {
				t.Fatalf("error = %v, want *model.APIError", err)
			}
			tt.want.Attempts = 1 // MaxRetries -1: sent once
			if diff := cmp.Diff(&tt.want, apiErr); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDoHugeErrorBodyIsCapped(t *testing.T) {
	var seen []byte
	srv := newScripted(t, status(500, strings.Repeat("e", 10<<20)))
	cfg := testConfig(&sleeper{})
	cfg.MaxRetries = -1
	cfg.ParseError = func(_ *http.Response, body []byte) *model.APIError {
		seen = body
		return nil
	}
	if _, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL)); err == nil {
		t.Fatal("Do succeeded on a 500")
	}
	if len(seen) != maxErrorBody {
		t.Errorf("ParseError saw %d bytes, want the %d-byte cap", len(seen), maxErrorBody)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestDoConnectionRefused(t *testing.T) {
	addr := closedPort(t)
	endpoint := "http://user:sk-pass-77777777@" + addr + "/v1?key=sk-query-88888888"
	sl := &sleeper{}
	_, err := New(testConfig(sl)).Do(context.Background(), endpoint, post(endpoint+"&x=1"))
	t.Logf("error text: %v", err)
	ce, ok := errors.AsType[*model.ConnectError](err)
	if !ok {
		t.Fatalf("error = %v (%T), want *model.ConnectError", err, err)
	}
	if want := "http://" + addr + "/v1"; ce.Endpoint != want {
		t.Errorf("Endpoint = %q, want %q", ce.Endpoint, want)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error %v does not wrap ECONNREFUSED", err)
	}
	for _, secret := range []string{"sk-", "SECRET", "pass", "user", "key="} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error %q leaks %q", err, secret)
		}
	}
	if got := len(sl.got()); got != DefaultMaxRetries {
		t.Errorf("%d retries, want %d: connection failures are retryable", got, DefaultMaxRetries)
	}
}

func TestDoRequestBuildErrorsAreNotRetried(t *testing.T) {
	calls := 0
	boom := errors.New("no body")
	_, err := New(testConfig(&sleeper{})).Do(context.Background(), "http://127.0.0.1:1", func(context.Context) (*http.Request, error) {
		calls++
		return nil, boom
	})
	if !errors.Is(err, boom) || calls != 1 {
		t.Errorf("error = %v after %d calls, want %v after 1", err, calls, boom)
	}
	_, err = New(testConfig(&sleeper{})).Do(context.Background(), "http://127.0.0.1:1", func(context.Context) (*http.Request, error) {
		return nil, nil
	})
	if err == nil || !strings.Contains(err.Error(), "no request") {
		t.Errorf("nil request: error = %v, want a clear error", err)
	}
	_, err = New(testConfig(&sleeper{})).Do(context.Background(), "ftp://127.0.0.1", post("ftp://127.0.0.1/x"))
	if err == nil || !strings.Contains(err.Error(), "http:// or https://") {
		t.Errorf("ftp endpoint: error = %v, want a clear URL error", err)
	}
	if _, ok := errors.AsType[*model.ConnectError](err); ok {
		t.Errorf("a bad URL is a configuration error, not a ConnectError: %v", err)
	}
}

func TestDoHeaderTimeout(t *testing.T) {
	srv := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	cfg := testConfig(&sleeper{})
	cfg.MaxRetries = 1
	cfg.HeaderTimeout = 100 * time.Millisecond
	var err error
	within(t, 3*time.Second, func() {
		_, err = New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
	})
	te, ok := errors.AsType[*model.TimeoutError](err)
	if !ok || !errors.Is(err, ErrHeaderTimeout) {
		t.Fatalf("error = %v, want a TimeoutError wrapping ErrHeaderTimeout", err)
	}
	if _, ok := errors.AsType[*model.ConnectError](err); ok {
		t.Errorf("the server was reachable; a header timeout is not a ConnectError: %v", err)
	}
	want := "the model server at " + srv.URL + " accepted the connection but sent no response headers in 100ms (model.header_timeout)"
	if te.Endpoint != srv.URL || srv.requests.Load() != 2 || err.Error() != want || te.Attempts != 2 {
		t.Errorf("endpoint %q, %d requests (attempts %d), %q; want %q, 2 (header timeouts are retried) and %q",
			te.Endpoint, srv.requests.Load(), te.Attempts, err, srv.URL, want)
	}
}

func TestDoCancelledContext(t *testing.T) {
	srv := newScripted(t, status(200, "x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(testConfig(&sleeper{})).Do(ctx, srv.URL, post(srv.URL))
	if !errors.Is(err, context.Canceled) || srv.requests.Load() != 0 {
		t.Errorf("error = %v with %d requests; want context.Canceled and none", err, srv.requests.Load())
	}
	if _, ok := errors.AsType[*model.ConnectError](err); ok {
		t.Errorf("cancellation reported as ConnectError: %v", err)
	}
}

func TestDoCancelWhileWaitingForHeaders(t *testing.T) {
	srv := newScripted(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var err error
	within(t, 3*time.Second, func() { _, err = New(testConfig(&sleeper{})).Do(ctx, srv.URL, post(srv.URL)) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want context.DeadlineExceeded", err)
	}
	if _, ok := errors.AsType[*model.ConnectError](err); ok {
		t.Errorf("deadline reported as ConnectError: %v", err)
	}
}

func TestDoCancelDuringBackoff(t *testing.T) {
	srv := newScripted(t, status(503, "", "Retry-After", "30"))
	cfg := testConfig(nil)
	cfg.Sleep = nil // the real timer
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	var err error
	took := within(t, 3*time.Second, func() { _, err = New(cfg).Do(ctx, srv.URL, post(srv.URL)) })
	if !errors.Is(err, context.Canceled) || took > 2*time.Second {
		t.Errorf("error = %v after %s, want context.Canceled at once", err, took)
	}
	if !strings.Contains(err.Error(), "503") {
		t.Errorf("error %q should say what was being retried", err)
	}
}

// TestDoRealRetryAfter is the one real-time test: Retry-After: 1 must make
// Do wait about a second, then succeed.
func TestDoRealRetryAfter(t *testing.T) {
	srv := newScripted(t, status(429, "", "Retry-After", "1"), status(200, "ok"))
	cfg := testConfig(nil)
	cfg.Sleep = nil
	start := time.Now()
	resp, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
	took := time.Since(start)
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	resp.Body.Close()
	if took < 950*time.Millisecond || took > 5*time.Second {
		t.Errorf("Do took %s, want about 1s", took)
	}
}

func TestDoNoBodyLeaks(t *testing.T) {
	srv := newScripted(t, status(503, strings.Repeat("a", 100<<10)), status(429, "x"), status(400, "y", "x-should-retry", "true"), status(200, "done"))
	tr := &trackingTransport{base: http.DefaultTransport}
	cfg := testConfig(&sleeper{})
	cfg.HTTPClient = &http.Client{Transport: tr}
	resp, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if o, c := tr.opened.Load(), tr.closed.Load(); o != 4 || c != 3 {
		t.Errorf("before Close: %d bodies opened, %d closed; want 4 and 3", o, c)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := resp.Body.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if o, c := tr.opened.Load(), tr.closed.Load(); o != c {
		t.Errorf("after Close: %d bodies opened, %d closed", o, c)
	}
}

// TestDoNeverRetriesAfter2xx: a stream that breaks after the headers is
// the caller's failure to report, not a reason to send the request again.
func TestDoNeverRetriesAfter2xx(t *testing.T) {
	srv := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		io.WriteString(w, "data: partial")
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	resp, err := New(testConfig(&sleeper{})).Do(context.Background(), srv.URL, post(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) || string(body) != "data: partial" {
		t.Errorf("read %q, %v; want the partial body and io.ErrUnexpectedEOF", body, err)
	}
	if n := srv.requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestDoUsesDefaultBreakersPerEndpoint(t *testing.T) {
	srv := newScripted(t, status(200, "ok"))
	cfg := testConfig(&sleeper{})
	cfg.Breaker = nil
	endpoint := srv.URL + "/v1?key=secret"
	resp, err := New(cfg).Do(context.Background(), endpoint, post(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	defaultBreakers.mu.Lock()
	_, clean := defaultBreakers.m[srv.URL+"/v1"]
	_, raw := defaultBreakers.m[endpoint]
	defaultBreakers.mu.Unlock()
	if !clean || raw {
		t.Errorf("DefaultBreakers keyed by clean endpoint: %v, by raw endpoint: %v; want true, false", clean, raw)
	}
}

func TestCleanEndpoint(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"https://api.openai.com/v1/", "https://api.openai.com/v1"},
		{"http://user:pw@127.0.0.1:8080/v1?key=abc#frag", "http://127.0.0.1:8080/v1"},
		{"http://127.0.0.1:8080?", "http://127.0.0.1:8080"},
		{"http://user:pw@host\x7f/v1?key=1", "http://host\x7f/v1"}, // unparseable: credentials and query still cut
		{"user:pw@host\x7f", "host\x7f"},
		{"\x7fsk-abcdefghij", "\x7f[REDACTED]"},
	}
	for _, tt := range tests {
		if got := CleanEndpoint(tt.in); got != tt.want {
			t.Errorf("CleanEndpoint(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func ExampleClient_Do() {
	c := New(Config{Provider: "openai", MaxRetries: -1, Breaker: NewBreaker(0, 0)})
	endpoint := "http://127.0.0.1:1/v1" // nothing listens here
	_, err := c.Do(context.Background(), endpoint, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/chat/completions", strings.NewReader("{}"))
	})
	var ce *model.ConnectError
	fmt.Println(errors.As(err, &ce), ce.Endpoint)
	// Output: true http://127.0.0.1:1/v1
}

// hangUp closes the connection without answering: a reset before headers.
func hangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func TestDoResetBeforeHeadersIsRetried(t *testing.T) {
	srv := newScripted(t, hangUp, status(200, "ok"))
	sl := &sleeper{}
	resp, err := New(testConfig(sl)).Do(context.Background(), srv.URL, post(srv.URL))
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	resp.Body.Close()
	if len(sl.got()) != 1 || srv.requests.Load() != 2 {
		t.Errorf("%d waits, %d requests; want one retry", len(sl.got()), srv.requests.Load())
	}

	srv = newScripted(t, hangUp)
	cfg := testConfig(&sleeper{})
	cfg.MaxRetries = -1
	_, err = New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
	if ce, ok := errors.AsType[*model.ConnectError](err); !ok || ce.Endpoint != srv.URL {
		t.Errorf("error = %v, want a ConnectError for %s", err, srv.URL)
	}
}
