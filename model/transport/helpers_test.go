package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testKey is a credential the tests send and then look for in errors.
const testKey = "sk-test-SECRET-0123456789"

// step answers one request of a scripted server.
type step func(w http.ResponseWriter, r *http.Request)

// status answers with code, the given header pairs and body.
func status(code int, body string, headers ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// scripted is a loopback server that answers the n-th request with the n-th
// step (the last step repeats) and counts requests.
type scripted struct {
	*httptest.Server
	steps    []step
	requests atomic.Int32
	authSeen atomic.Value // last Authorization header
}

func newScripted(t *testing.T, steps ...step) *scripted {
	t.Helper()
	s := &scripted{steps: steps}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.requests.Add(1))
		s.authSeen.Store(r.Header.Get("Authorization"))
		io.Copy(io.Discard, r.Body)
		s.steps[min(n, len(s.steps))-1](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// post builds a fresh POST with a bearer key for each attempt, as providers do.
func post(url string) func(ctx context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"model":"m"}`))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+testKey)
		req.Header.Set("Content-Type", "application/json")
		return req, nil
	}
}

// sleeper is a fake Sleep that records the requested waits and returns at
// once (or with ctx's error if ctx is already done).
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// testConfig is a Config with fast, deterministic seams and a private
// breaker, so tests neither sleep nor share breaker state.
func testConfig(sl *sleeper) Config {
	return Config{
		Provider: "testprov",
		Breaker:  NewBreaker(100, time.Minute),
		Sleep:    sl.Sleep,
		Rand:     func() float64 { return 0.5 },
	}
}

// fakeClock is a settable clock for breaker tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// trackingTransport counts response bodies handed out and closed, to prove
// that retries do not leak connections.
type trackingTransport struct {
	base           http.RoundTripper
	opened, closed atomic.Int32
}

func (t *trackingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	t.opened.Add(1)
	resp.Body = &trackedBody{ReadCloser: resp.Body, t: t}
	return resp, nil
}

type trackedBody struct {
	io.ReadCloser
	t    *trackingTransport
	once sync.Once
}

func (b *trackedBody) Close() error {
	b.once.Do(func() { b.t.closed.Add(1) })
	return b.ReadCloser.Close()
}

// within fails the test if fn does not return within d; it returns how
// long fn took.
func within(t *testing.T, d time.Duration, fn func()) time.Duration {
	t.Helper()
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
		return time.Since(start)
	case <-time.After(d):
		t.Fatalf("did not return within %s", d)
		return 0
	}
}
