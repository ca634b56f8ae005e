package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reinharness/rein/model"
)

// maxErrorBody caps how much of an error response is read: enough for any
// provider's JSON error object, bounded against hostile servers.
const maxErrorBody = 64 << 10

// maxDrain is how much of an unread error body is discarded so the
// connection can be reused; anything longer is cheaper to drop.
const maxDrain = 4 << 10

// maxExcerpt bounds the body excerpt in a fallback error message.
const maxExcerpt = 512

// health is what one attempt says about the endpoint, for the breaker.
type health int

const (
	neutral   health = iota // says nothing: cancelled, rate limited, bad request built locally
	healthy                 // the server answered sensibly
	unhealthy               // transport failure or server error
)

// result is the outcome of one attempt.
type result struct {
	resp       *http.Response // 2xx only, body wrapped
	err        error
	retryable  bool
	retryAfter time.Duration // server-requested wait, 0 if none
	health     health
}

// attempt performs one HTTP exchange: it never sleeps and never retries.
func (c *Client) attempt(r *call, newReq func(context.Context) (*http.Request, error)) result {
	ep := r.ep
	actx, cancel := context.WithCancelCause(r.ctx)
	req, err := newReq(actx)
	if err != nil {
		cancel(nil)
		return result{err: c.errorf(ep, "cannot build the request: %w", err)}
	}
	if req == nil {
		cancel(nil)
		return result{err: c.errorf(ep, "cannot build the request: no request and no error")}
	}
	if req.URL == nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		cancel(nil)
		if req.Body != nil {
			req.Body.Close()
		}
		return result{err: c.errorf(ep, "the endpoint must be an http:// or https:// URL with a host")}
	}
	timer := time.AfterFunc(c.cfg.HeaderTimeout, func() { cancel(ErrHeaderTimeout) })
	resp, err := c.hc.Do(req)
	if !timer.Stop() && err == nil {
		// The timer fired just as the headers arrived; the attempt's
		// context is already cancelled, so the body is unusable.
		resp.Body.Close()
		err = ErrHeaderTimeout
	}
	if err != nil {
		cancel(nil)
		return c.transportFailure(r, actx, err)
	}
	body := newIdleBody(r, actx, cancel, resp.Body, c.cfg.IdleTimeout, c.cfg.Provider)
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		body.release = r.cancel
		resp.Body = body
		return result{resp: resp, health: healthy}
	}
	return c.statusFailure(r, resp, body)
}

// transportFailure classifies an error from http.Client.Do.
func (c *Client) transportFailure(r *call, actx context.Context, err error) result {
	ep := r.ep
	if stop := r.stopped(); stop != nil {
		return result{err: stop}
	}
	if errors.Is(context.Cause(actx), ErrHeaderTimeout) || errors.Is(err, ErrHeaderTimeout) {
		d := c.cfg.HeaderTimeout
		return result{
			err: &model.TimeoutError{
				Endpoint: ep, Setting: "model.header_timeout", Limit: d, Err: ErrHeaderTimeout,
				Message: fmt.Sprintf("the model server at %s accepted the connection but sent no response headers in %s (model.header_timeout)", ep, d),
			},
			retryable: true,
			health:    unhealthy,
		}
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		// url.Error repeats the full request URL, which may carry a key
		// in its query; the endpoint in ConnectError is already clean.
		err = ue.Err
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		// The dial or the TLS handshake ran past ConnectTimeout.
		err = &ConnectTimeoutError{Limit: c.cfg.ConnectTimeout, Err: err}
	}
	return result{
		err:       &model.ConnectError{Endpoint: ep, Err: err},
		retryable: true,
		health:    unhealthy,
	}
}

// ConnectTimeoutError is the cause inside a *model.ConnectError when the
// TCP connect or the TLS handshake ran past Config.ConnectTimeout. It
// wraps ErrConnectTimeout and the transport's own error.
type ConnectTimeoutError struct {
	Limit time.Duration
	Err   error
}

func (e *ConnectTimeoutError) Error() string {
	return fmt.Sprintf("no connection within %s (model.connect_timeout)", e.Limit)
}

func (e *ConnectTimeoutError) Unwrap() []error { return []error{ErrConnectTimeout, e.Err} }

// statusFailure turns a non-2xx response into an *model.APIError, reading
// and releasing its body.
func (c *Client) statusFailure(r *call, resp *http.Response, body *idleBody) result {
	data, readErr := io.ReadAll(io.LimitReader(body, maxErrorBody))
	_, _ = io.CopyN(io.Discard, body, maxDrain)
	body.Close()
	if stop := r.stopped(); readErr != nil && stop != nil {
		return result{err: stop}
	}
	now := time.Now()
	apiErr := c.apiError(resp, data, now)
	res := result{err: apiErr, retryAfter: apiErr.RetryAfter, retryable: retryableStatus(resp)}
	switch {
	case resp.StatusCode >= 500:
		res.health = unhealthy
	case resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode == http.StatusConflict,
		resp.StatusCode == http.StatusTooManyRequests:
		res.health = neutral // a busy or rate-limiting server is still up
	default:
		res.health = healthy // 4xx: the server works, the request is wrong
	}
	return res
}

// apiError builds the error for a non-2xx response, letting the provider
// parse its error format and filling in what it left out.
func (c *Client) apiError(resp *http.Response, body []byte, now time.Time) *model.APIError {
	var e *model.APIError
	if c.cfg.ParseError != nil {
		e = c.cfg.ParseError(resp, body)
	}
	if e == nil {
		e = &model.APIError{Message: fallbackMessage(resp, body)}
	}
	if e.Provider == "" {
		e.Provider = c.cfg.Provider
	}
	if e.StatusCode == 0 {
		e.StatusCode = resp.StatusCode
	}
	if e.RequestID == "" {
		e.RequestID = requestID(resp.Header)
	}
	if e.RetryAfter == 0 {
		e.RetryAfter = RetryAfter(resp.Header, now)
	}
	if e.Message == "" {
		e.Message = fallbackMessage(resp, body)
	}
	e.Message = Redact(e.Message)
	return e
}

func requestID(h http.Header) string {
	id := h.Get("x-request-id")
	if id == "" {
		id = h.Get("request-id")
	}
	return Redact(oneLine(id, 200))
}

// fallbackMessage describes a response whose body the provider could not
// parse: the status text and the start of the body, on one line.
func fallbackMessage(resp *http.Response, body []byte) string {
	msg := http.StatusText(resp.StatusCode)
	switch {
	case resp.StatusCode == 529:
		msg = "Overloaded" // Anthropic's (and others') nonstandard status
	case msg == "":
		msg = fmt.Sprintf("HTTP status %d", resp.StatusCode)
	}
	if ex := oneLine(string(body), maxExcerpt); ex != "" {
		msg += ": " + ex
	}
	return Redact(msg)
}

// oneLine collapses whitespace runs (including newlines) to one space and
// cuts s to at most n bytes on a UTF-8 boundary, marking the cut.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
