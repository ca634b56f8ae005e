package mcpserver

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Task status notifications. In the 2025-11-25 era a receiver may send
// notifications/tasks/status whenever a task changes state, so that the
// requestor need not wait for its next tasks/get. The SDK has no way to
// send a notification it does not know, so a stdio connection keeps a
// handle on its sdk.Connection (taskNotifier) and a legacy task started
// over it writes the notification there. Over Streamable HTTP it goes on
// the session's standalone GET stream (tasknotifyhttp.go); a client
// without one keeps polling, which the protocol makes the baseline.

// methodTaskStatus is the task status notification.
const methodTaskStatus = "notifications/tasks/status"

// taskNotifyWait bounds one notification's write: a client that stops
// reading must not stall the task that reports to it.
const taskNotifyWait = 2 * time.Second

// taskNotifier holds the connection a stdio session runs on, once the
// SDK has connected it.
type taskNotifier struct {
	mu   sync.Mutex
	conn sdk.Connection
}

// taskNotifierKey carries a stdio connection's taskNotifier to the tasks
// started over it.
type taskNotifierKey struct{}

func (n *taskNotifier) set(c sdk.Connection) {
	n.mu.Lock()
	n.conn = c
	n.mu.Unlock()
}

// send writes one notification; a failure is dropped, as a lost
// notification only means the client's next poll sees the change.
func (n *taskNotifier) send(ctx context.Context, params any) {
	n.mu.Lock()
	c := n.conn
	n.mu.Unlock()
	if c == nil {
		return
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), taskNotifyWait)
	defer cancel()
	_ = c.Write(ctx, &jsonrpc.Request{Method: methodTaskStatus, Params: raw})
}

// notifierFor returns the function a task calls after each change of
// state: for a 2025-11-25 task over stdio or Streamable HTTP, one that
// sends its status; nil
// otherwise (2026-07-28 defines no task notification: its clients poll
// tasks/get, the state the extension specifies).
func (st *taskStore) notifierFor(parent context.Context, t *task) func() {
	if !t.legacy || st.lim.NoStatusNotifications {
		return nil
	}
	if n, ok := parent.Value(taskNotifierKey{}).(*taskNotifier); ok {
		return func() { n.send(parent, st.legacyView(t)) }
	}
	if t.viaResult { // over HTTP, in the session t.owner names
		return func() { st.streams.send(t.owner, methodTaskStatus, st.legacyView(t)) }
	}
	return nil
}

// changed reports a task's change of state; it is called without the
// store's lock held.
func (t *task) changed() {
	if t.notify != nil {
		t.notify()
	}
}
