// Package anthropic is rein's model.Provider for the Anthropic Messages API
// (POST /v1/messages), streamed or not.
//
// Requests are built from rein's neutral model.Request: the system prompt
// goes to the top-level system field, tool results travel as user turns of
// tool_result blocks, and signed thinking blocks are sent back unchanged so
// extended thinking survives tool use. Responses, streamed or whole, become
// the same model.Event sequence: text and reasoning deltas, one
// EventToolCall per tool_use block with its input parsed once, cumulative
// EventUsage, and EventStop last. Retries, backoff, the circuit breaker and
// timeouts are model/transport's; a stream is never retried once it has
// delivered bytes.
package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/reinharness/rein/internal/secret"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/transport"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultBaseURL   = "https://api.anthropic.com"
	DefaultVersion   = "2023-06-01"
	DefaultMaxTokens = 4096
)

// Config configures a Provider. The zero value of every field but Model
// (and APIKey for the public API) is usable.
type Config struct {
	// BaseURL is the API root; "/v1/messages" is appended ("/messages"
	// when it already ends in "/v1"). Default DefaultBaseURL.
	BaseURL string
	// APIKey is sent as the x-api-key header.
	APIKey string
	// AuthToken, when set, is sent as "Authorization: Bearer …" (gateways
	// and OAuth deployments use it instead of an API key).
	AuthToken string
	// Model is used when Request.Model is empty.
	Model string
	// Version is the anthropic-version header. Default DefaultVersion.
	Version string
	// MaxTokens is max_tokens for requests that set none: the API requires
	// it. Default DefaultMaxTokens.
	MaxTokens int
	// NoStreaming asks for whole messages instead of event streams; the
	// Provider still yields the same events.
	NoStreaming bool
	// ContextWindow is the model's context window in tokens. The API does
	// not report it, so 0 means the known size of Claude models (200000,
	// or 1000000 with the context-1m beta header) and 0 for other names.
	ContextWindow int
	// Headers are added to every request, e.g. "anthropic-beta". The
	// headers the provider owns (x-api-key, authorization,
	// anthropic-version, content-type) are set through their fields.
	Headers map[string]string
	// MaxResponseBytes caps the content of one answer: its text,
	// thinking and tool inputs together. A stream that passes it is
	// abandoned with an error wrapping model.ErrResponseTooLarge; a whole
	// message body may be twice as large, for its JSON escaping. 0 means
	// model.DefaultMaxResponseBytes.
	MaxResponseBytes int
	// HTTP configures retries, backoff and timeouts. Provider and
	// ParseError are filled in when empty.
	HTTP transport.Config
}

// Provider talks to one Messages API endpoint. It is safe for concurrent
// use; each Stream call is an independent HTTP request.
type Provider struct {
	cfg      Config
	url      string      // full URL of /v1/messages
	endpoint string      // base URL without credentials: breaker key and error text
	header   http.Header // static headers of every request
	client   *transport.Client
}

// ownedHeaders are set from Config fields; Config.Headers may not set them,
// so that a key can only come from APIKey/AuthToken.
var ownedHeaders = map[string]string{
	"X-Api-Key":         "Config.APIKey",
	"Authorization":     "Config.AuthToken",
	"Anthropic-Version": "Config.Version",
	"Content-Type":      "nothing (the provider sends JSON)",
}

// New validates cfg and returns a Provider.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("anthropic: Config.BaseURL %q is not an http(s) base URL; use e.g. %s", redactURL(cfg.BaseURL), DefaultBaseURL)
	}
	if cfg.MaxTokens < 0 || cfg.ContextWindow < 0 || cfg.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("anthropic: Config.MaxTokens (%d), Config.ContextWindow (%d) and Config.MaxResponseBytes (%d) must not be negative",
			cfg.MaxTokens, cfg.ContextWindow, cfg.MaxResponseBytes)
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.Version == "" {
		cfg.Version = DefaultVersion
	}
	if cfg.APIKey == "" && cfg.AuthToken == "" && u.Host == "api.anthropic.com" {
		return nil, fmt.Errorf("anthropic: no API key for %s; set Config.APIKey (the CLI reads ANTHROPIC_API_KEY)", u.Host)
	}
	h := make(http.Header, len(cfg.Headers)+4)
	for k, v := range cfg.Headers {
		ck := http.CanonicalHeaderKey(k)
		if field, ok := ownedHeaders[ck]; ok {
			return nil, fmt.Errorf("anthropic: Config.Headers may not set %s; use %s", ck, field)
		}
		h.Set(ck, v)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Anthropic-Version", cfg.Version)
	if cfg.APIKey != "" {
		h.Set("X-Api-Key", cfg.APIKey)
	}
	if cfg.AuthToken != "" {
		h.Set("Authorization", "Bearer "+cfg.AuthToken)
	}
	// Servers echo keys back in error text; rein never repeats them.
	secret.Register(cfg.APIKey, cfg.AuthToken)
	if cfg.HTTP.Provider == "" {
		cfg.HTTP.Provider = "anthropic"
	}
	if cfg.HTTP.ParseError == nil {
		cfg.HTTP.ParseError = parseError
	}

	u.User = nil
	base := strings.TrimRight(u.Path, "/")
	endpoint := *u
	endpoint.Path = base
	msgs := *u
	if strings.HasSuffix(base, "/v1") {
		msgs.Path = base + "/messages"
	} else {
		msgs.Path = base + "/v1/messages"
	}
	return &Provider{
		cfg:      cfg,
		url:      msgs.String(),
		endpoint: endpoint.String(),
		header:   h,
		client:   transport.New(cfg.HTTP),
	}, nil
}

// redactURL drops credentials from a URL that failed to parse as a base
// URL, for the error message.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		u.User = nil
		return u.String()
	}
	return redact(s)
}

// Stream sends req and yields its events; see model.Provider for the
// contract. Request fields the Messages API lacks (Seed, ResponseFormat,
// ReasoningEffort) are not sent; Request.Extra reaches any API field rein
// does not model and overrides the fields rein sets, except the ones the
// provider owns (model, messages, system, tools, tool_choice, stream),
// which are rejected with ErrInvalidRequest before anything is sent.
func (p *Provider) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		stream := !p.cfg.NoStreaming
		body, err := encodeRequest(req, encodeOptions{Model: p.cfg.Model, MaxTokens: p.cfg.MaxTokens, Stream: stream})
		if err != nil {
			yield(model.Event{}, err)
			return
		}
		// Cancelling on return ends the HTTP request when the consumer
		// stops iterating early.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		resp, err := p.client.Do(ctx, p.endpoint, func(ctx context.Context) (*http.Request, error) {
			return p.newRequest(ctx, body, stream)
		})
		if err != nil {
			yield(model.Event{}, err)
			return
		}
		defer resp.Body.Close()
		var events iter.Seq2[model.Event, error]
		if stream && !isJSON(resp.Header) {
			events = streamEvents(resp.Body, resp.StatusCode, resp.Header.Get("request-id"), p.cfg.MaxResponseBytes)
		} else {
			// A gateway may answer a streaming request with a whole
			// message; it is read as one rather than failed.
			events = readMessage(resp.Body, resp.StatusCode, resp.Header.Get("request-id"), p.cfg.MaxResponseBytes)
		}
		for ev, err := range events {
			if err != nil {
				if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
					// Reads fail in many ways once the request is
					// cancelled; the cancellation is the cause.
					err = fmt.Errorf("%w: %w", cerr, err)
				}
				yield(model.Event{}, err)
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (p *Provider) newRequest(ctx context.Context, body []byte, stream bool) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header = p.header.Clone()
	if stream {
		r.Header.Set("Accept", "text/event-stream")
	} else {
		r.Header.Set("Accept", "application/json")
	}
	return r, nil
}

// isJSON reports whether a response is a whole JSON document rather than
// an event stream.
func isJSON(h http.Header) bool {
	ct := strings.ToLower(strings.TrimSpace(h.Get("Content-Type")))
	return strings.HasPrefix(ct, "application/json")
}

// ContextWindow reports the configured context window, else the known size
// for Claude models: the Messages API has no endpoint that reports it. It
// implements model.ContextWindower and never fails.
func (p *Provider) ContextWindow(ctx context.Context) (int, error) {
	if p.cfg.ContextWindow > 0 {
		return p.cfg.ContextWindow, nil
	}
	if !strings.HasPrefix(strings.ToLower(p.cfg.Model), "claude-") {
		return 0, nil
	}
	for k, v := range p.cfg.Headers {
		if strings.EqualFold(k, "anthropic-beta") && strings.Contains(v, "context-1m") {
			return 1_000_000, nil
		}
	}
	return 200_000, nil
}

var (
	_ model.Provider        = (*Provider)(nil)
	_ model.ContextWindower = (*Provider)(nil)
)
