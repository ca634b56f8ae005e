package tool

import (
	"context"
	"log/slog"
)

// The agent hands every invocation a context carrying the call's identity
// and a logger, so a tool can correlate its own diagnostics (and outside
// systems it talks to) with the tool.call and tool.result events of the
// run without the agent's types leaking into the tool's signature.

type callIDKey struct{}

type loggerKey struct{}

// discardLogger is what Logger returns when no logger was set: tools log
// unconditionally and never check for nil.
var discardLogger = slog.New(slog.DiscardHandler)

// WithCallID returns a context carrying the id of the tool call being
// invoked (model.ToolCall.ID as the agent recorded it).
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// WithCall returns a context carrying a call's id, as WithCallID does, and
// its idempotency key when key is not empty, as WithIdempotencyKey does —
// in one allocation rather than one or two per value, for the agent, which
// does this for every tool call.
func WithCall(ctx context.Context, id, key string) context.Context {
	return &callValues{Context: ctx, id: id, key: key}
}

// callValues answers the call id and idempotency key and defers every
// other question (deadline, cancellation, other values) to its parent.
// Child contexts still find the parent's cancellation through Value, so
// deriving from it starts no goroutine.
type callValues struct {
	context.Context
	id, key string
}

func (c *callValues) Value(k any) any {
	switch k.(type) {
	case callIDKey:
		return c.id
	case idempotencyKey:
		if c.key != "" {
			return c.key
		}
	}
	return c.Context.Value(k)
}

// CallID returns the call id set by WithCallID, or "".
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// WithLogger returns a context carrying the logger a tool should use. The
// agent sets its Config.Logger with the attributes call_id and tool. A nil
// l leaves ctx unchanged.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	if l == nil {
		return ctx
	}
	return context.WithValue(ctx, loggerKey{}, l)
}

// Logger returns the logger set by WithLogger. It is never nil: without
// one it is a logger that discards everything.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return discardLogger
}

type progressKey struct{}

// WithProgress returns a context whose ReportProgress calls report: the
// seam through which a long-running tool (run_command's output, say) shows
// what it is doing before it returns. The agent sets it for every
// invocation when Config.ToolProgress is set. report is called from the
// tool's goroutines, possibly concurrently, and must return quickly. A nil
// report leaves ctx unchanged.
func WithProgress(ctx context.Context, report func(text string)) context.Context {
	if report == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, report)
}

// ReportProgress hands text to the progress function set by WithProgress,
// and does nothing without one. Progress is for people watching; it never
// reaches the model, which sees only the result. It is safe for concurrent
// use as long as the function set is.
func ReportProgress(ctx context.Context, text string) {
	if report, ok := ctx.Value(progressKey{}).(func(string)); ok {
		report(text)
	}
}

type sessionIDKey struct{}

// WithSessionID returns a context carrying the id of the session a call
// runs in, for tools that record it (the memory tools): a durable
// engine's worker sets it per call, since one tool set serves many
// sessions there.
func WithSessionID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionIDKey{}, id)
}

// SessionID returns the id set by WithSessionID, or "".
func SessionID(ctx context.Context) string {
	id, _ := ctx.Value(sessionIDKey{}).(string)
	return id
}
