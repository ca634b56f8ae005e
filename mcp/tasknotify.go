package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Task status notifications, client side. A 2025-11-25 server may send
// notifications/tasks/status when a task changes state. The SDK drops
// notifications it does not know before any middleware sees them, so
// rein takes them off the connection (taskNoteConn) and hands them to the
// call following that task (taskWatch), which collects the result at
// once instead of at its next poll. Polling stays: a server need not
// notify, and a notification may be lost.
//
// Where rein reads the bytes, it takes them there. Over stdio that is the
// connection (taskNoteConn). Over both HTTP transports it is the
// RoundTripper under the SDK (httpTrip): every event stream it hands the
// SDK passes liftedSSE, which notes each task status event on the way
// (noteEvent) — the Streamable HTTP standalone GET stream, where a server
// sends notifications unrelated to a request, a POST's stream, and the
// legacy transport's one stream alike. The SDK's Streamable HTTP
// connection itself cannot be wrapped: it implements an unexported
// interface the session relies on (sessionUpdated, which opens that GET
// stream). Over HTTP the event passes on to the SDK, which ignores a
// notification it does not know.

// methodTaskStatus is the task status notification.
const methodTaskStatus = "notifications/tasks/status"

// taskNoteKeep bounds the statuses kept for tasks nobody follows yet: a
// fast task's notification can arrive before the tools/call answer that
// names it.
const taskNoteKeep = 32

// taskWatch routes task status notifications to the calls following the
// tasks. The zero value is ready.
type taskWatch struct {
	mu     sync.Mutex
	subs   map[string]chan *wireTask
	early  map[string]*wireTask // statuses of tasks not followed yet
	arrive []string             // early's keys, oldest first
}

// follow returns a channel that carries the task's latest notified
// status (only the latest: an older one is replaced) and a function that
// stops following.
func (w *taskWatch) follow(id string) (<-chan *wireTask, func()) {
	ch := make(chan *wireTask, 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.subs == nil {
		w.subs = map[string]chan *wireTask{}
	}
	w.subs[id] = ch
	if t, ok := w.early[id]; ok {
		delete(w.early, id)
		ch <- t
	}
	return ch, func() {
		w.mu.Lock()
		if w.subs[id] == ch {
			delete(w.subs, id)
		}
		w.mu.Unlock()
	}
}

// note delivers one notification's params; malformed ones are ignored
// (the poll that follows sees the truth).
func (w *taskWatch) note(params json.RawMessage) {
	t, ok := decodeTaskStatus(params)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ch, ok := w.subs[t.TaskID]; ok {
		select {
		case <-ch: // replace the older status
		default:
		}
		ch <- t
		return
	}
	if w.early == nil {
		w.early = map[string]*wireTask{}
	}
	if _, ok := w.early[t.TaskID]; !ok {
		w.arrive = append(w.arrive, t.TaskID)
	}
	w.early[t.TaskID] = t
	for len(w.arrive) > taskNoteKeep {
		delete(w.early, w.arrive[0])
		w.arrive = w.arrive[1:]
	}
}

// decodeTaskStatus reads notifications/tasks/status params (a Task). A
// status notification never carries a result: that is collected as
// usual.
func decodeTaskStatus(params json.RawMessage) (*wireTask, bool) {
	var t wireTask
	if json.Unmarshal(params, &t) != nil || t.TaskID == "" || len(t.TaskID) > 256 || !knownTaskStatus(t.Status) {
		return nil, false
	}
	t.Result, t.Error, t.InputRequests = nil, nil, nil
	return &t, true
}

func knownTaskStatus(s string) bool {
	switch s {
	case "working", "input_required", "completed", "failed", "cancelled":
		return true
	}
	return false
}

// taskNoteTransport wraps a transport so that its connection's task
// status notifications go to w.
type taskNoteTransport struct {
	inner sdk.Transport
	w     *taskWatch
}

func (t *taskNoteTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskNoteConn{Connection: c, w: t.w}, nil
}

// taskNoteConn takes task status notifications off a connection.
type taskNoteConn struct {
	sdk.Connection
	w *taskWatch
}

func (c *taskNoteConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, err := c.Connection.Read(ctx)
		if err != nil {
			return m, err
		}
		if r, ok := m.(*jsonrpc.Request); ok && !r.IsCall() && r.Method == methodTaskStatus {
			c.w.note(r.Params)
			continue
		}
		return m, nil
	}
}

// noteEvent notes the event data of an HTTP event stream if it is a task
// status notification. Most events are not: a byte search spares them
// the decoding. A nil watch notes nothing.
func (w *taskWatch) noteEvent(data []byte) {
	if w == nil || !bytes.Contains(data, []byte(methodTaskStatus)) {
		return
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return
	}
	if r, ok := msg.(*jsonrpc.Request); ok && !r.IsCall() && r.Method == methodTaskStatus {
		w.note(r.Params)
	}
}

// watchTasks wraps a stdio transport for task notifications.
func (s *server) watchTasks(t sdk.Transport) sdk.Transport {
	return &taskNoteTransport{inner: t, w: &s.taskWatch}
}
