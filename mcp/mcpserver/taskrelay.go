package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2025-11-25 task's messages to the client. While a task runs, its
// tool may ask the client for input (elicitation, sampling, roots): for
// an initialize-era session the SDK sends real requests, from the task's
// context. The 2025-11-25 tasks page asks the receiver to tag every
// message of a task with the related-task _meta and to show
// input_required while it waits for the requestor, who then calls
// tasks/result, which blocks until the task ends.
//
// Over stdio any message reaches the client. Over Streamable HTTP a
// server's request must travel on an open stream, and the tools/call's
// stream closed when it answered with the task handle (the SDK rejects
// the write: "rejected by transport"). So a task created over HTTP sends
// its requests on the stream of a pending tasks/result for it — the one
// the spec has the requestor open on seeing input_required — and waits
// for one when none is pending, until the task ends (its TTL bounds the
// wait). The answer returns as an ordinary POST, so the tasks/result only
// carries the request.

// taskKey marks a task's context with its task.
type taskKey struct{}

// taskSendingMiddleware tags what a task sends to the client with the
// related-task _meta and, for requests, holds the task input_required
// until the client answers; over HTTP it routes them to a pending
// tasks/result's stream.
func (s *Server) taskSendingMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		t, ok := ctx.Value(taskKey{}).(*task)
		if !ok || !t.legacy {
			return next(ctx, method, req)
		}
		if p := req.GetParams(); p != nil {
			meta := maps.Clone(p.GetMeta())
			if meta == nil {
				meta = map[string]any{}
			}
			meta[metaRelatedTask] = map[string]any{"taskId": t.id}
			p.SetMeta(meta)
		}
		if strings.HasPrefix(method, "notifications/") {
			// A notification waits for nothing: it rides a pending
			// tasks/result when there is one.
			if via := s.tasks.currentRelay(t); via != nil {
				ctx = relayCtx{ctx, via}
			}
			return next(ctx, method, req)
		}
		s.tasks.beginAsking(t)
		defer s.tasks.endAsking(t)
		if t.viaResult {
			via, err := s.tasks.awaitRelay(ctx, t)
			if err != nil {
				return nil, fmt.Errorf("task %s cannot send %s to the client: %w", t.id, method, err)
			}
			ctx = relayCtx{ctx, via}
		}
		return next(ctx, method, req)
	}
}

// relayCtx is a task's context (its cancellation, its values) that also
// carries a tasks/result request's values, which take precedence: the
// SDK's transport finds the stream to write on among them.
type relayCtx struct {
	context.Context
	via context.Context
}

func (c relayCtx) Value(key any) any {
	if v := c.via.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

// addRelay records a pending tasks/result for t, waking a request that
// waits for one; the returned func forgets it once answered.
func (st *taskStore) addRelay(t *task, ctx context.Context) (forget func()) {
	st.mu.Lock()
	t.relays = append(t.relays, ctx)
	close(t.relayed)
	t.relayed = make(chan struct{})
	st.mu.Unlock()
	return func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		for i, c := range t.relays {
			if c == ctx {
				t.relays = append(t.relays[:i], t.relays[i+1:]...)
				break
			}
		}
	}
}

// currentRelay is the newest pending tasks/result for t, or nil.
func (st *taskStore) currentRelay(t *task) context.Context {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.liveRelayLocked(t)
}

func (st *taskStore) liveRelayLocked(t *task) context.Context {
	for i := len(t.relays) - 1; i >= 0; i-- {
		if t.relays[i].Err() == nil {
			return t.relays[i]
		}
	}
	return nil
}

// awaitRelay waits for a pending tasks/result for t, until ctx (the
// task's) ends or the task does.
func (st *taskStore) awaitRelay(ctx context.Context, t *task) (context.Context, error) {
	for {
		st.mu.Lock()
		via, arrived := st.liveRelayLocked(t), t.relayed
		st.mu.Unlock()
		if via != nil {
			return via, nil
		}
		select {
		case <-arrived:
		case <-t.done:
			return nil, fmt.Errorf("the task ended before the client asked for its result (tasks/result), on whose stream it would travel")
		case <-ctx.Done():
			return nil, fmt.Errorf("no tasks/result request carried it: %w", ctx.Err())
		}
	}
}

// beginAsking notes a request to the client on t's behalf: the task is
// input_required until every such request is answered.
func (st *taskStore) beginAsking(t *task) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t.asking++
	if t.status == statusWorking {
		t.status, t.message, t.updated = statusInputRequired, "waiting for the client's input", st.now()
	}
}

// endAsking notes a request answered (or failed); the last one puts the
// task back to working.
func (st *taskStore) endAsking(t *task) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t.asking--
	if t.asking == 0 && t.status == statusInputRequired && t.pending == nil {
		t.status, t.message, t.updated = statusWorking, "", st.now()
	}
}
