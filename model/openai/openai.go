// Package openai is rein's provider for OpenAI-compatible Chat Completions
// servers: llama.cpp's llama-server first, then vLLM, OpenAI and the many
// services that speak the same wire format.
//
// The client is rein's own thin code over net/http (through model/transport,
// which owns retries, timeouts and the circuit breaker). Streams are parsed
// chunk by chunk into model events; tool-call fragments are assembled here
// and only complete calls with parsed arguments leave the package.
package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/transport"
)

const providerName = "openai"

// maxToolCalls bounds the tool calls one response may carry, so a hostile
// stream cannot make the parser hold an unbounded number of builders.
const maxToolCalls = 256

// ErrInvalidRequest reports a Request the provider cannot send (a reserved
// Extra key, a tool call without an id, invalid JSON arguments, …). It is
// returned before any network traffic.
var ErrInvalidRequest = errors.New("openai: invalid request")

// ErrMalformedResponse reports a response that does not follow the Chat
// Completions format and cannot be repaired: a chunk that is not JSON, tool
// arguments that are not a JSON object, an unexpected content type.
var ErrMalformedResponse = errors.New("openai: malformed response from the model server")

// ErrBadConfig reports an unusable Config.
var ErrBadConfig = errors.New("openai: bad configuration")

// Config configures a Provider.
type Config struct {
	// BaseURL is the server's address, with or without the API version:
	// "http://127.0.0.1:8080" and "http://127.0.0.1:8080/v1" both work. A
	// bare host gets "/v1" appended; any other path is kept as given (for
	// services mounted elsewhere, e.g. "https://host/api/v1").
	BaseURL string
	// APIKey is sent as a bearer token when set. It never appears in
	// errors or logs.
	APIKey string
	// Model is the default model, used when Request.Model is empty.
	// llama-server serves one model and accepts any name.
	Model string
	// NoStreaming requests whole responses instead of event streams; Stream
	// still yields the same events.
	NoStreaming bool
	// ContextWindow is the model's context window in tokens. Zero means
	// discover it from the server (see Provider.ContextWindow).
	ContextWindow int
	// Headers are extra request headers, e.g. for a gateway.
	Headers map[string]string
	// MaxResponseBytes caps the content of one answer: its text,
	// reasoning and tool-call arguments together. A stream that passes it
	// is abandoned with an error wrapping model.ErrResponseTooLarge; a
	// whole (non-streamed) response body may be twice as large, for its
	// JSON escaping. 0 means model.DefaultMaxResponseBytes.
	MaxResponseBytes int
	// HTTP configures retries and timeouts. Provider and ParseError are
	// filled in by New.
	HTTP transport.Config
}

// Provider talks to one OpenAI-compatible server. It is safe for concurrent
// use; each Stream call is an independent request.
type Provider struct {
	model       string
	noStreaming bool
	chatURL     string // {base}/chat/completions
	modelsURL   string // {base}/models
	propsURL    string // {root}/props (llama.cpp)
	headers     http.Header
	client      *transport.Client
	fixedWindow int
	maxBytes    int

	windowMu    sync.Mutex
	window      int
	windowKnown bool
}

var _ model.Provider = (*Provider)(nil)
var _ model.ContextWindower = (*Provider)(nil)

// New validates cfg and returns a Provider. It makes no network requests.
func New(cfg Config) (*Provider, error) {
	base, root, err := normalizeBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("%w: MaxResponseBytes is %d; use 0 for the default", ErrBadConfig, cfg.MaxResponseBytes)
	}
	if cfg.ContextWindow < 0 {
		return nil, fmt.Errorf("%w: ContextWindow is %d; use 0 to discover it", ErrBadConfig, cfg.ContextWindow)
	}
	h := make(http.Header, len(cfg.Headers)+3)
	for k, v := range cfg.Headers {
		if !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("%w: header %q is not a valid HTTP header", ErrBadConfig, k)
		}
		h.Set(k, v)
	}
	if cfg.APIKey != "" {
		if strings.ContainsAny(cfg.APIKey, "\r\n\x00 ") {
			return nil, fmt.Errorf("%w: the API key contains whitespace or control characters; check how it was pasted", ErrBadConfig)
		}
		h.Set("Authorization", "Bearer "+cfg.APIKey)
		// Servers echo keys back in error text; rein never repeats them.
		secret.Register(cfg.APIKey)
	}
	h.Set("Content-Type", "application/json")
	hc := cfg.HTTP
	hc.Provider = providerName
	hc.ParseError = parseErrorResponse
	return &Provider{
		model:       cfg.Model,
		noStreaming: cfg.NoStreaming,
		chatURL:     base + "/chat/completions",
		modelsURL:   base + "/models",
		propsURL:    root + "/props",
		headers:     h,
		client:      transport.New(hc),
		fixedWindow: cfg.ContextWindow,
		maxBytes:    cfg.MaxResponseBytes,
	}, nil
}

// normalizeBaseURL returns the API base (ending in the version path) and
// the server root (the base without a trailing "/v1").
func normalizeBaseURL(raw string) (base, root string, err error) {
	if strings.TrimSpace(raw) == "" {
		return "", "", fmt.Errorf("%w: BaseURL is empty; set it to the server address, e.g. http://127.0.0.1:8080", ErrBadConfig)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("%w: BaseURL %q is not an http(s) URL with a host, e.g. http://127.0.0.1:8080", ErrBadConfig, redactURL(raw))
	}
	if u.User != nil {
		return "", "", fmt.Errorf("%w: BaseURL carries credentials; pass the key as APIKey instead", ErrBadConfig)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("%w: BaseURL %q has a query or fragment; give only scheme, host and path", ErrBadConfig, redactURL(raw))
	}
	p := strings.TrimRight(u.Path, "/")
	// A pasted full endpoint still works.
	p = strings.TrimSuffix(p, "/chat/completions")
	if p == "" {
		p = "/v1"
	}
	u.Path, u.RawPath = p, ""
	base = u.String()
	root = strings.TrimSuffix(base, "/v1")
	return base, root, nil
}

// redactURL hides anything after the host, where tokens sometimes hide.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host + "/…"
	}
	if len(raw) > 40 {
		return raw[:40] + "…"
	}
	return raw
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// Stream sends req and yields its events: text and reasoning deltas,
// complete tool calls, usage, and a final EventStop. Failures are yielded
// as errors: *model.APIError for error answers (also inside a 200 stream),
// *model.ConnectError when the server cannot be reached, *model.TimeoutError
// when a reachable server ran past a bound of the HTTP config, a wrapped
// model.ErrIncompleteStream when the stream breaks off, a wrapped
// model.ErrResponseTooLarge past MaxResponseBytes, ErrMalformedResponse
// for output that cannot be parsed, and the context's error on
// cancellation.
func (p *Provider) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		if req == nil {
			yield(model.Event{}, fmt.Errorf("%w: nil Request", ErrInvalidRequest))
			return
		}
		body, err := buildBody(req, p.model, !p.noStreaming)
		if err != nil {
			yield(model.Event{}, err)
			return
		}
		// Errors caused by cancellation are reported as such, whatever
		// layer noticed them first.
		guarded := func(ev model.Event, err error) bool {
			if err != nil && ctx.Err() != nil {
				err = fmt.Errorf("openai: request stopped: %w", ctx.Err())
			}
			return yield(ev, err)
		}
		resp, err := p.client.Do(ctx, p.chatURL, func(ctx context.Context) (*http.Request, error) {
			r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.chatURL, bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			r.Header = p.headers.Clone()
			if !p.noStreaming {
				r.Header.Set("Accept", "text/event-stream")
			}
			return r, nil
		})
		if err != nil {
			guarded(model.Event{}, err)
			return
		}
		defer resp.Body.Close()
		p.readResponse(resp, guarded)
	}
}

// readResponse parses a 2xx response by its content type: servers that
// ignore "stream": true answer with one JSON document, which is fine.
func (p *Provider) readResponse(resp *http.Response, yield func(model.Event, error) bool) {
	meta := streamMeta{status: resp.StatusCode, requestID: requestID(resp.Header), maxBytes: p.maxBytes}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch {
	case mt == "text/event-stream" || (mt == "" && !p.noStreaming):
		parseStream(resp.Body, meta, yield)
	case mt == "application/json" || mt == "":
		size := model.AnswerSize{Max: p.maxBytes}
		limit := 2*size.Limit() + 64<<10
		data, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
		if err != nil {
			yield(model.Event{}, fmt.Errorf("%w: reading the response: %w", model.ErrIncompleteStream, err))
			return
		}
		if len(data) > limit {
			yield(model.Event{}, fmt.Errorf("%w: the response body is larger than %s", model.ErrResponseTooLarge, model.FormatBytes(limit)))
			return
		}
		parseCompletion(data, meta, yield)
	default:
		yield(model.Event{}, fmt.Errorf("%w: the server answered %d with Content-Type %q, not an event stream or JSON; check that the base URL points at an OpenAI-compatible API",
			ErrMalformedResponse, resp.StatusCode, ct))
	}
}
