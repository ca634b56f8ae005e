package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// MCP tasks, client side. A tool lists execution.taskSupport
// ("required", "optional" or absent). rein calls a tool as a task when
// it must (required) or when the server's configuration asks for it
// (optional, with tasks = "always"): in the 2025-11-25 era by sending
// tools/call with a task parameter, in the 2026-07-28 era by declaring
// the tasks extension, after which the server decides. A task handle is
// then followed by polling tasks/get with backoff until the task ends,
// its result collected (tasks/result in 2025-11-25; inlined in tasks/get
// in 2026-07-28), and a run that is cancelled cancels the task.

// TasksExtension is the 2026-07-28 tasks extension's identifier, which
// rein declares unless a server's tasks setting is "never".
const TasksExtension = "io.modelcontextprotocol/tasks"

// Polling bounds: the first poll after taskPollMin, growing by half each
// time up to taskPollMax, never sooner than the server's pollInterval
// (itself capped at taskPollCap, so a server cannot stall a call).
const (
	taskPollMin    = 250 * time.Millisecond
	taskPollMax    = 5 * time.Second
	taskPollCap    = 30 * time.Second
	taskCancelWait = 2 * time.Second
)

// Task support as tools/list says it.
const (
	taskRequired = "required"
	taskOptional = "optional"
)

// taskIDParams are the params of tasks/get, tasks/result, tasks/cancel.
type taskIDParams struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
}

// wireTask is a task as tasks/get and tasks/cancel answer it, in either
// era (2025-11-25 says pollInterval, 2026-07-28 pollIntervalMs and
// inlines the outcome).
type wireTask struct {
	sdk.ResultBase
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	PollInterval   int64           `json:"pollInterval,omitempty"`
	PollIntervalMs int64           `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *jsonrpc.Error  `json:"error,omitempty"`
	// InputRequests are what a parked 2026-07-28 task asks (taskinput.go).
	InputRequests map[string]inputRequest `json:"inputRequests,omitempty"`
}

func (t *wireTask) interval() time.Duration {
	ms := t.PollIntervalMs
	if ms == 0 {
		ms = t.PollInterval
	}
	return min(time.Duration(max(ms, 0))*time.Millisecond, taskPollCap)
}

func (t *wireTask) ended() bool {
	switch t.Status {
	case "completed", "failed", "cancelled":
		return true
	}
	return false
}

// registerTaskMethods lets a client send the tasks/* requests.
func registerTaskMethods(c *sdk.Client) {
	_ = sdk.AddSendingCustomMethod[*taskIDParams, *wireTask](c, "tasks/get")
	_ = sdk.AddSendingCustomMethod[*taskIDParams, *wireTask](c, "tasks/cancel")
	_ = sdk.AddSendingCustomMethod[*taskIDParams, *sdk.CallToolResult](c, "tasks/result")
	_ = sdk.AddSendingCustomMethod[*taskUpdateParams, *ackResult](c, "tasks/update")
}

// taskSupport reads a listed tool's execution.taskSupport.
func taskSupport(t *sdk.Tool) string {
	raw, ok := t.Meta[metaExecution].(map[string]any)
	if !ok {
		return ""
	}
	s, _ := raw["taskSupport"].(string)
	return s
}

// canRunTasks reports whether rein can call tools of this session as
// tasks, and if not, why.
func (s *server) canRunTasks(sess *session) (bool, string) {
	switch {
	case s.cfg.Tasks == TasksNever:
		return false, `the server's tasks setting is "never"`
	case sess == nil:
		return true, ""
	case sess.era < Protocol251125:
		return false, fmt.Sprintf("the server speaks %s, which has no tasks", sess.era)
	}
	return true, ""
}

// wantsTask reports whether a call to a tool of this support should ask
// for a task.
func (s *server) wantsTask(support string) bool {
	switch support {
	case taskRequired:
		return s.cfg.Tasks != TasksNever
	case taskOptional:
		return s.cfg.Tasks == TasksAlways
	}
	return false
}

// createdTask returns the task handle a tools/call answered, if any.
func createdTask(res *sdk.CallToolResult) (*wireTask, bool) {
	raw, ok := res.Meta[metaCreatedTask]
	if !ok {
		return nil, false
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, false
	}
	var h struct {
		Task *wireTask `json:"task"`
		wireTask
	}
	if json.Unmarshal(data, &h) != nil {
		return nil, false
	}
	if h.Task != nil {
		return h.Task, h.Task.TaskID != ""
	}
	t := h.wireTask
	return &t, t.TaskID != ""
}

// followTask polls a task until it ends and returns its result. When ctx
// ends first, the task is cancelled on the server (within
// taskCancelWait) and the call fails with ctx's error, as any
// interrupted call does.
func (s *server) followTask(ctx context.Context, sess *session, remote, exposed string, t *wireTask) (*sdk.CallToolResult, error) {
	what := fmt.Sprintf("task %s of %q", t.TaskID, remote)
	notes, stop := s.taskWatch.follow(t.TaskID)
	defer stop()
	delay, said, rounds := taskPollMin, "", 0
	for {
		if msg := statusLine(t); msg != said {
			s.reportTaskStatus(ctx, exposed, msg)
			said = msg
		}
		if t.ended() {
			return s.taskOutcome(ctx, sess, what, t)
		}
		if t.Status == "input_required" && sess.era >= ProtocolModern && len(t.InputRequests) > 0 {
			if rounds++; rounds > maxTaskInputRounds {
				s.cancelTask(ctx, sess, t.TaskID)
				return nil, fmt.Errorf("mcp server %q: %s asked for input more than %d times; the task was cancelled", s.cfg.Name, what, maxTaskInputRounds)
			}
			if err := s.answerTaskInput(ctx, sess, what, t); err != nil {
				s.cancelTask(ctx, sess, t.TaskID)
				return nil, fmt.Errorf("%w; the task was cancelled", err)
			}
			delay = taskPollMin // the answer should move it on soon
		}
		if t.Status == "input_required" && sess.era < ProtocolModern {
			// 2025-11-25: tasks/result blocks and carries the server's
			// requests for input over the session meanwhile.
			return s.taskOutcome(ctx, sess, what, t)
		}
		timer := time.NewTimer(max(delay, t.interval()))
		select {
		case <-ctx.Done():
			timer.Stop()
			s.cancelTask(ctx, sess, t.TaskID)
			return nil, fmt.Errorf("mcp server %q: %s: %w (the task was cancelled)", s.cfg.Name, what, ctx.Err())
		case n := <-notes:
			timer.Stop()
			if sess.era < ProtocolModern {
				// The notification is the task's state; its outcome,
				// if it ended, comes from tasks/result as after a poll.
				t = n
				continue
			}
			// 2026-07-28 inlines the outcome in tasks/get: poll now.
		case <-timer.C:
			delay = min(delay*3/2, taskPollMax)
		}
		next, err := sdk.CallCustomMethod[*taskIDParams, *wireTask](ctx, sess.cs, "tasks/get", &taskIDParams{TaskID: t.TaskID})
		if err != nil {
			if ctx.Err() != nil {
				s.cancelTask(ctx, sess, t.TaskID)
			}
			return nil, s.callError(ctx, sess, "polling "+what, err)
		}
		if next.TaskID == "" {
			next.TaskID = t.TaskID
		}
		t = next
	}
}

// reportTaskStatus hands a task's status to the call's progress
// (tool.ReportProgress: the chat's live view) and to Config.OnProgress
// (the event stream), as a progress notification would be.
func (s *server) reportTaskStatus(ctx context.Context, exposed, msg string) {
	tool.ReportProgress(ctx, msg)
	if s.m.cfg.OnProgress != nil {
		s.m.cfg.OnProgress(context.WithoutCancel(ctx), Progress{
			Server: s.cfg.Name, Tool: exposed, IdempotencyKey: tool.IdempotencyKey(ctx),
			CallID: tool.CallID(ctx), Message: msg,
		})
	}
}

// statusLine is the progress line for a task's state.
func statusLine(t *wireTask) string {
	if t.StatusMessage != "" {
		return fmt.Sprintf("task %s: %s", t.Status, clip(oneLine(printable(t.StatusMessage)), 200))
	}
	return "task " + t.Status
}

// taskOutcome collects an ended (or, 2025-11-25, parked) task's result.
func (s *server) taskOutcome(ctx context.Context, sess *session, what string, t *wireTask) (*sdk.CallToolResult, error) {
	if t.Status == "cancelled" {
		return nil, fmt.Errorf("mcp server %q: %s was cancelled by the server%s", s.cfg.Name, what, suffix(t.StatusMessage))
	}
	if sess.era < ProtocolModern {
		res, err := sdk.CallCustomMethod[*taskIDParams, *sdk.CallToolResult](ctx, sess.cs, "tasks/result", &taskIDParams{TaskID: t.TaskID})
		if err != nil {
			if ctx.Err() != nil {
				s.cancelTask(ctx, sess, t.TaskID)
			}
			return nil, s.callError(ctx, sess, "collecting "+what, err)
		}
		return res, nil
	}
	if t.Status == "failed" {
		e := t.Error
		if e == nil {
			e = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: t.StatusMessage}
		}
		return nil, s.callError(ctx, sess, what, e)
	}
	if len(t.Result) == 0 {
		return nil, fmt.Errorf("mcp server %q: %s completed without a result", s.cfg.Name, what)
	}
	var res sdk.CallToolResult
	if err := json.Unmarshal(t.Result, &res); err != nil {
		return nil, fmt.Errorf("mcp server %q: %s: its result is not a tool result: %s", s.cfg.Name, what, clip(oneLine(err.Error()), 200))
	}
	return &res, nil
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + clip(oneLine(printable(msg)), 200)
}

// cancelTask asks the server to cancel a task, bounded in time and
// whatever ctx's state; a failure is only logged (the task's TTL ends it
// in the end).
func (s *server) cancelTask(ctx context.Context, sess *session, id string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), taskCancelWait)
	defer cancel()
	if _, err := sdk.CallCustomMethod[*taskIDParams, *wireTask](cctx, sess.cs, "tasks/cancel", &taskIDParams{TaskID: id}); err != nil {
		s.m.logger.Warn("mcp: cancelling a task failed", "server", s.cfg.Name, "task", id, "error", s.redact(err))
	}
}

// finishCall turns a tools/call result into rein's: a task handle is
// followed to the task's result first.
func (s *server) finishCall(ctx context.Context, sess *session, remote, exposed string, res *sdk.CallToolResult) (*tool.Result, error) {
	if t, ok := createdTask(res); ok {
		if ctx.Err() != nil {
			// Cancelled while the handle was on its way (see graceAfter).
			s.cancelTask(ctx, sess, t.TaskID)
			return nil, fmt.Errorf("mcp server %q: task %s of %q: %w (the task was cancelled)", s.cfg.Name, t.TaskID, remote, ctx.Err())
		}
		var err error
		if res, err = s.followTask(ctx, sess, remote, exposed, t); err != nil {
			return nil, err
		}
	}
	return renderResult(res), nil
}

// noteUntaskable reports, once per tool, that a tool requiring a task is
// not offered to the model (a call could only fail).
func (s *server) noteUntaskable(name, why string) {
	s.mu.Lock()
	if s.untasked == nil {
		s.untasked = map[string]bool{}
	}
	seen := s.untasked[name]
	s.untasked[name] = true
	s.mu.Unlock()
	if !seen {
		s.m.report(Problem{Server: s.cfg.Name, Err: fmt.Errorf("tool %q is not offered: %s", clip(name, 100), untaskableReason(why))})
	}
}

// graceAfter returns a context that ends d after ctx does. A tools/call
// that may start a task is sent under it: cancelled while the server is
// creating the task, the call still receives the handle (servers answer
// at once), so rein can cancel the task instead of leaving it running
// unseen.
func graceAfter(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(d, cancel) })
	return c, func() { stop(); cancel() }
}

// legacyCapsMiddleware keeps the 2026-07-28 tasks extension out of the
// initialize handshake, which only servers of older eras see: they
// negotiate tasks per call (2025-11-25) or have none.
func legacyCapsMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ir, ok := req.(*sdk.InitializeRequest)
		if method != "initialize" || !ok || ir.Params == nil || ir.Params.Capabilities == nil {
			return next(ctx, method, req)
		}
		if _, has := ir.Params.Capabilities.Extensions[TasksExtension]; !has {
			return next(ctx, method, req)
		}
		p := *ir.Params
		caps := *p.Capabilities
		caps.Extensions = maps.Clone(caps.Extensions)
		delete(caps.Extensions, TasksExtension)
		if len(caps.Extensions) == 0 {
			caps.Extensions = nil
		}
		p.Capabilities = &caps
		return next(ctx, method, &sdk.InitializeRequest{Session: ir.Session, Params: &p})
	}
}
