package modeltest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// OverloadedBody is the error body Anthropic sends with status 529.
const OverloadedBody = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`

// RateLimitBody is an OpenAI-style error body for status 429.
const RateLimitBody = `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`

// GarbageBody is what Garbage sends: an HTML error page, a data line that is
// not JSON, and binary noise — the kinds of junk a misconfigured proxy or a
// wrong endpoint produce under a 200 event-stream header.
const GarbageBody = "<html><body><h1>502 Bad Gateway</h1></body></html>\n" +
	"data: <!doctype html> this is not json\n\n" +
	"\x00\xff\xfe\x01garbage\r\n\r\n"

// Status answers with the given status code, headers and body, e.g. a 401,
// a 429 with Retry-After, or a 529 with OverloadedBody. Content-Type
// defaults to application/json when headers do not set it.
func Status(code int, headers map[string]string, body string) Step {
	name := fmt.Sprintf("Status(%d)", code)
	return Step{name: name, serve: func(c *stepContext) {
		h := c.w.Header()
		for k, v := range headers {
			h.Set(k, v)
		}
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/json")
		}
		c.w.WriteHeader(code)
		io.WriteString(c.w, body)
	}}
}

// JSON answers 200 with a JSON body, e.g. a llama.cpp /props document.
func JSON(body string) Step {
	s := Status(http.StatusOK, nil, body)
	s.name = "JSON"
	return s
}

// RateLimited answers 429 with a Retry-After header (in seconds, as servers
// send it) and RateLimitBody.
func RateLimited(retryAfter time.Duration) Step {
	secs := strconv.FormatFloat(retryAfter.Seconds(), 'f', -1, 64)
	s := Status(http.StatusTooManyRequests, map[string]string{"Retry-After": secs}, RateLimitBody)
	s.name = "RateLimited(" + secs + "s)"
	return s
}

// Overloaded answers 529 with Anthropic's overloaded_error body.
func Overloaded() Step {
	s := Status(529, nil, OverloadedBody)
	s.name = "Overloaded"
	return s
}

// ResetAfter starts a 200 event stream, writes the first n bytes of body,
// flushes them, then aborts the TCP connection with a reset: the client
// sees a real transport failure mid-stream, after bytes were delivered.
func ResetAfter(body string, n int) Step {
	n = clamp(n, len(body))
	return Step{name: fmt.Sprintf("ResetAfter(%d of %d bytes)", n, len(body)), serve: func(c *stepContext) {
		startStream(c.w)
		io.WriteString(c.w, body[:n])
		flush(c.w)
		hj, ok := c.w.(http.Hijacker)
		if !ok {
			c.t.Errorf("modeltest: ResetAfter: the response writer cannot be hijacked (HTTP/2?); serve HTTP/1.1")
			return
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			c.t.Errorf("modeltest: ResetAfter: hijack: %v", err)
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			// Linger 0 makes Close send RST instead of FIN: a reset, not a
			// clean end of the connection.
			tc.SetLinger(0)
		}
		conn.Close()
	}}
}

// Truncate starts a 200 event stream, writes the first n bytes of body and
// ends the response cleanly: the stream stops without its terminator, as
// when a server or proxy gives up mid-answer.
func Truncate(body string, n int) Step {
	n = clamp(n, len(body))
	return Step{name: fmt.Sprintf("Truncate(%d of %d bytes)", n, len(body)), serve: func(c *stepContext) {
		startStream(c.w)
		writeEvents(c.w, body[:n])
	}}
}

// Garbage answers 200 with an event-stream content type and GarbageBody.
func Garbage() Step {
	return Step{name: "Garbage", serve: func(c *stepContext) {
		startStream(c.w)
		io.WriteString(c.w, GarbageBody)
	}}
}

// Stall starts a 200 event stream, writes the first n bytes of body, then
// sends nothing for d before writing the rest. The stall ends early when the
// client goes away or the server closes, so an idle-timeout test never
// waits for d.
func Stall(body string, n int, d time.Duration) Step {
	n = clamp(n, len(body))
	return Step{name: fmt.Sprintf("Stall(%d of %d bytes, %v)", n, len(body), d), serve: func(c *stepContext) {
		startStream(c.w)
		writeEvents(c.w, body[:n])
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-c.r.Context().Done():
			return
		case <-c.quit:
			return
		}
		writeEvents(c.w, body[n:])
	}}
}

func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush(w)
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// clamp keeps a byte count within [0, size].
func clamp(n, size int) int {
	return max(0, min(size, n))
}
