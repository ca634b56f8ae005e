package transport

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
)

// TestRetryObserverIsToldEachWait: every retried status and a refused
// connection reach the context's observer before the wait, in order,
// with the wait Do then takes; the success and a non-retried status do
// not, and a context without an observer retries the same.
func TestRetryObserverIsToldEachWait(t *testing.T) {
	srv := newScripted(t,
		status(429, `{"error":{"message":"slow down"}}`, "Retry-After", "3"),
		status(503, "busy"),
		status(529, "overloaded"),
		status(200, "ok"),
	)
	sl := &sleeper{}
	c := New(testConfig(sl))
	var (
		mu   sync.Mutex
		seen []string
	)
	ctx := WithRetryObserver(context.Background(), func(r Retry) {
		mu.Lock()
		defer mu.Unlock()
		if r.Endpoint != CleanEndpoint(srv.URL) {
			t.Errorf("endpoint %q", r.Endpoint)
		}
		seen = append(seen, r.String())
	})
	resp, err := c.Do(ctx, srv.URL, post(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waits := sl.got()
	if len(waits) != 3 {
		t.Fatalf("waits %v, want 3", waits)
	}
	want := []string{
		"rate limited (429), retrying in 3 s (attempt 2 of 4)",
		"the model server failed (503), retrying in " + Seconds(waits[1]) + " (attempt 3 of 4)",
		"the model server is overloaded (529), retrying in " + Seconds(waits[2]) + " (attempt 4 of 4)",
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
	for _, s := range seen {
		if strings.Contains(s, testKey) || strings.Contains(s, "slow down") {
			t.Errorf("the line carries the server's text or the key: %q", s)
		}
	}

	// Without an observer, the same script retries the same.
	srv2 := newScripted(t, status(429, "", "Retry-After", "1"), status(200, "ok"))
	resp, err = New(testConfig(&sleeper{})).Do(context.Background(), srv2.URL, post(srv2.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := srv2.requests.Load(); n != 2 {
		t.Errorf("%d requests without an observer, want 2", n)
	}
}

func TestRetryReasons(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&model.APIError{StatusCode: 429}, "rate limited (429)"},
		{&model.APIError{StatusCode: 500}, "the model server failed (500)"},
		{&model.APIError{StatusCode: 529}, "the model server is overloaded (529)"},
		{&model.APIError{StatusCode: 408}, "the model server answered 408"},
		{&model.TimeoutError{Err: ErrHeaderTimeout}, "no answer from the model server in time"},
		{&model.ConnectError{Err: errors.New("connection refused")}, "cannot reach the model server"},
	}
	for _, tt := range tests {
		if got := (Retry{Err: tt.err}).Reason(); got != tt.want {
			t.Errorf("Reason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0.1 s", 500 * time.Millisecond: "0.5 s", time.Second: "1 s", 2100 * time.Millisecond: "3 s"} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%v) = %q, want %q", d, got, want)
		}
	}
}
