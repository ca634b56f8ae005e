package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/tool"
)

// MetaIdempotencyKey is the _meta key under which a tools/call carries the
// idempotency key the agent gave the call (see tool.IdempotencyKey), so a
// server can recognise a call it has already applied.
const MetaIdempotencyKey = "io.github.reinharness/idempotencyKey"

// mcpTool is one server tool as a tool.Tool. It stays valid across
// reconnections: each call goes to the server's current session.
type mcpTool struct {
	s      *server
	remote string // the server's name for the tool
	spec   tool.Spec
	task   string // execution.taskSupport: "required", "optional" or ""
}

// Spec implements tool.Tool.
func (t *mcpTool) Spec() tool.Spec { return t.spec }

// Timeout implements tool.Timeouter: the server's tool_timeout, when set.
func (t *mcpTool) Timeout() time.Duration { return t.s.cfg.ToolTimeout }

// Call implements tool.Tool.
func (t *mcpTool) Call(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	return t.s.callTool(ctx, t.remote, t.spec.Name, args, t.retriable(), t.task)
}

// retriable reports whether a call that failed in transport may be sent
// again: only when the server says the tool is read-only or idempotent,
// so a second delivery cannot do anything the first did not. Without the
// hint a call is never replayed (it may have taken effect).
func (t *mcpTool) retriable() bool {
	a := t.spec.Annotations
	return a.ReadOnlyHint != nil && *a.ReadOnlyHint || a.IdempotentHint != nil && *a.IdempotentHint
}

// newTool describes a server tool to the model and the policy. The
// server's annotations are copied as the advisory hints they are; the
// effects are rein's own claim: an MCP tool is external, and reaches the
// network unless the server says its world is closed (openWorldHint
// defaults to true) and the server itself is local.
func (s *server) newTool(t *sdk.Tool, name string) *mcpTool {
	spec := tool.Spec{
		Name:        name,
		Description: t.Description,
		InputSchema: inputSchema(t.InputSchema),
		Annotations: annotations(t),
	}
	if spec.Description == "" {
		spec.Description = spec.Annotations.Title
	}
	openWorld := spec.Annotations.OpenWorldHint == nil || *spec.Annotations.OpenWorldHint
	spec.Effects = tool.Effects{External: true, Network: openWorld || s.remote()}
	return &mcpTool{s: s, remote: t.Name, spec: spec, task: taskSupport(t)}
}

// annotations maps MCP tool annotations to rein's. The SDK decodes
// readOnlyHint and idempotentHint as plain booleans, so an absent hint and
// false look alike; both mean "no claim" here, which is also what false
// claims (the protocol defaults are false).
func annotations(t *sdk.Tool) tool.Annotations {
	a := tool.Annotations{Title: t.Title}
	if t.Annotations == nil {
		return a
	}
	if a.Title == "" {
		a.Title = t.Annotations.Title
	}
	if t.Annotations.ReadOnlyHint {
		a.ReadOnlyHint = new(true)
	}
	if t.Annotations.IdempotentHint {
		a.IdempotentHint = new(true)
	}
	if p := t.Annotations.DestructiveHint; p != nil {
		a.DestructiveHint = new(*p)
	}
	if p := t.Annotations.OpenWorldHint; p != nil {
		a.OpenWorldHint = new(*p)
	}
	return a
}

// inputSchema passes the server's schema through as JSON. Model APIs need
// an object schema; a schema without a type gets "type": "object", and
// anything that is not a JSON object is replaced by an empty object schema.
func inputSchema(v any) json.RawMessage {
	empty := json.RawMessage(`{"type":"object","properties":{}}`)
	if v == nil {
		return empty
	}
	data, err := json.Marshal(v)
	if err != nil || len(data) == 0 || data[0] != '{' {
		return empty
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return empty
	}
	if _, ok := probe["type"]; !ok {
		probe["type"] = json.RawMessage(`"object"`)
		if d, err := json.Marshal(probe); err == nil {
			data = d
		}
	}
	return data
}

// remote reports whether the server is reached over the network rather
// than on this machine.
func (s *server) remote() bool {
	if s.cfg.URL == "" {
		return false
	}
	u, err := url.Parse(s.cfg.URL)
	if err != nil {
		return true
	}
	host := u.Hostname()
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// callTool calls a tool on the server's current session, connecting first
// when needed (after a crash, the server restarts for this call). A call
// that failed in transport before any result (a reset connection, a
// crashed server, an HTTP 5xx) is sent once more, with the same
// idempotency key, when retry is set (see mcpTool.retriable); otherwise
// it is never replayed. A tool of the given task support may be called
// as a task (see taskclient.go).
func (s *server) callTool(ctx context.Context, remote, exposed string, args json.RawMessage, retry bool, support string) (*tool.Result, error) {
	sess, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	params := &sdk.CallToolParams{Name: remote, Arguments: callArgs(args)}
	meta := map[string]any{}
	if key := tool.IdempotencyKey(ctx); key != "" {
		meta[MetaIdempotencyKey] = key
	}
	token, untrack := s.m.trackProgress(ctx, s.cfg.Name, exposed)
	defer untrack()
	if token != nil {
		meta["progressToken"] = token
	}
	if sess.era >= Protocol251125 && sess.era < ProtocolModern && s.wantsTask(support) {
		meta[metaTaskRequest] = map[string]any{} // the server's default TTL
	}
	if len(meta) > 0 {
		params.SetMeta(meta)
	}
	what := fmt.Sprintf("calling %q", remote)
	callCtx := ctx
	if support != "" {
		var stop context.CancelFunc
		callCtx, stop = graceAfter(ctx, taskCancelWait)
		defer stop()
	}
	res, err := sess.cs.CallTool(callCtx, params)
	if err != nil && retry && s.transportFailure(ctx, err) {
		s.m.logger.Info("mcp: retrying a read-only or idempotent call that failed in transport", "server", s.cfg.Name, "tool", remote, "error", s.redact(err))
		s.forgetIfEnded(sess, err) // a crashed server restarts for the retry
		again, serr := s.session(ctx)
		if serr != nil {
			return nil, fmt.Errorf("%w; the call failed in transport (%s) and was to be retried once", serr, s.redact(err))
		}
		if res, err = again.cs.CallTool(callCtx, params); err != nil {
			return nil, s.callError(ctx, again, what+" (retried once)", err)
		}
		return s.finishCall(ctx, again, remote, exposed, res)
	}
	if err != nil {
		return nil, s.callError(ctx, sess, what, err)
	}
	return s.finishCall(ctx, sess, remote, exposed, res)
}

// transportFailure reports whether a failed request never got an answer
// from the server: the connection broke, the process died, or an HTTP
// server or proxy answered 5xx. A JSON-RPC error the server sent, a
// rate limit (429) and cancellation are answers, not transport failures.
func (s *server) transportFailure(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != codeRejected {
		return false
	}
	return !strings.Contains(err.Error(), http.StatusText(http.StatusTooManyRequests))
}

// forgetIfEnded drops sess as the server's session when it has ended (a
// crash under the call), so the next session call reconnects.
func (s *server) forgetIfEnded(sess *session, err error) {
	wait := 20 * time.Millisecond
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, sdk.ErrSessionMissing) || closedByPeer(err) {
		wait = time.Second // it has ended or is ending
	}
	if ended, _ := sess.ended(wait); ended {
		s.mu.Lock()
		if s.sess == sess {
			s.sess = nil
		}
		s.mu.Unlock()
	}
}

// codeRejected is the go-sdk's code for a request its transport refused
// to deliver (an HTTP 5xx or 429, a failed connection); the error's full
// text carries the reason.
const codeRejected = -32005

// callArgs returns the arguments to send: the model's object, or an
// empty object for none.
func callArgs(args json.RawMessage) any {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || bytes.Equal(a, []byte("null")) {
		return map[string]any{}
	}
	return json.RawMessage(a)
}

// callError explains a failed request: cancellation as such, a session
// that ended under the call (with the process's exit and stderr), or the
// server's error.
func (s *server) callError(ctx context.Context, sess *session, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("mcp server %q: %s: %w", s.cfg.Name, what, ctx.Err())
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != codeRejected {
		return fmt.Errorf("mcp server %q: %s: the server answered with error %d: %s", s.cfg.Name, what, we.Code, secret.Redact(s.scrub.scrub(clip(oneLine(printable(we.Message)), 2000))))
	}
	wait := 20 * time.Millisecond
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, sdk.ErrSessionMissing) {
		wait = time.Second // it has ended; learn why
	}
	if ended, why := sess.ended(wait); ended {
		s.mu.Lock()
		if s.sess == sess {
			s.sess = nil // the next call reconnects
		}
		s.mu.Unlock()
		cause := "the connection to the server ended during the call"
		if sess.stdio != nil {
			cause = "the server process stopped during the call"
		}
		if why != nil {
			cause += " (" + oneLine(why.Error()) + ")"
		}
		e := s.explain(context.Background(), errors.New(cause), sess.stdio)
		if strings.HasSuffix(what, "(retried once)") {
			return fmt.Errorf("%w; rein restarts the server for the next call", e)
		}
		return fmt.Errorf("%w; the call was not retried and may or may not have taken effect; rein restarts the server for the next call", e)
	}
	if sess.stdio != nil {
		if p := sess.stdio.problem(); p != "" {
			err = fmt.Errorf("%w; %s", err, p)
		}
	}
	return fmt.Errorf("mcp server %q: %s: %s", s.cfg.Name, what, secret.Redact(s.scrub.scrub(clip(oneLine(err.Error()), 2000))))
}
