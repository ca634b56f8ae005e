// Package web provides the web_fetch tool: it fetches an http(s) URL and
// returns it as text for the model — HTML converted to markdown, other
// text as it is, binary refused — under a size cap, a timeout and a
// redirect limit, with a window (start, max_length) over long pages.
//
// Its effect is the network (tool.Effects{Network: true, URLArg: "url"}),
// so the policy decides it as such and by host ([network] rules, see
// policy/netrules). The tool itself refuses loopback, private,
// link-local and metadata addresses, checked on the address each
// connection reaches (after DNS resolution, on every redirect), unless a
// [network] allow rule names them, and never follows a redirect to a
// host the rules deny.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/policy/netrules"
	"github.com/reinharness/rein/tool"
)

// ToolName is the tool's name.
const ToolName = "web_fetch"

// Defaults of Options.
const (
	DefaultMaxBodyBytes = 5 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 5
	// DefaultMaxLength is the window's size in characters when the call
	// gives none; MaxLength bounds what a call may ask for (the agent caps
	// the result besides).
	DefaultMaxLength = 20000
	MaxLength        = 100000
)

// Options configure the tool. The zero value uses the defaults and no
// host rules.
type Options struct {
	// Rules are the [network] rules: the tool refuses hosts and addresses
	// they deny, and reaches non-public addresses only when they allow
	// them.
	Rules netrules.Rules
	// MaxBodyBytes bounds what is read of a response body; a longer one
	// is cut there, with a note.
	MaxBodyBytes int64
	// Timeout bounds a whole call: connecting, redirects and reading the
	// body (a server that trickles bytes cannot hold it longer).
	Timeout time.Duration
	// MaxRedirects bounds the redirects followed.
	MaxRedirects int
	// UserAgent is sent with each request (default "rein web_fetch").
	UserAgent string
}

func (o Options) withDefaults() Options {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.UserAgent == "" {
		o.UserAgent = "rein web_fetch"
	}
	return o
}

// Input is web_fetch's argument object.
type Input struct {
	URL       string `json:"url" jsonschema:"the http or https URL to fetch"`
	Start     int    `json:"start,omitempty" jsonschema:"character offset to start at, for reading a long page in parts (default 0)"`
	MaxLength int    `json:"max_length,omitempty" jsonschema:"most characters to return (default 20000, at most 100000)"`
}

// New returns the web_fetch tool.
func New(opts Options) tool.Tool {
	f := newFetcher(opts.withDefaults())
	return tool.Func(ToolName,
		"Fetch an http(s) URL and return its content as text: HTML converted to markdown, other text as it is (binary content is refused). "+
			"Long pages are returned in parts: pass start to read on where the previous part ended.",
		f.call,
		tool.WithEffects(tool.Effects{Network: true, URLArg: "url"}),
		tool.WithAnnotations(tool.Annotations{Title: "Fetch a web page", ReadOnlyHint: new(true), OpenWorldHint: new(true)}),
		// The tool's own timeout governs; the agent's must not cut it first.
		tool.WithTimeout(opts.withDefaults().Timeout+5*time.Second),
	)
}

// fetcher is the tool's HTTP client and limits; safe for concurrent use.
type fetcher struct {
	opts   Options
	client *http.Client
}

func newFetcher(opts Options) *fetcher {
	g := &guard{rules: opts.Rules}
	tr := &http.Transport{
		// No proxy from the environment: the guard must see the address
		// the request reaches, not a proxy's.
		Proxy:                 nil,
		DialContext:           g.dialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	f := &fetcher{opts: opts}
	f.client = &http.Client{Transport: tr, CheckRedirect: f.checkRedirect}
	return f
}

// crossHost is a redirect to another host that no allow rule names: the
// model is told where it leads, and a new call (decided by the policy for
// that host) follows it.
type crossHost struct{ to string }

func (e *crossHost) Error() string { return "redirect to another host: " + e.to }

// checkRedirect follows at most MaxRedirects redirects, over http(s)
// only, to the same host or one an allow rule names; a denied host is
// refused, another host is reported (see crossHost). The dial guard
// still checks each hop's address.
func (f *fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.opts.MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", f.opts.MaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("refused a redirect to %q: only http and https are fetched", req.URL.Scheme)
	}
	host := req.URL.Hostname()
	v, rule := f.opts.Rules.Decide(host)
	switch {
	case v == netrules.Denied:
		return fmt.Errorf("%w: the redirect to %s matches the [network] deny rule %q", ErrBlockedAddress, host, rule)
	case strings.EqualFold(host, via[0].URL.Hostname()) || v == netrules.Allowed:
		return nil
	}
	return &crossHost{to: req.URL.String()}
}

// call is the tool's function.
func (f *fetcher) call(ctx context.Context, in Input) (string, error) {
	u, err := checkURL(in.URL)
	if err != nil {
		return "", err
	}
	if in.Start < 0 {
		return "", errors.New("start must be 0 or more")
	}
	maxLen := in.MaxLength
	switch {
	case maxLen < 0:
		return "", errors.New("max_length must be positive")
	case maxLen == 0:
		maxLen = DefaultMaxLength
	case maxLen > MaxLength:
		maxLen = MaxLength
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json, */*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return "", f.explain(ctx, u, err)
	}
	defer resp.Body.Close()
	body, cut, err := readCapped(resp.Body, f.opts.MaxBodyBytes)
	if err != nil {
		return "", f.explain(ctx, u, fmt.Errorf("reading the body: %w", err))
	}
	page, err := render(resp, body)
	if err != nil {
		return "", err
	}
	return page.format(resp, cut, f.opts.MaxBodyBytes, in.Start, maxLen), nil
}

// checkURL accepts absolute http(s) URLs with a host, and nothing with
// credentials in it (they would be sent to the host and logged).
func checkURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("url is empty: pass an http or https URL")
	}
	if len(raw) > 8192 {
		return nil, errors.New("url is longer than 8192 characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("url %q does not parse: %v", textclip.Clip(raw, 200), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("url %q: only http and https URLs are fetched", textclip.Clip(raw, 200))
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("url %q has no host", textclip.Clip(raw, 200))
	}
	if u.User != nil {
		return nil, errors.New("url contains credentials (user:password@); web_fetch does not send them")
	}
	u.Fragment = ""
	return u, nil
}

// explain words a failed fetch for the model.
func (f *fetcher) explain(ctx context.Context, u *url.URL, err error) error {
	var ch *crossHost
	switch {
	case errors.As(err, &ch):
		return fmt.Errorf("%s redirects to another host, %s; call web_fetch with that URL to follow it", u, ch.to)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("fetching %s took longer than %v; the server is too slow or stalled", u, f.opts.Timeout)
	}
	return fmt.Errorf("fetching %s: %w", u, err)
}

// readCapped reads at most limit bytes of r and reports whether there was
// more.
func readCapped(r io.Reader, limit int64) ([]byte, bool, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}
