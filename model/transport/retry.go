package transport

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfterSeconds clamps absurd server values before converting them
// to a Duration, which would overflow past about 292 years.
const maxRetryAfterSeconds = 365 * 24 * 60 * 60

// retryableStatus applies the retry rules to a non-2xx response: the
// server's explicit x-should-retry wins, then the status decides.
func retryableStatus(resp *http.Response) bool {
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("x-should-retry"))) {
	case "true":
		return true
	case "false":
		return false
	}
	switch code := resp.StatusCode; {
	case code == http.StatusRequestTimeout, code == http.StatusConflict, code == http.StatusTooManyRequests:
		return true
	default:
		return code >= 500 && code <= 599
	}
}

// delay returns how long to wait before retry number attempt+1 and whether
// to retry at all. A server-requested wait is obeyed exactly unless it is
// longer than MaxRetryAfter, in which case the caller should rather see the
// error than hang. Otherwise the wait is exponential backoff, d =
// BaseDelay·2^attempt capped at MaxDelay, jittered into [d/2, d): jitter
// spreads the retries of many clients, and the floor keeps a retry against
// an overloaded server from coming back almost at once.
func (c *Client) delay(attempt int, retryAfter time.Duration) (time.Duration, bool) {
	if retryAfter > 0 {
		return retryAfter, retryAfter <= c.cfg.MaxRetryAfter
	}
	d := c.cfg.MaxDelay
	if attempt < 62 {
		if exp := c.cfg.BaseDelay << attempt; exp > 0 && exp>>attempt == c.cfg.BaseDelay && exp < d {
			d = exp
		}
	}
	r := c.cfg.Rand()
	if r < 0 || r >= 1 || math.IsNaN(r) {
		r = 0.5 // a broken seam must not produce negative or unbounded waits
	}
	return d/2 + time.Duration(r*float64(d/2)), true
}

// RetryAfter parses retry-after-ms, then Retry-After (delta-seconds or
// HTTP-date); 0 when absent/invalid. retry-after-ms is the OpenAI and
// Anthropic extension with sub-second precision; both it and delta-seconds
// accept fractional values, as the official SDKs do. Values are clamped to
// one year.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, ok := parseNonNegative(h.Get("retry-after-ms")); ok {
		return time.Duration(math.Min(ms, maxRetryAfterSeconds*1000) * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, ok := parseNonNegative(v); ok {
		return time.Duration(math.Min(s, maxRetryAfterSeconds) * float64(time.Second))
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	d := t.Sub(now)
	if d <= 0 {
		return 0
	}
	return min(d, maxRetryAfterSeconds*time.Second)
}

// parseNonNegative parses a finite, non-negative decimal number.
func parseNonNegative(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || (s[0] < '0' || s[0] > '9') && s[0] != '.' {
		return 0, false // rejects signs, "NaN", "Inf" and hex forms up front
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	return f, true
}
