package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model"
)

// Every wait of Do has a bound: these tests script the server faults that
// held rein for minutes (accept and never answer, trickle, go silent, ask
// for a long Retry-After) and judge elapsed time with generous margins on
// millisecond-scale settings.

// neverAnswer accepts the request and sends nothing until the client goes.
func neverAnswer(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// trickle sends headers, then one byte every gap, forever.
func trickle(gap time.Duration) step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i := 0; i < 1000; i++ {
			if _, err := io.WriteString(w, ":"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(gap):
			}
		}
	}
}

// realConfig is testConfig with real sleeps (the retry budget counts real
// time) and fast backoff.
func realConfig() Config {
	cfg := testConfig(nil)
	cfg.Sleep = nil
	cfg.BaseDelay, cfg.MaxDelay = time.Millisecond, 2*time.Millisecond
	return cfg
}

func TestDoWaitsAreBounded(t *testing.T) {
	tests := []struct {
		name         string
		step         step
		cfg          func(*Config)
		wantRequests int32
		wantSentinel error
		wantText     string
		min, max     time.Duration
	}{
		{
			// Today: 4 attempts × the header timeout. The budget stops
			// retries once it is spent: 2 attempts of 100ms.
			name: "accept and never answer stops at the retry budget",
			step: neverAnswer,
			cfg: func(c *Config) {
				c.MaxRetries, c.HeaderTimeout, c.RetryBudget = 3, 100*time.Millisecond, 150*time.Millisecond
			},
			wantRequests: 2, wantSentinel: ErrHeaderTimeout,
			wantText: "accepted the connection but sent no response headers in 100ms (model.header_timeout)",
			min:      190 * time.Millisecond, max: 2 * time.Second,
		},
		{
			name: "the request deadline cuts the wait for headers",
			step: neverAnswer,
			cfg: func(c *Config) {
				c.HeaderTimeout, c.RequestTimeout = 10*time.Second, 150*time.Millisecond
			},
			wantRequests: 1, wantSentinel: ErrRequestTimeout,
			wantText: "did not finish answering within 150ms (model.request_timeout)",
			min:      140 * time.Millisecond, max: 2 * time.Second,
		},
		{
			name: "a Retry-After beyond the retry budget is not waited for",
			step: status(503, "busy", "retry-after-ms", "400"),
			cfg: func(c *Config) {
				c.RetryBudget, c.MaxRetryAfter = 200*time.Millisecond, time.Minute
			},
			wantRequests: 1, wantText: "Service Unavailable: busy",
			max: 300 * time.Millisecond,
		},
		{
			name:         "a Retry-After beyond MaxRetryAfter is not waited for",
			step:         status(503, "busy", "Retry-After", "120"),
			wantRequests: 1, wantText: "Service Unavailable: busy",
			max: time.Second,
		},
		{
			name: "retries within the budget still happen",
			step: status(503, "busy", "retry-after-ms", "30"),
			cfg: func(c *Config) {
				c.MaxRetries, c.RetryBudget = 2, time.Minute
			},
			wantRequests: 3, wantText: "Service Unavailable: busy",
			min: 55 * time.Millisecond, max: 2 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newScripted(t, tt.step)
			cfg := realConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			var err error
			took := within(t, 5*time.Second, func() {
				_, err = New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
			})
			t.Logf("after %s: %v", took, err)
			if err == nil || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("error %v, want one saying %q", err, tt.wantText)
			}
			if tt.wantSentinel != nil && !errors.Is(err, tt.wantSentinel) {
				t.Errorf("error %v does not wrap %v", err, tt.wantSentinel)
			}
			if _, ok := errors.AsType[*model.ConnectError](err); ok {
				t.Errorf("the server was reachable, but the error is a ConnectError: %v", err)
			}
			if got := srv.requests.Load(); got != tt.wantRequests {
				t.Errorf("%d requests, want %d", got, tt.wantRequests)
			}
			if took < tt.min || took > tt.max {
				t.Errorf("took %s, want between %s and %s", took, tt.min, tt.max)
			}
			wantAttempts := int(tt.wantRequests)
			if ae, ok := errors.AsType[*model.APIError](err); ok && ae.Attempts != wantAttempts {
				t.Errorf("APIError.Attempts = %d, want %d", ae.Attempts, wantAttempts)
			}
			if te, ok := errors.AsType[*model.TimeoutError](err); ok && te.Attempts != wantAttempts {
				t.Errorf("TimeoutError.Attempts = %d, want %d", te.Attempts, wantAttempts)
			}
		})
	}
}

// TestStreamWaitsAreBounded reads 2xx bodies that never end: the idle
// timeout cuts a silent stream, the request deadline a trickling one.
func TestStreamWaitsAreBounded(t *testing.T) {
	tests := []struct {
		name         string
		step         step
		idle, dl     time.Duration
		wantSentinel error
		wantText     string
		min, max     time.Duration
	}{
		{
			name: "headers then silence", step: stallAfter("data: a\n\n"),
			idle: 150 * time.Millisecond, dl: time.Minute, wantSentinel: ErrIdleTimeout,
			wantText: "sent no data for 150ms in the middle of its answer (model.idle_timeout)",
			min:      140 * time.Millisecond, max: 2 * time.Second,
		},
		{
			// One byte every 20ms never trips a 1s idle timeout: only the
			// overall deadline ends it.
			name: "a trickle is cut at the request deadline", step: trickle(20 * time.Millisecond),
			idle: time.Second, dl: 300 * time.Millisecond, wantSentinel: ErrRequestTimeout,
			wantText: "did not finish answering within 300ms (model.request_timeout)",
			min:      280 * time.Millisecond, max: 3 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newScripted(t, tt.step)
			cfg := realConfig()
			cfg.IdleTimeout, cfg.RequestTimeout = tt.idle, tt.dl
			start := time.Now()
			resp, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var n int64
			within(t, 5*time.Second, func() { n, err = io.Copy(io.Discard, resp.Body) })
			took := time.Since(start)
			t.Logf("%d bytes in %s: %v", n, took, err)
			te, ok := errors.AsType[*model.TimeoutError](err)
			if !ok || !errors.Is(err, tt.wantSentinel) || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("error %v, want a TimeoutError wrapping %v saying %q", err, tt.wantSentinel, tt.wantText)
			}
			if te.Endpoint != srv.URL {
				t.Errorf("endpoint %q, want %q", te.Endpoint, srv.URL)
			}
			if took < tt.min || took > tt.max {
				t.Errorf("took %s, want between %s and %s", took, tt.min, tt.max)
			}
			if srv.requests.Load() != 1 {
				t.Errorf("%d requests; a stream that began is never retried", srv.requests.Load())
			}
		})
	}
}

// TestDoConnectTimeout: a TLS endpoint whose server accepts TCP but never
// answers the handshake is cut at ConnectTimeout, and says so.
func TestDoConnectTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, never answered
		}
	}()
	url := "https://" + ln.Addr().String()
	cfg := realConfig()
	cfg.MaxRetries, cfg.ConnectTimeout = -1, 150*time.Millisecond
	var doErr error
	took := within(t, 5*time.Second, func() { _, doErr = New(cfg).Do(context.Background(), url, post(url)) })
	t.Logf("after %s: %v", took, doErr)
	ce, ok := errors.AsType[*model.ConnectError](doErr)
	if !ok || !errors.Is(doErr, ErrConnectTimeout) {
		t.Fatalf("error %v, want a ConnectError wrapping ErrConnectTimeout", doErr)
	}
	if want := "no connection within 150ms (model.connect_timeout)"; ce.Err.Error() != want {
		t.Errorf("cause %q, want %q", ce.Err, want)
	}
	if took < 140*time.Millisecond || took > 2*time.Second {
		t.Errorf("took %s, want about 150ms", took)
	}
}

// TestDoCallerCancelIsNotATimeout: the caller's own cancellation stays
// context.Canceled, never a TimeoutError, even with a deadline armed.
func TestDoCallerCancelIsNotATimeout(t *testing.T) {
	srv := newScripted(t, trickle(10*time.Millisecond))
	cfg := realConfig()
	cfg.RequestTimeout = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := New(cfg).Do(ctx, srv.URL, post(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.AfterFunc(50*time.Millisecond, cancel)
	within(t, 5*time.Second, func() { _, err = io.Copy(io.Discard, resp.Body) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if _, ok := errors.AsType[*model.TimeoutError](err); ok {
		t.Errorf("a cancellation reported as a timeout: %v", err)
	}
}
