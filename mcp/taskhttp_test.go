package mcp

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// tripFunc is an http.RoundTripper from a function.
type tripFunc func(*http.Request) (*http.Response, error)

func (f tripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestTaskWireLegacySSEStream: over the legacy HTTP+SSE transport the
// POSTed tools/list is answered 202 and its result arrives on the GET
// event stream; httpTrip lifts the execution info there too, and passes
// the stream's endpoint event and an unrelated response byte for byte.
func TestTaskWireLegacySSEStream(t *testing.T) {
	const (
		endpoint  = "event: endpoint\ndata: /message?sessionId=s1\n\n"
		unrelated = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"tools\":[{\"name\":\"x\",\"execution\":{\"taskSupport\":\"required\"}}]}}\n\n"
		answer    = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"research\",\"execution\":{\"taskSupport\":\"required\"}}]}}\n\n"
	)
	trip := &httpTrip{base: tripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPost {
			return &http.Response{StatusCode: http.StatusAccepted, Header: http.Header{}, Body: http.NoBody}, nil
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(strings.NewReader(endpoint + unrelated + answer))}, nil
	})}
	post, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/message?sessionId=s1", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`))
	if resp, err := trip.RoundTrip(post); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST: %v %v", resp, err)
	}
	get, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/sse", nil)
	resp, err := trip.RoundTrip(get)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte(endpoint+unrelated)) {
		t.Errorf("the endpoint event or the unrelated response changed:\n%s", got)
	}
	rest := string(bytes.TrimPrefix(got, []byte(endpoint+unrelated)))
	if !strings.Contains(rest, `"_meta":{"`+metaExecution+`":{"taskSupport":"required"}}`) || !strings.HasPrefix(rest, "event: message\n") {
		t.Errorf("the tools/list answer on the stream was not lifted:\n%s", rest)
	}
}
