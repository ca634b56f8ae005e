// Package transport is the HTTP layer shared by the model providers: one place
// that owns retries, backoff, Retry-After handling, the per-endpoint circuit
// breaker, the bounds on every wait (connect, response headers, stream
// silence, the whole request, the retry budget), and the shape of
// transport, timeout and API errors (DESIGN.md §4: "retries happen at the
// HTTP layer only").
//
// A Client retries only before any response body reaches its caller; once
// Do has returned a 2xx response, the stream belongs to the caller and a
// failure while reading it is reported, never replayed.
//
// It is public so that a library user configures a provider's transport
// as the rein CLI does (openai.Config.HTTP, anthropic.Config.HTTP: retries,
// every timeout, a breaker of their own) and tells its failures apart with
// errors.Is (ErrIdleTimeout, ErrHeaderTimeout, ErrConnectTimeout,
// ErrRequestTimeout) and errors.As (*model.TimeoutError, *model.ConnectError).
package transport

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/model"
)

// Defaults applied by New to zero Config fields. The waits fit both a
// local llama.cpp, which may process a long prompt for minutes before its
// first byte, and a remote API: connecting is quick or broken, the first
// byte may be slow, a stream that goes quiet for minutes is dead, and no
// request runs for more than half an hour.
const (
	DefaultMaxRetries     = 3
	DefaultBaseDelay      = 500 * time.Millisecond
	DefaultMaxDelay       = 8 * time.Second
	DefaultMaxRetryAfter  = 60 * time.Second
	DefaultConnectTimeout = 30 * time.Second
	DefaultHeaderTimeout  = 10 * time.Minute
	DefaultIdleTimeout    = 5 * time.Minute
	DefaultRequestTimeout = 30 * time.Minute
	DefaultRetryBudget    = 2 * time.Minute
)

// ErrIdleTimeout is returned (wrapped in a *model.TimeoutError) by a
// response body read when the server sent no byte for longer than
// Config.IdleTimeout.
var ErrIdleTimeout = errors.New("model transport: model server stopped sending data")

// ErrHeaderTimeout is wrapped in the *model.TimeoutError returned when a
// server accepted the request but sent no response headers within
// Config.HeaderTimeout. Such attempts are retried like other transport
// failures, within the retry budget.
var ErrHeaderTimeout = errors.New("model transport: no response headers in time")

// ErrConnectTimeout is wrapped in the *model.ConnectError returned when
// the TCP connect or the TLS handshake took longer than
// Config.ConnectTimeout.
var ErrConnectTimeout = errors.New("model transport: no connection in time")

// ErrRequestTimeout is wrapped in the *model.TimeoutError returned when a
// request, retries and streaming included, ran past Config.RequestTimeout.
var ErrRequestTimeout = errors.New("model transport: model request deadline exceeded")

// Config configures a Client. The zero value is usable: New fills in the
// documented defaults.
type Config struct {
	Provider   string        // "openai"/"anthropic", used in errors
	HTTPClient *http.Client  // nil → a client with sane transport defaults (no overall Timeout: streams are long)
	MaxRetries int           // default 3 when 0; negative → no retries
	BaseDelay  time.Duration // default 500ms; exponential ×2 with jitter
	MaxDelay   time.Duration // default 8s (cap of computed backoff)
	// MaxRetryAfter is the longest server-requested wait (Retry-After)
	// obeyed; a server asking for longer gets its error returned at once.
	// Default 60s.
	MaxRetryAfter time.Duration
	// ConnectTimeout bounds the TCP connect and the TLS handshake of a
	// new connection. Default 30s. It applies only to the default
	// HTTPClient (a caller's own client brings its own transport).
	ConnectTimeout time.Duration
	// HeaderTimeout bounds the wait from sending a request to its
	// response headers, per attempt: a local server processing a long
	// prompt sends nothing until the first token. Default 10m.
	HeaderTimeout time.Duration
	// IdleTimeout is the longest gap between body bytes once streaming.
	// Default 5m.
	IdleTimeout time.Duration
	// RequestTimeout bounds a whole request: every attempt, the waits
	// between them and reading the body to its end, so a server that
	// trickles bytes cannot hold a run forever. Default 30m; negative →
	// none (the other bounds still hold).
	RequestTimeout time.Duration
	// RetryBudget bounds the time spent retrying: no new attempt starts
	// once it would begin more than RetryBudget after the first. So the
	// wait for a response is at most RetryBudget + HeaderTimeout (and
	// never more than RequestTimeout). Default 2m; negative → no retries.
	RetryBudget time.Duration
	Breaker     *Breaker // nil → shared defaultBreakers.For(endpoint)
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
	cfg.ConnectTimeout = orDefault(cfg.ConnectTimeout, DefaultConnectTimeout)
	cfg.HeaderTimeout = orDefault(cfg.HeaderTimeout, DefaultHeaderTimeout)
	cfg.IdleTimeout = orDefault(cfg.IdleTimeout, DefaultIdleTimeout)
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.RetryBudget == 0 {
		cfg.RetryBudget = DefaultRetryBudget
	} else if cfg.RetryBudget < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient(cfg.ConnectTimeout)
	}
	return &Client{cfg: cfg, hc: hc}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// defaultClients holds one *http.Client per connect timeout, shared by
// every Client without its own, so that providers with the same settings
// pool connections together. They have no overall Timeout because a model
// stream may legitimately last many minutes; Do enforces the header, idle
// and request timeouts instead.
var defaultClients sync.Map // time.Duration → *http.Client

// defaultHTTPClient returns the shared client whose dials and TLS
// handshakes are bounded by connect.
func defaultHTTPClient(connect time.Duration) *http.Client {
	if hc, ok := defaultClients.Load(connect); ok {
		return hc.(*http.Client)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = connect
	t.MaxIdleConnsPerHost = 16
	t.IdleConnTimeout = 90 * time.Second
	t.ForceAttemptHTTP2 = true
	hc, _ := defaultClients.LoadOrStore(connect, &http.Client{Transport: t})
	return hc.(*http.Client)
}

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
// longer than IdleTimeout fails the read with a *model.TimeoutError
// wrapping ErrIdleTimeout, (b) reads past RequestTimeout (counted from
// the call of Do) fail with one wrapping ErrRequestTimeout, (c) ctx
// cancellation unblocks reads at once, (d) Close releases everything. The
// caller must Close it.
//
// On non-2xx it reads (a capped amount of) the body and returns
// *model.APIError (StatusCode, Type, Message, RequestID from
// x-request-id/request-id, RetryAfter, Attempts) built by ParseError
// (fallback: status text + short body). Transport failures (dial refused,
// DNS, reset before headers, ConnectTimeout) → *model.ConnectError{Endpoint,
// Err}; a server that accepted the request but sent no headers within
// HeaderTimeout, or a request past RequestTimeout → *model.TimeoutError;
// ctx cancellation/deadline is returned as ctx.Err() (wrapped), never as
// either. While the endpoint's breaker is open, Do fails fast with an error
// wrapping model.ErrCircuitOpen (and the last attempt's error, if any).
//
// Retried: transport errors before headers and statuses 408, 409, 429 and
// 500-599, unless the server says "x-should-retry: false"; any status with
// "x-should-retry: true". The wait is the server's retry-after-ms or
// Retry-After when present (more than MaxRetryAfter → no retry), otherwise
// exponential backoff with jitter capped at MaxDelay. No attempt starts
// later than RetryBudget after the first, or past RequestTimeout. Before
// each wait, the observer of ctx (WithRetryObserver) is told.
func (c *Client) Do(ctx context.Context, endpoint string, newReq func(ctx context.Context) (*http.Request, error)) (*http.Response, error) {
	r := c.newCall(ctx, endpoint)
	br := c.cfg.Breaker
	if br == nil {
		br = defaultBreakers.For(r.ep)
	}
	var last error
	for attempt := 0; ; attempt++ {
		if err := r.stopped(); err != nil {
			return nil, r.fail(err)
		}
		probe, err := br.allow(c.cfg.Provider, r.ep)
		if err != nil {
			if last != nil {
				return nil, r.fail(fmt.Errorf("%w; last error: %w", err, last))
			}
			return nil, r.fail(err)
		}
		res := c.attempt(r, newReq)
		br.record(res.health, probe)
		if res.err == nil {
			return res.resp, nil
		}
		setAttempts(res.err, attempt+1)
		if !res.retryable || attempt >= c.cfg.MaxRetries {
			return nil, r.fail(res.err)
		}
		delay, ok := c.delay(attempt, res.retryAfter)
		if !ok || !r.canRetryAfter(delay) {
			return nil, r.fail(res.err)
		}
		last = res.err
		observeRetry(r.parent, Retry{Endpoint: r.ep, Attempt: attempt + 1, MaxAttempts: c.cfg.MaxRetries + 1, Delay: delay, Err: res.err})
		if err := c.cfg.Sleep(r.ctx, delay); err != nil {
			if r.parent.Err() == nil && r.ctx.Err() != nil {
				return nil, r.fail(r.deadlineError())
			}
			return nil, r.fail(c.errorf(r.ep, "gave up waiting %s to retry after %v: %w", delay, last, ctxErr(r.parent, err)))
		}
	}
}

// setAttempts records on err how many requests were sent for it.
func setAttempts(err error, n int) {
	if ae, ok := errors.AsType[*model.APIError](err); ok {
		ae.Attempts = n
	}
	if te, ok := errors.AsType[*model.TimeoutError](err); ok {
		te.Attempts = n
	}
}

// call is the state of one Do: the caller's context, the request
// deadline's context derived from it, and when it began.
type call struct {
	c      *Client
	parent context.Context // the caller's
	ctx    context.Context // parent bounded by RequestTimeout
	cancel context.CancelFunc
	ep     string
	start  time.Time
}

func (c *Client) newCall(ctx context.Context, endpoint string) *call {
	r := &call{c: c, parent: ctx, ctx: ctx, cancel: func() {}, ep: CleanEndpoint(endpoint), start: time.Now()}
	if c.cfg.RequestTimeout > 0 {
		r.ctx, r.cancel = context.WithTimeoutCause(ctx, c.cfg.RequestTimeout, ErrRequestTimeout)
	}
	return r
}

// fail releases the request deadline and returns err.
func (r *call) fail(err error) error {
	r.cancel()
	return err
}

// stopped returns the error to report when the caller cancelled or the
// request deadline passed, nil while neither happened.
func (r *call) stopped() error {
	if err := r.parent.Err(); err != nil {
		return r.c.errorf(r.ep, "%w", err)
	}
	if r.ctx.Err() != nil {
		return r.deadlineError()
	}
	return nil
}

// deadlineError is the error of a request that ran past RequestTimeout.
func (r *call) deadlineError() error {
	d := r.c.cfg.RequestTimeout
	return &model.TimeoutError{
		Endpoint: r.ep, Setting: "model.request_timeout", Limit: d, Err: ErrRequestTimeout,
		Message: fmt.Sprintf("the model server at %s did not finish answering within %s (model.request_timeout)", r.ep, d),
	}
}

// canRetryAfter reports whether an attempt starting delay from now stays
// within the retry budget and the request deadline.
func (r *call) canRetryAfter(delay time.Duration) bool {
	at := time.Since(r.start) + delay
	if at > r.c.cfg.RetryBudget {
		return false
	}
	return r.c.cfg.RequestTimeout <= 0 || at < r.c.cfg.RequestTimeout
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
