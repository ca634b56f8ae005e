package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/reinharness/rein/model"
)

// discoveryTimeout bounds context-window discovery, both documents and
// any retries together: the documents are answered at once by a server
// that has them, so a server that holds them gets no longer than this
// (not the request bounds of a model call, which allow for minutes of
// prompt processing). A variable for the tests.
var discoveryTimeout = 30 * time.Second

// maxDiscoveryBytes bounds the /props and /models documents read during
// context-window discovery.
const maxDiscoveryBytes = 4 << 20

var errDiscoveryTimeout = errors.New("context window discovery timed out")

// propsDoc is the part of llama.cpp's GET /props the provider reads.
// default_generation_settings.n_ctx is the per-slot context, which is what
// one request can use when the server runs several slots.
type propsDoc struct {
	NCtx                      int `json:"n_ctx"`
	DefaultGenerationSettings struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
}

// modelsDoc is GET /v1/models. llama.cpp reports meta.n_ctx / n_ctx_train,
// vLLM max_model_len, and some gateways context_length.
type modelsDoc struct {
	Data []struct {
		ID            string `json:"id"`
		MaxModelLen   int    `json:"max_model_len"`
		ContextLength int    `json:"context_length"`
		Meta          struct {
			NCtx      int `json:"n_ctx"`
			NCtxTrain int `json:"n_ctx_train"`
		} `json:"meta"`
	} `json:"data"`
}

// ContextWindow returns the model's context window in tokens: the
// configured value, else what the server reports (llama.cpp's /props, then
// /v1/models), else 0 when the server does not say. A discovered answer,
// including "unknown", is cached; a failure to reach the server is returned
// and retried on the next call. Discovery takes at most 30 seconds.
func (p *Provider) ContextWindow(ctx context.Context) (int, error) {
	if p.fixedWindow > 0 {
		return p.fixedWindow, nil
	}
	p.windowMu.Lock()
	defer p.windowMu.Unlock()
	if p.windowKnown {
		return p.window, nil
	}
	dctx, cancel := context.WithTimeoutCause(ctx, discoveryTimeout, errDiscoveryTimeout)
	defer cancel()
	n, err := p.discoverWindow(dctx)
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(dctx), errDiscoveryTimeout) {
			err = fmt.Errorf("openai: the model server did not report its context window within %s; set [model] context_window to skip the question: %w",
				discoveryTimeout, errDiscoveryTimeout)
		}
		return 0, err
	}
	p.window, p.windowKnown = n, true
	return n, nil
}

func (p *Provider) discoverWindow(ctx context.Context) (int, error) {
	var props propsDoc
	ok, err := p.getJSON(ctx, p.propsURL, &props)
	if err != nil {
		return 0, err
	}
	if ok {
		if n := props.DefaultGenerationSettings.NCtx; n > 0 {
			return n, nil
		}
		if props.NCtx > 0 {
			return props.NCtx, nil
		}
	}
	var models modelsDoc
	ok, err = p.getJSON(ctx, p.modelsURL, &models)
	if err != nil || !ok {
		return 0, err
	}
	for _, m := range models.Data {
		if p.model != "" && len(models.Data) > 1 && m.ID != p.model {
			continue
		}
		for _, n := range []int{m.Meta.NCtx, m.MaxModelLen, m.ContextLength, m.Meta.NCtxTrain} {
			if n > 0 {
				return n, nil
			}
		}
	}
	return 0, nil
}

// getJSON fetches url into v. It reports ok=false without an error when the
// server answers but does not offer the document (an error status or a body
// that is not the expected JSON): that only means "unknown". Transport
// failures and cancellation are errors.
func (p *Provider) getJSON(ctx context.Context, url string, v any) (ok bool, err error) {
	resp, err := p.client.Do(ctx, url, func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		r.Header = p.headers.Clone()
		r.Header.Del("Content-Type")
		r.Header.Set("Accept", "application/json")
		return r, nil
	})
	if err != nil {
		var apiErr *model.APIError
		if errors.As(err, &apiErr) && ctx.Err() == nil {
			return false, nil
		}
		return false, fmt.Errorf("openai: discovering the context window: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDiscoveryBytes))
	if err != nil {
		return false, fmt.Errorf("openai: discovering the context window: reading %s: %w", url, err)
	}
	return json.Unmarshal(data, v) == nil, nil
}
