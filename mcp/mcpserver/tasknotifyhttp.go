package mcpserver

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"sync"
	"time"
)

// Task status notifications over Streamable HTTP. A 2025-11-25 task
// outlives the tools/call that created it (whose stream closes with the
// task handle), so its notifications belong on the session's standalone
// GET stream, where a server sends what relates to no request. The SDK
// owns that stream and has no way to send a notification it does not
// know; but every response passes the router first. So the router hands
// the SDK a writer for each session's GET (noteStream) and keeps it by
// session ID (getStreams); a task writes its status there as one more
// event, between the SDK's own writes (each of which is a whole event or
// comment, written and flushed at once).
//
// Such an event has no id: a client that reconnects with Last-Event-ID
// does not get it again, and its next tasks/get sees the change instead,
// as for any lost notification.

// getStreams maps session IDs to their open standalone GET streams. The
// zero value is ready.
type getStreams struct {
	mu sync.Mutex
	m  map[string]*noteStream
}

// serve passes r to next, keeping the response writer of a session's GET
// for the time next serves it.
func (g *getStreams) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	id := r.Header.Get(headerSessionID)
	if r.Method != http.MethodGet || id == "" {
		next.ServeHTTP(w, r)
		return
	}
	ns := &noteStream{w: w}
	// Kept only once the SDK has accepted the stream: a second GET it
	// refuses (409) must not displace the first.
	ns.onLive = func() {
		g.mu.Lock()
		if g.m == nil {
			g.m = map[string]*noteStream{}
		}
		g.m[id] = ns
		g.mu.Unlock()
	}
	defer func() {
		ns.close()
		g.mu.Lock()
		if g.m[id] == ns {
			delete(g.m, id)
		}
		g.mu.Unlock()
	}()
	next.ServeHTTP(ns, r)
}

// send writes a notification to the session's GET stream, reporting
// whether one was open to take it.
func (g *getStreams) send(session, method string, params any) bool {
	g.mu.Lock()
	ns := g.m[session]
	g.mu.Unlock()
	if ns == nil {
		return false
	}
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return false
	}
	return ns.event(raw, taskNotifyWait)
}

// noteStream is the response writer of one standalone GET stream,
// shared by the SDK and the tasks that notify on it.
type noteStream struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	live   bool // the SDK answered 200 with an event stream
	closed bool // the handler returned: the writer is no longer valid
	onLive func()
}

// Header implements http.ResponseWriter.
func (n *noteStream) Header() http.Header { return n.w.Header() }

// WriteHeader implements http.ResponseWriter.
func (n *noteStream) WriteHeader(code int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ct, _, _ := mime.ParseMediaType(n.w.Header().Get("Content-Type"))
	n.live = code == http.StatusOK && ct == "text/event-stream"
	n.w.WriteHeader(code)
	if n.live && n.onLive != nil {
		n.onLive()
	}
}

// Write implements http.ResponseWriter.
func (n *noteStream) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.w.Write(p)
}

// FlushError lets http.ResponseController flush through the lock.
func (n *noteStream) FlushError() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return http.NewResponseController(n.w).Flush()
}

// Unwrap gives http.ResponseController the writer's other controls.
func (n *noteStream) Unwrap() http.ResponseWriter { return n.w }

func (n *noteStream) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
}

// event writes one event carrying data and flushes it, within wait: a
// client that stops reading must not stall the task (nor, holding the
// lock, the SDK) for longer.
func (n *noteStream) event(data []byte, wait time.Duration) bool {
	if bytes.ContainsAny(data, "\r\n") {
		return false // json.Marshal never emits one; an event must be one data line
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.live || n.closed {
		return false
	}
	rc := http.NewResponseController(n.w)
	_ = rc.SetWriteDeadline(time.Now().Add(wait))
	defer rc.SetWriteDeadline(time.Time{})
	var b bytes.Buffer
	b.Grow(len(data) + 24)
	b.WriteString("event: message\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	if _, err := n.w.Write(b.Bytes()); err != nil {
		return false
	}
	return rc.Flush() == nil
}
