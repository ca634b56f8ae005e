package modeltest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Server is a loopback HTTP server that answers requests in order from a
// script of Steps: the first request gets the first step, and so on. It
// records every request it receives. A request arriving after the script is
// used up fails the test and is answered with 500.
//
// Server is safe for concurrent use; requests are numbered in the order the
// server accepts them.
type Server struct {
	// URL is the server's base URL, "http://127.0.0.1:PORT".
	URL string

	t    testing.TB
	srv  *httptest.Server
	quit chan struct{} // closed at cleanup to release stalled handlers

	mu       sync.Mutex
	steps    []Step
	next     int
	requests []Request
}

// Request is a request the Server received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// Step is one scripted answer of a Server. Build steps with Replay, Status,
// JSON, ResetAfter, Truncate, Garbage, Stall or Handler.
type Step struct {
	name  string
	serve func(c *stepContext)
}

// String describes the step, for failure messages.
func (s Step) String() string { return s.name }

// stepContext is what a step needs to answer one request.
type stepContext struct {
	t    testing.TB
	w    http.ResponseWriter
	r    *http.Request
	body []byte
	quit <-chan struct{}
}

// NewServer starts a Server on 127.0.0.1 that plays steps in order. It is
// closed by t.Cleanup; handlers still stalled at that point are released.
func NewServer(t testing.TB, steps ...Step) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("modeltest: listen on 127.0.0.1: %v", err)
	}
	s := &Server{t: t, quit: make(chan struct{}), steps: append([]Step(nil), steps...)}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL
	t.Cleanup(func() {
		close(s.quit)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
	return s
}

// Add appends steps to the script, for tests that build it incrementally.
func (s *Server) Add(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Requests returns copies of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = Request{
			Method: r.Method,
			Path:   r.Path,
			Query:  r.Query,
			Header: r.Header.Clone(),
			Body:   bytes.Clone(r.Body),
		}
	}
	return out
}

// Pending reports how many scripted steps have not been played yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("modeltest: reading request body of %s %s: %v", r.Method, r.URL.Path, err)
		http.Error(w, "modeltest: unreadable request body", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, Request{
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.RawQuery,
		Header: r.Header.Clone(),
		Body:   body,
	})
	var step Step
	ok := s.next < len(s.steps)
	if ok {
		step = s.steps[s.next]
		s.next++
	}
	total := len(s.steps)
	s.mu.Unlock()

	if !ok {
		s.t.Errorf("modeltest: unexpected request #%d %s %s: the script has only %d step(s); add a step for it or find why the client sent it",
			n+1, r.Method, r.URL.Path, total)
		http.Error(w, "modeltest: script exhausted", http.StatusInternalServerError)
		return
	}
	step.serve(&stepContext{t: s.t, w: w, r: r, body: body, quit: s.quit})
}

// Handler wraps an arbitrary handler as a step, for answers the other
// constructors do not cover. The request body has already been read; use
// the Server's Requests to inspect it.
func Handler(name string, h http.Handler) Step {
	return Step{name: name, serve: func(c *stepContext) {
		c.r.Body = io.NopCloser(bytes.NewReader(c.body))
		h.ServeHTTP(c.w, c.r)
	}}
}

// Replay answers with a recorded response: status, headers and body byte
// for byte. Event-stream bodies are written one event at a time with a
// flush after each, as a streaming server would. The request's method and
// path must match the recording, or the test fails (the answer is still
// sent so the client sees a realistic exchange).
func Replay(in Interaction) Step {
	name := fmt.Sprintf("Replay(%d %s %s → %d)", in.ID, in.Request.Method, in.Request.Path(), in.Response.Code)
	return Step{name: name, serve: func(c *stepContext) {
		if want := in.Request.Method; want != "" && c.r.Method != want {
			c.t.Errorf("modeltest: %s: request method %s, recorded %s", name, c.r.Method, want)
		}
		if want := in.Request.Path(); want != "" && c.r.URL.Path != want {
			c.t.Errorf("modeltest: %s: request path %s, recorded %s", name, c.r.URL.Path, want)
		}
		copyRecordedHeaders(c.w.Header(), in.Response.Headers)
		c.w.WriteHeader(in.Response.Code)
		if isEventStream(in.Response.Headers) {
			writeEvents(c.w, in.Response.Body)
			return
		}
		io.WriteString(c.w, in.Response.Body)
	}}
}

// ReplayCassette returns one Replay step per recorded interaction, in order.
func ReplayCassette(c *Cassette) []Step {
	steps := make([]Step, 0, len(c.Interactions))
	for _, in := range c.Interactions {
		steps = append(steps, Replay(in))
	}
	return steps
}

// copyRecordedHeaders copies the recorded response headers except those
// describing the original transfer: the replayed body is uncompressed and
// its length and framing are chosen by this server.
func copyRecordedHeaders(dst, src http.Header) {
	for k, vs := range src {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Transfer-Encoding", "Content-Encoding", "Connection":
			continue
		}
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}

func isEventStream(h http.Header) bool {
	return strings.HasPrefix(strings.ToLower(h.Get("Content-Type")), "text/event-stream")
}

// writeEvents writes an event-stream body one event (up to and including
// its blank line) at a time, flushing after each.
func writeEvents(w http.ResponseWriter, body string) {
	f, _ := w.(http.Flusher)
	for body != "" {
		i := strings.Index(body, "\n\n")
		n := len(body)
		if i >= 0 {
			n = i + 2
		}
		if _, err := io.WriteString(w, body[:n]); err != nil {
			return // the client went away; nothing left to answer
		}
		if f != nil {
			f.Flush()
		}
		body = body[n:]
	}
}
