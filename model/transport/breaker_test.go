package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinharness/rein/model"
)

// breakerClient returns a client without retries whose private breaker
// opens after threshold failures and uses a fake clock.
func breakerClient(threshold int) (*Client, *Breaker, *fakeClock) {
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	br := NewBreaker(threshold, 30*time.Second)
	br.SetClock(clock.Now)
	cfg := testConfig(&sleeper{})
	cfg.MaxRetries = -1
	cfg.Breaker = br
	return New(cfg), br, clock
}

func do(c *Client, url string) error {
	resp, err := c.Do(context.Background(), url, post(url))
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return err
}

func TestBreakerOpensFailsFastAndHalfOpens(t *testing.T) {
	healthy := false
	var mu sync.Mutex
	srv := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if healthy {
			w.WriteHeader(200)
			return
		}
		w.WriteHeader(503)
	})
	c, br, clock := breakerClient(3)
	for i := range 3 {
		if err := do(c, srv.URL); errors.Is(err, model.ErrCircuitOpen) {
			t.Fatalf("attempt %d: breaker open before the threshold: %v", i, err)
		}
	}
	if br.State() != BreakerOpen {
		t.Fatalf("state after 3 failures = %v, want open", br.State())
	}
	err := do(c, srv.URL)
	if !errors.Is(err, model.ErrCircuitOpen) || srv.requests.Load() != 3 {
		t.Fatalf("open breaker: error %v after %d requests; want ErrCircuitOpen without a request", err, srv.requests.Load())
	}
	for _, want := range []string{srv.URL, "03:04:35", "in 30s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}

	clock.Advance(31 * time.Second)
	if br.State() != BreakerHalfOpen {
		t.Fatalf("state after cooldown = %v, want half-open", br.State())
	}
	// The probe fails: open again for a full cooldown.
	if err := do(c, srv.URL); errors.Is(err, model.ErrCircuitOpen) || srv.requests.Load() != 4 {
		t.Fatalf("probe: error %v after %d requests; want the probe sent", err, srv.requests.Load())
	}
	if br.State() != BreakerOpen {
		t.Fatalf("state after failed probe = %v, want open", br.State())
	}
	clock.Advance(31 * time.Second)
	mu.Lock()
	healthy = true
	mu.Unlock()
	if err := do(c, srv.URL); err != nil {
		t.Fatalf("successful probe: %v", err)
	}
	if br.State() != BreakerClosed {
		t.Fatalf("state after successful probe = %v, want closed", br.State())
	}
}

func TestBreakerOneProbeAtATime(t *testing.T) {
	release := make(chan struct{})
	srv := newScripted(t, status(503, ""), func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.WriteHeader(200)
	})
	c, br, clock := breakerClient(1)
	if err := do(c, srv.URL); err == nil {
		t.Fatal("first request should fail")
	}
	clock.Advance(time.Minute)
	probeDone := make(chan error)
	go func() { probeDone <- do(c, srv.URL) }()
	// Wait until the probe is in flight, then try a second request.
	for i := 0; srv.requests.Load() < 2; i++ {
		if i > 500 {
			t.Fatal("probe never reached the server")
		}
		time.Sleep(5 * time.Millisecond)
	}
	err := do(c, srv.URL)
	if !errors.Is(err, model.ErrCircuitOpen) || !strings.Contains(err.Error(), "probe") {
		t.Errorf("request during probe: %v, want ErrCircuitOpen mentioning the probe", err)
	}
	close(release)
	if err := <-probeDone; err != nil {
		t.Fatalf("probe: %v", err)
	}
	if br.State() != BreakerClosed {
		t.Errorf("state = %v, want closed", br.State())
	}
}

func TestBreakerIgnoresClientErrors(t *testing.T) {
	for _, code := range []int{400, 401, 404, 429, 408, 409} {
		srv := newScripted(t, status(code, ""))
		c, br, _ := breakerClient(2)
		for range 5 {
			do(c, srv.URL)
		}
		if br.State() != BreakerClosed || srv.requests.Load() != 5 {
			t.Errorf("status %d: state %v after %d requests, want closed after 5", code, br.State(), srv.requests.Load())
		}
	}
}

func TestBreakerSuccessResetsCount(t *testing.T) {
	srv := newScripted(t, status(500, ""), status(500, ""), status(200, ""), status(500, ""), status(500, ""))
	c, br, _ := breakerClient(3)
	for range 5 {
		do(c, srv.URL)
	}
	if br.State() != BreakerClosed {
		t.Errorf("state = %v; a success in between must reset the failure count", br.State())
	}
}

// TestBreakerOpensDuringRetries: the breaker is consulted before every
// attempt, so a run of retries stops as soon as it opens, and the error
// carries both the circuit and the last API error.
func TestBreakerOpensDuringRetries(t *testing.T) {
	srv := newScripted(t, status(529, `overloaded`))
	cfg := testConfig(&sleeper{})
	cfg.Breaker = NewBreaker(2, time.Minute)
	_, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
	t.Logf("error text: %v", err)
	if !errors.Is(err, model.ErrCircuitOpen) {
		t.Fatalf("error = %v, want ErrCircuitOpen", err)
	}
	if apiErr, ok := errors.AsType[*model.APIError](err); !ok || apiErr.StatusCode != 529 {
		t.Errorf("error = %v, want it to carry the last 529 APIError", err)
	}
	if n := srv.requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestBreakerTransportErrorsCount(t *testing.T) {
	addr := closedPort(t)
	c, br, _ := breakerClient(2)
	url := "http://" + addr
	do(c, url)
	do(c, url)
	if err := do(c, url); !errors.Is(err, model.ErrCircuitOpen) {
		t.Errorf("after 2 refused connections: %v, want ErrCircuitOpen", err)
	}
	if br.State() != BreakerOpen {
		t.Errorf("state = %v, want open", br.State())
	}
}

func TestBreakersSharePerEndpoint(t *testing.T) {
	bs := NewBreakers(1, time.Second)
	a, b := bs.For("http://a"), bs.For("http://b")
	if a == b || bs.For("http://a") != a {
		t.Fatal("For must return one breaker per endpoint")
	}
	a.record(unhealthy, false)
	if a.State() != BreakerOpen || b.State() != BreakerClosed {
		t.Errorf("states a=%v b=%v, want open and closed", a.State(), b.State())
	}
	var zero Breakers
	if zero.For("x").threshold != DefaultBreakerThreshold {
		t.Error("zero Breakers must use the default threshold")
	}
}

func TestBreakerConcurrentUse(t *testing.T) {
	br := NewBreaker(3, time.Millisecond)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				probe, err := br.allow("p", "e")
				if err != nil {
					continue
				}
				br.record(health((i+j)%3), probe)
				_ = br.State()
			}
		})
	}
	wg.Wait()
}

func TestBreakerStateString(t *testing.T) {
	for s, want := range map[BreakerState]string{BreakerClosed: "closed", BreakerOpen: "open", BreakerHalfOpen: "half-open", 7: "BreakerState(7)"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(s), s.String(), want)
		}
	}
}
