package transport

import (
	"math"
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		headers []string
		want    time.Duration
	}{
		{"absent", nil, 0},
		{"delta seconds", []string{"Retry-After", "7"}, 7 * time.Second},
		{"fractional seconds", []string{"Retry-After", "1.5"}, 1500 * time.Millisecond},
		{"spaces", []string{"Retry-After", "  3 "}, 3 * time.Second},
		{"zero", []string{"Retry-After", "0"}, 0},
		{"negative", []string{"Retry-After", "-5"}, 0},
		{"plus sign", []string{"Retry-After", "+5"}, 0},
		{"garbage", []string{"Retry-After", "soon"}, 0},
		{"NaN", []string{"Retry-After", "NaN"}, 0},
		{"Inf", []string{"Retry-After", "Inf"}, 0},
		{"huge is clamped", []string{"Retry-After", "1e300"}, maxRetryAfterSeconds * time.Second},
		{"HTTP date", []string{"Retry-After", "Sun, 01 Mar 2026 12:00:30 GMT"}, 30 * time.Second},
		{"RFC 850 date", []string{"Retry-After", "Sunday, 01-Mar-26 12:01:00 GMT"}, time.Minute},
		{"date in the past", []string{"Retry-After", "Sun, 01 Mar 2026 11:00:00 GMT"}, 0},
		{"milliseconds", []string{"retry-after-ms", "250"}, 250 * time.Millisecond},
		{"fractional milliseconds", []string{"retry-after-ms", "0.5"}, 500 * time.Microsecond},
		{"milliseconds win", []string{"retry-after-ms", "100", "Retry-After", "9"}, 100 * time.Millisecond},
		{"bad milliseconds fall back", []string{"retry-after-ms", "x", "Retry-After", "9"}, 9 * time.Second},
		{"huge milliseconds clamped", []string{"retry-after-ms", "1e300"}, maxRetryAfterSeconds * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for i := 0; i+1 < len(tt.headers); i += 2 {
				h.Set(tt.headers[i], tt.headers[i+1])
			}
			if got := RetryAfter(h, now); got != tt.want {
				t.Errorf("RetryAfter(%v) = %s, want %s", tt.headers, got, tt.want)
			}
		})
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"", "1", "1.5", "-1", "1e400", "NaN", "Sun, 06 Nov 1994 08:49:37 GMT", "0x10", "9999999999999999999"} {
		f.Add(s, s)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ms, ra string) {
		h := http.Header{}
		h.Set("retry-after-ms", ms)
		h.Set("Retry-After", ra)
		got := RetryAfter(h, now)
		if got < 0 || got > maxRetryAfterSeconds*time.Second {
			t.Fatalf("RetryAfter(ms=%q, ra=%q) = %s, out of [0, 1 year]", ms, ra, got)
		}
		if v, ok := parseNonNegative(ms); ok && v < 1e6 {
			want := time.Duration(v * float64(time.Millisecond))
			if got != want {
				t.Fatalf("RetryAfter(ms=%q) = %s, want %s", ms, got, want)
			}
		}
	})
}

func TestBackoffDelay(t *testing.T) {
	c := New(Config{Rand: func() float64 { return 0 }})
	tests := []struct {
		attempt int
		rand    float64
		want    time.Duration
	}{
		{0, 0, 250 * time.Millisecond},
		{0, 0.999999, 500*time.Millisecond - 250*time.Nanosecond},
		{1, 0, 500 * time.Millisecond},
		{2, 0, time.Second},
		{3, 0, 2 * time.Second},
		{4, 0, 4 * time.Second},
		{5, 0, 4 * time.Second}, // capped at MaxDelay 8s, jittered into [4s, 8s)
		{60, 0, 4 * time.Second},
		{63, 0, 4 * time.Second},
		{1000, 0, 4 * time.Second},
		{0, -1, 375 * time.Millisecond},         // broken seam → midpoint
		{0, math.NaN(), 375 * time.Millisecond}, // broken seam → midpoint
		{0, 1, 375 * time.Millisecond},          // out of [0,1) → midpoint
	}
	for _, tt := range tests {
		c.cfg.Rand = func() float64 { return tt.rand }
		got, ok := c.delay(tt.attempt, 0)
		if !ok || got != tt.want {
			t.Errorf("delay(attempt %d, rand %v) = %s, %v; want %s", tt.attempt, tt.rand, got, ok, tt.want)
		}
	}
	if d, ok := c.delay(0, 61*time.Second); ok || d != 61*time.Second {
		t.Errorf("delay with Retry-After 61s = %s, %v; want no retry", d, ok)
	}
	if d, ok := c.delay(0, 20*time.Second); !ok || d != 20*time.Second {
		t.Errorf("delay with Retry-After 20s = %s, %v; want exactly 20s (above MaxDelay is fine)", d, ok)
	}
}

func TestConfigDefaults(t *testing.T) {
	c := New(Config{})
	got := c.cfg
	if got.MaxRetries != DefaultMaxRetries || got.BaseDelay != DefaultBaseDelay || got.MaxDelay != DefaultMaxDelay ||
		got.MaxRetryAfter != DefaultMaxRetryAfter || got.HeaderTimeout != DefaultHeaderTimeout ||
		got.IdleTimeout != DefaultIdleTimeout || got.ConnectTimeout != DefaultConnectTimeout ||
		got.RequestTimeout != DefaultRequestTimeout || got.RetryBudget != DefaultRetryBudget ||
		got.Provider != "model" || c.hc != defaultHTTPClient(DefaultConnectTimeout) || c.hc.Timeout != 0 {
		t.Errorf("defaults not applied: %+v", got)
	}
	if New(Config{MaxRetries: -2}).cfg.MaxRetries != 0 {
		t.Error("negative MaxRetries must mean no retries")
	}
	if New(Config{RetryBudget: -1}).cfg.MaxRetries != 0 {
		t.Error("a negative RetryBudget must mean no retries")
	}
	if got := New(Config{RequestTimeout: -1}).cfg.RequestTimeout; got >= 0 {
		t.Errorf("a negative RequestTimeout (none) became %s", got)
	}
	tr := New(Config{ConnectTimeout: 3 * time.Second}).hc.Transport.(*http.Transport)
	if tr.TLSHandshakeTimeout != 3*time.Second {
		t.Errorf("TLS handshake timeout %s, want the connect timeout 3s", tr.TLSHandshakeTimeout)
	}
	first, second := New(Config{ConnectTimeout: 3 * time.Second}), New(Config{ConnectTimeout: 3 * time.Second})
	if first.hc != second.hc {
		t.Error("clients with the same connect timeout must share one pool")
	}
}
