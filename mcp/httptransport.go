package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTrip is the RoundTripper under every HTTP server connection. It adds
// the configured headers (never overriding one the SDK set, such as an
// OAuth Authorization), bounds JSON response bodies, and records whether
// the server refused a Streamable HTTP POST with a 4xx status, which is
// the signal to fall back to the legacy HTTP+SSE transport.
type httpTrip struct {
	base    http.RoundTripper
	headers http.Header
	limit   int64
	wire    wireMethods // carries task fields past the SDK (taskwire.go)
	notes   *taskWatch  // task status notifications seen on event streams (tasknotify.go)

	mu        sync.Mutex
	refused   int  // the first 4xx to a POST other than the discover probe
	transient bool // a 429 or 5xx was seen: the server may be starting
	unauth    bool // a 401 or 403 was seen
}

// RoundTrip implements http.RoundTripper.
func (t *httpTrip) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, vs := range t.headers {
			if req.Header.Get(k) == "" {
				req.Header[k] = vs
			}
		}
	}
	req, tracked := t.lowerBody(req)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		t.transient = true
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		t.unauth = true
	}
	t.mu.Unlock()
	if req.Method == http.MethodPost && resp.StatusCode >= 400 && resp.StatusCode < 500 &&
		resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden &&
		req.Header.Get("Mcp-Method") != "server/discover" {
		t.mu.Lock()
		if t.refused == 0 {
			t.refused = resp.StatusCode
		}
		t.mu.Unlock()
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "application/json" && t.limit > 0 {
		if resp.ContentLength > t.limit {
			resp.Body.Close()
			return nil, fmt.Errorf("the server's response is %s, more than rein's limit of %s per message; ask for less output", byteSize(resp.ContentLength), byteSize(t.limit))
		}
		resp.Body = &limitedBody{rc: resp.Body, left: t.limit}
	}
	t.liftBody(resp, tracked)
	return resp, nil
}

func (t *httpTrip) sawUnauthorized() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.unauth
}

func (t *httpTrip) sawTransient() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.transient
}

func (t *httpTrip) refusedStatus() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refused
}

// limitedBody fails a read past its budget instead of buffering on.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

var errBodyTooLarge = errors.New("the server's response exceeds rein's per-message limit; ask for less output")

// Read implements io.Reader, failing past the budget.
func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

// Close implements io.Closer.
func (b *limitedBody) Close() error { return b.rc.Close() }

// sseTransport wraps the SDK's legacy HTTP+SSE client transport, whose
// event stream lives as long as the context given to Connect. It gives the
// stream the server's lifetime instead of the connect timeout's, and ends
// it when the connection closes.
type sseTransport struct {
	inner *sdk.SSEClientTransport
	life  context.Context
}

// Connect implements sdk.Transport.
func (t *sseTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	streamCtx, cancel := context.WithCancel(t.life)
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.inner.Connect(streamCtx)
	stop()
	if err != nil {
		cancel()
		return nil, err
	}
	return &cancelConn{Connection: conn, cancel: cancel}, nil
}

// cancelConn ends its stream's context when closed.
type cancelConn struct {
	sdk.Connection
	cancel context.CancelFunc
}

// Close implements sdk.Connection, ending the stream too.
func (c *cancelConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}
