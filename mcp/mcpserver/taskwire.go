package mcpserver

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The two eras put tasks on the wire differently. 2025-11-25 (tasks in
// the core protocol): the client asks with tools/call's task parameter,
// gets {task: Task}, polls tasks/get, collects with tasks/result, lists
// with tasks/list, and a Task names its TTL ttl and its interval
// pollInterval. 2026-07-28 (the io.modelcontextprotocol/tasks extension,
// SEP-2663): the server decides, answers a flat Result & Task with
// resultType "task", inlines the outcome in tasks/get, takes input with
// tasks/update, has no tasks/result or tasks/list, and says ttlMs and
// pollIntervalMs.

// Names on the wire.
const (
	// TasksExtension is the 2026-07-28 tasks extension's identifier.
	TasksExtension = "io.modelcontextprotocol/tasks"
	// metaRelatedTask ties a 2025-11-25 message to its task.
	metaRelatedTask = "io.modelcontextprotocol/related-task"
	// metaTaskRequest carries a 2025-11-25 tools/call's task parameter
	// to the tools/call middleware: the SDK's params type has no field
	// for it, so the transports move it into _meta (see liftTaskParam).
	metaTaskRequest = "io.reinharness/task-request"

	resultTypeTask     = "task"
	resultTypeComplete = "complete"
)

// legacyTask is a 2025-11-25 Task.
type legacyTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval,omitempty"`
}

// legacyCreateResult answers a task-augmented tools/call (2025-11-25).
type legacyCreateResult struct {
	sdk.ResultBase
	Task legacyTask `json:"task"`
}

// legacyTaskResult answers tasks/get and tasks/cancel (2025-11-25).
type legacyTaskResult struct {
	sdk.ResultBase
	legacyTask
}

// legacyListResult answers tasks/list (2025-11-25).
type legacyListResult struct {
	sdk.ResultBase
	Tasks      []legacyTask `json:"tasks"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

// modernTask is a 2026-07-28 Task.
type modernTask struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// modernCreateResult answers a tools/call the server made a task
// (2026-07-28): Result & Task, flat.
type modernCreateResult struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
	modernTask
}

// detailedTask answers tasks/get (2026-07-28): the task, and its outcome
// or the input it waits for.
type detailedTask struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
	modernTask
	Result        *sdk.CallToolResult `json:"result,omitempty"`
	Error         *jsonrpc.Error      `json:"error,omitempty"`
	InputRequests sdk.InputRequestMap `json:"inputRequests,omitempty"`
}

// ackResult is the empty acknowledgement of tasks/update and tasks/cancel
// (2026-07-28).
type ackResult struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
}

// taskIDParams are the params of tasks/get, tasks/result, tasks/cancel.
type taskIDParams struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
}

// taskUpdateParams are the params of tasks/update. The responses stay
// raw: only those to pending requests are decoded, so an unknown key the
// protocol says to ignore cannot fail the whole update.
type taskUpdateParams struct {
	sdk.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// listTasksParams are the params of tasks/list.
type listTasksParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// taskRequest is a 2025-11-25 tools/call's task parameter.
type taskRequest struct {
	TTL *int64 `json:"ttl,omitempty"`
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (st *taskStore) legacyView(t *task) legacyTask {
	c := st.snapshot(t)
	return legacyTask{
		TaskID: c.id, Status: c.status, StatusMessage: c.message,
		CreatedAt: stamp(c.created), LastUpdatedAt: stamp(c.updated),
		TTL: c.ttl.Milliseconds(), PollInterval: st.lim.PollInterval.Milliseconds(),
	}
}

func (st *taskStore) modernView(c task) modernTask {
	return modernTask{
		TaskID: c.id, Status: c.status, StatusMessage: c.message,
		CreatedAt: stamp(c.created), LastUpdatedAt: stamp(c.updated),
		TTLMs: c.ttl.Milliseconds(), PollIntervalMs: st.lim.PollInterval.Milliseconds(),
	}
}

// detailed is tasks/get's answer in the 2026-07-28 era: a completed task
// inlines its result, a failed one its error, a parked one what it asks.
func (st *taskStore) detailed(t *task) *detailedTask {
	c := st.snapshot(t)
	d := &detailedTask{ResultType: resultTypeComplete, modernTask: st.modernView(c)}
	switch c.status {
	case statusCompleted:
		d.Result = c.result
	case statusFailed:
		d.Error = c.err
		if d.Error == nil {
			d.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: c.message}
		}
	case statusInputRequired:
		d.InputRequests = c.pending
	}
	return d
}

// sortTasks orders tasks by creation, then ID, so tasks/list pages are
// stable.
func sortTasks(ts []*task) {
	sort.Slice(ts, func(i, j int) bool {
		if !ts[i].created.Equal(ts[j].created) {
			return ts[i].created.Before(ts[j].created)
		}
		return ts[i].id < ts[j].id
	})
}
