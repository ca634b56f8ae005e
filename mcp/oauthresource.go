package mcp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// maxTokenRequest bounds the token request body resourceTransport reads.
const maxTokenRequest = 64 << 10

// withResource returns a client like c whose refresh-token requests to
// tokenURL carry resource (RFC 8707), as the MCP authorization spec asks
// of every token request: golang.org/x/oauth2 refreshes without it, and a
// server that binds tokens to their audience then issues a token for the
// wrong resource or refuses the refresh.
func withResource(c *http.Client, tokenURL, resource string) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	if resource == "" || tokenURL == "" {
		return c
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out := *c
	out.Transport = &resourceTransport{base: base, tokenURL: tokenURL, resource: resource}
	return &out
}

// resourceTransport adds resource to refresh-token requests.
type resourceTransport struct {
	base               http.RoundTripper
	tokenURL, resource string
}

func (t *resourceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil || req.URL.String() != t.tokenURL {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxTokenRequest+1))
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the token request: %w", err)
	}
	if len(body) > maxTokenRequest {
		return nil, fmt.Errorf("the token request is larger than %d bytes", maxTokenRequest)
	}
	form, err := url.ParseQuery(string(body))
	if err == nil && form.Get("grant_type") == "refresh_token" && !form.Has("resource") {
		form.Set("resource", t.resource)
		body = []byte(form.Encode())
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return t.base.RoundTrip(r)
}
