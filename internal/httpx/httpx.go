// Package httpx is the HTTP layer shared by the model providers: one place
// that owns retries, backoff, Retry-After handling, the per-endpoint circuit
// breaker, header and idle timeouts, and the shape of transport and API
// errors (DESIGN.md §4: "retries happen at the HTTP layer only").
//
// A Client retries only before any response body reaches its caller; once
// Do has returned a 2xx response, the stream belongs to the caller and a
// failure while reading it is reported, never replayed.
package httpx

import (
	"context"
	"errors"
	"fmt"
	"github.com/reinharness/rein/internal/secret"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/reinharness/rein/model"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultMaxRetries    = 3
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultMaxDelay      = 8 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
	DefaultHeaderTimeout = 5 * time.Minute
	DefaultIdleTimeout   = 5 * time.Minute
)

// ErrIdleTimeout is returned (wrapped) by a response body read when the
// server sent no byte for longer than Config.IdleTimeout.
var ErrIdleTimeout = errors.New("httpx: model server stopped sending data")

// ErrHeaderTimeout is wrapped in the *model.ConnectError returned when a
// server accepted the request but sent no response headers within
// Config.HeaderTimeout. Such attempts are retried like other transport
// failures.
var ErrHeaderTimeout = errors.New("httpx: no response headers in time")

// Config configures a Client. The zero value is usable: New fills in the
// documented defaults.
type Config struct {
	Provider      string        // "openai"/"anthropic", used in errors
	HTTPClient    *http.Client  // nil → a client with sane transport defaults (no overall Timeout: streams are long)
	MaxRetries    int           // default 3 when 0; negative → no retries
	BaseDelay     time.Duration // default 500ms; exponential ×2 with jitter
	MaxDelay      time.Duration // default 8s (cap of computed backoff)
	MaxRetryAfter time.Duration // default 60s: a server asking for longer → return the error, don't sleep
	HeaderTimeout time.Duration // default 5m: max time from sending to response headers (per attempt)
	IdleTimeout   time.Duration // default 5m: max gap between body bytes once streaming
	Breaker       *Breaker      // nil → shared DefaultBreakers.For(endpoint)
	// ParseError builds the error for a non-2xx response from its (capped)
	// body; it may be nil or return nil, and then the status text and a
	// short excerpt of the body are used. Do fills in the fields it leaves
	// zero (Provider, StatusCode, RequestID, RetryAfter) and redacts Message.
	ParseError func(resp *http.Response, body []byte) *model.APIError
	// Sleep waits between attempts; it must return ctx's error as soon as
	// ctx is done. nil → a timer honouring ctx. It is a test seam.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for backoff jitter. nil → math/rand/v2.
	Rand func() float64
}

// Client sends model requests with the retry, breaker and timeout policy of
// its Config. It is safe for concurrent use; create one per provider
// instance and reuse it, so connections are pooled.
type Client struct {
	cfg Config
	hc  *http.Client
}

// New returns a Client for cfg, with defaults applied to zero fields.
func New(cfg Config) *Client {
	if cfg.Provider == "" {
		cfg.Provider = "model"
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	cfg.BaseDelay = orDefault(cfg.BaseDelay, DefaultBaseDelay)
	cfg.MaxDelay = orDefault(cfg.MaxDelay, DefaultMaxDelay)
	cfg.MaxRetryAfter = orDefault(cfg.MaxRetryAfter, DefaultMaxRetryAfter)
	cfg.HeaderTimeout = orDefault(cfg.HeaderTimeout, DefaultHeaderTimeout)
	cfg.IdleTimeout = orDefault(cfg.IdleTimeout, DefaultIdleTimeout)
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	return &Client{cfg: cfg, hc: hc}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// defaultHTTPClient is shared by every Client without its own, so that all
// providers pool connections together. It has no overall Timeout because a
// model stream may legitimately last many minutes; Do enforces the header
// and idle timeouts instead.
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 15 * time.Second
	t.MaxIdleConnsPerHost = 16
	t.IdleConnTimeout = 90 * time.Second
	t.ForceAttemptHTTP2 = true
	return &http.Client{Transport: t}
})

// sleep waits for d or until ctx is done, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Do sends a request, retrying per policy BEFORE any body byte reaches the
// caller.
//
// endpoint is the base URL used for the circuit breaker key and for error
// text; credentials, query and fragment are stripped from it first. newReq
// is called once per attempt (bodies are not reusable) with the attempt's
// context.
//
// On 2xx it returns the response; resp.Body is wrapped so that (a) a gap
// longer than IdleTimeout fails the read with an error wrapping
// ErrIdleTimeout, (b) ctx cancellation unblocks reads at once, (c) Close
// releases everything. The caller must Close it.
//
// On non-2xx it reads (a capped amount of) the body and returns
// *model.APIError (StatusCode, Type, Message, RequestID from
// x-request-id/request-id, RetryAfter) built by ParseError (fallback: status
// text + short body). Transport failures (dial refused, DNS, reset before
// headers, HeaderTimeout) → *model.ConnectError{Endpoint, Err}; but ctx
// cancellation/deadline is returned as ctx.Err() (wrapped), never as a
// ConnectError. While the endpoint's breaker is open, Do fails fast with an
// error wrapping model.ErrCircuitOpen (and the last attempt's error, if any).
//
// Retried: transport errors before headers and statuses 408, 409, 429 and
// 500-599, unless the server says "x-should-retry: false"; any status with
// "x-should-retry: true". The wait is the server's retry-after-ms or
// Retry-After when present (more than MaxRetryAfter → no retry), otherwise
// exponential backoff with jitter capped at MaxDelay.
func (c *Client) Do(ctx context.Context, endpoint string, newReq func(ctx context.Context) (*http.Request, error)) (*http.Response, error) {
	ep := CleanEndpoint(endpoint)
	br := c.cfg.Breaker
	if br == nil {
		br = DefaultBreakers.For(ep)
	}
	var last error
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, c.errorf(ep, "%w", err)
		}
		probe, err := br.allow(c.cfg.Provider, ep)
		if err != nil {
			if last != nil {
				return nil, fmt.Errorf("%w; last error: %w", err, last)
			}
			return nil, err
		}
		res := c.attempt(ctx, ep, newReq)
		br.record(res.health, probe)
		if res.err == nil {
			return res.resp, nil
		}
		if !res.retryable || attempt >= c.cfg.MaxRetries {
			return nil, res.err
		}
		delay, ok := c.delay(attempt, res.retryAfter)
		if !ok {
			return nil, res.err
		}
		last = res.err
		if err := c.cfg.Sleep(ctx, delay); err != nil {
			return nil, c.errorf(ep, "gave up waiting %s to retry after %v: %w", delay, last, ctxErr(ctx, err))
		}
	}
}

// ctxErr prefers ctx's own error so callers can test for
// context.Canceled/DeadlineExceeded even when a Sleep seam returned
// something else.
func ctxErr(ctx context.Context, err error) error {
	if e := ctx.Err(); e != nil {
		return e
	}
	return err
}

// CleanEndpoint returns endpoint without user info, query and fragment, so
// it can appear in errors and key the circuit breaker without leaking
// credentials that some deployments put in URLs.
func CleanEndpoint(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		// Unparseable: cut anything that might be a credential.
		s := endpoint
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
		if i := strings.LastIndexByte(s, '@'); i >= 0 {
			if j := strings.Index(s, "://"); j >= 0 && j < i {
				s = s[:j+3] + s[i+1:]
			} else {
				s = s[i+1:]
			}
		}
		return Redact(s)
	}
	u.User = nil
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return strings.TrimSuffix(u.String(), "/")
}

// errorf prefixes errors with the provider and endpoint they concern.
func (c *Client) errorf(ep, format string, args ...any) error {
	return fmt.Errorf("%s request to %s: "+format, append([]any{c.cfg.Provider, ep}, args...)...)
}

// Redact removes secrets from server text before it goes into an error;
// see secret.Redact.
func Redact(s string) string { return secret.Redact(s) }
