package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// blocker is a tool that runs until released or cancelled, and says which.
type blocker struct {
	release   chan struct{}
	started   chan struct{}
	cancelled chan struct{}
}

func newBlocker() *blocker {
	return &blocker{release: make(chan struct{}), started: make(chan struct{}, 8), cancelled: make(chan struct{}, 8)}
}

// waitStarted waits until a call of the tool is running.
func (b *blocker) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-b.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
}

func (b *blocker) tool() tool.Tool {
	return tool.Func("build", "Run a long build.", func(ctx context.Context, in echoIn) (string, error) {
		b.started <- struct{}{}
		select {
		case <-b.release:
			return "built " + in.Text, nil
		case <-ctx.Done():
			b.cancelled <- struct{}{}
			return "", ctx.Err()
		}
	})
}

// taskServer serves a blocking build tool (task-optional), an echo tool
// (no tasks) and a native tool that requires a task and reports an error.
func taskServer(t *testing.T, lim TaskLimits) (*Server, *blocker) {
	t.Helper()
	b := newBlocker()
	echo := tool.Func("echo", "Echo.", func(_ context.Context, in echoIn) (string, error) { return in.Text, nil })
	set, err := tool.NewSet(b.tool(), echo)
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, Config{
		Tools:     set,
		TaskTools: map[string]TaskSupport{"build": TaskOptional},
		Tasks:     lim,
		Features: &Features{Tools: []NativeTool{{
			Tool:        &sdk.Tool{Name: "must_task", InputSchema: json.RawMessage(`{"type":"object"}`)},
			TaskSupport: TaskRequired,
			Handler: func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it broke"}}}, nil
			},
		}}},
	})
	t.Cleanup(s.Close)
	return s, b
}

type wireTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

func startLegacyTask(t *testing.T, c *rawClient, name string, args any, ttl int64) wireTask {
	t.Helper()
	var created struct {
		Task    wireTask        `json:"task"`
		Content json.RawMessage `json:"content"`
	}
	c.callInto("tools/call", map[string]any{"name": name, "arguments": args, "task": map[string]any{"ttl": ttl}}, &created)
	if created.Task.TaskID == "" || created.Content != nil {
		t.Fatalf("tools/call with a task parameter: want a CreateTaskResult, got %+v", created)
	}
	return created.Task
}

func getTask(t *testing.T, c *rawClient, id string) wireTask {
	t.Helper()
	var got wireTask
	c.callInto("tasks/get", map[string]any{"taskId": id}, &got)
	return got
}

// TestTasksLegacyLifecycle drives a 2025-11-25 task over stdio: the
// capability and execution.taskSupport are advertised, tools/call with the
// task parameter answers a task at once, tasks/get follows it, tasks/list
// lists it, tasks/result waits for the tool's result and ties it to the
// task, and a finished task cannot be cancelled.
func TestTasksLegacyLifecycle(t *testing.T) {
	s, b := taskServer(t, TaskLimits{})
	c := newRawStdio(t, s, "2025-11-25")

	var listed struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	c.callInto("tools/list", map[string]any{}, &listed)
	support := map[string]string{}
	for _, tl := range listed.Tools {
		if tl.Execution != nil {
			support[tl.Name] = tl.Execution.TaskSupport
		}
	}
	if diff := cmp.Diff(map[string]string{"build": "optional", "must_task": "required"}, support); diff != "" {
		t.Errorf("execution.taskSupport in tools/list (-want +got):\n%s", diff)
	}

	created := startLegacyTask(t, c, "build", map[string]any{"text": "all"}, 60_000)
	if created.Status != "working" || created.TTL == nil || *created.TTL != 60_000 || created.PollInterval <= 0 {
		t.Errorf("created task = %+v; want working, ttl 60000, a poll interval", created)
	}
	if got := getTask(t, c, created.TaskID); got.Status != "working" {
		t.Errorf("tasks/get while running: status %q, want working", got.Status)
	}
	var list struct {
		Tasks []wireTask `json:"tasks"`
	}
	c.callInto("tasks/list", map[string]any{}, &list)
	if len(list.Tasks) != 1 || list.Tasks[0].TaskID != created.TaskID {
		t.Errorf("tasks/list = %+v; want the one task", list.Tasks)
	}

	resultc := make(chan json.RawMessage, 1)
	go func() {
		res, err := c.call("tasks/result", map[string]any{"taskId": created.TaskID})
		if err != nil {
			t.Errorf("tasks/result: %v", err)
		}
		resultc <- res
	}()
	select {
	case <-resultc:
		t.Fatal("tasks/result answered before the task finished")
	case <-time.After(100 * time.Millisecond):
	}
	close(b.release)
	res := <-resultc
	var payload struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Meta map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(res, &payload); err != nil {
		t.Fatal(err)
	}
	if len(payload.Content) != 1 || payload.Content[0].Text != "built all" {
		t.Errorf("tasks/result content = %s; want the tool's result", res)
	}
	if payload.Meta[metaRelatedTask].TaskID != created.TaskID {
		t.Errorf("tasks/result _meta = %s; want related-task %s", res, created.TaskID)
	}
	if got := getTask(t, c, created.TaskID); got.Status != "completed" {
		t.Errorf("tasks/get after the result: %q, want completed", got.Status)
	}
	_, err := c.call("tasks/cancel", map[string]any{"taskId": created.TaskID})
	var rerr *rawError
	if !errors.As(err, &rerr) || rerr.Code != -32602 {
		t.Errorf("tasks/cancel on a completed task: %v; want -32602", err)
	}
}

// TestTasksLegacyCancel cancels a running task: tasks/cancel answers the
// task as cancelled, the tool's context is cancelled, and the status
// stays cancelled after the tool returns.
func TestTasksLegacyCancel(t *testing.T) {
	s, b := taskServer(t, TaskLimits{})
	c := newRawStdio(t, s, "2025-11-25")
	created := startLegacyTask(t, c, "build", map[string]any{"text": "x"}, 0)
	b.waitStarted(t)
	var cancelled wireTask
	c.callInto("tasks/cancel", map[string]any{"taskId": created.TaskID}, &cancelled)
	if cancelled.Status != "cancelled" {
		t.Errorf("tasks/cancel answered %+v; want status cancelled", cancelled)
	}
	select {
	case <-b.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool's context was not cancelled")
	}
	if got := getTask(t, c, created.TaskID); got.Status != "cancelled" {
		t.Errorf("after the tool returned: status %q, want cancelled", got.Status)
	}
	_, err := c.call("tasks/result", map[string]any{"taskId": created.TaskID})
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("tasks/result of a cancelled task: %v; want an error saying it was cancelled", err)
	}
}

// TestTasksLegacyRequiredAndErrors checks the refusals: a required tool
// called without the task parameter, an unknown task, and a tool error
// failing its task (2025-11-25 semantics) with the result kept.
func TestTasksLegacyRequiredAndErrors(t *testing.T) {
	s, _ := taskServer(t, TaskLimits{})
	c := newRawStdio(t, s, "2025-11-25")
	var rerr *rawError
	if _, err := c.call("tools/call", map[string]any{"name": "must_task"}); !errors.As(err, &rerr) || rerr.Code != -32601 {
		t.Errorf("required tool without a task: %v; want -32601 (the code 2025-11-25 prescribes)", err)
	}
	if _, err := c.call("tasks/get", map[string]any{"taskId": "nope"}); !errors.As(err, &rerr) || rerr.Code != -32602 {
		t.Errorf("tasks/get of an unknown task: %v; want -32602", err)
	}
	created := startLegacyTask(t, c, "must_task", map[string]any{}, 0)
	res, err := c.call("tasks/result", map[string]any{"taskId": created.TaskID})
	if err != nil || !strings.Contains(string(res), "it broke") {
		t.Errorf("tasks/result of a failed task: %s, %v; want the isError result", res, err)
	}
	if got := getTask(t, c, created.TaskID); got.Status != "failed" {
		t.Errorf("status of a task whose tool reported an error: %q, want failed", got.Status)
	}
	// A synchronous tool ignores a task parameter.
	var sync struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	c.callInto("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}, "task": map[string]any{}}, &sync)
	if len(sync.Content) != 1 || sync.Content[0].Text != "hi" {
		t.Errorf("sync tool with a task parameter: %+v; want its plain result", sync)
	}
}

// TestTasksLimits checks the bounds: live tasks beyond MaxLive are
// refused, a TTL is capped at MaxTTL, and a task is cancelled and
// forgotten when its TTL ends.
func TestTasksLimits(t *testing.T) {
	s, b := taskServer(t, TaskLimits{MaxLive: 2, MaxTTL: 300 * time.Millisecond})
	c := newRawStdio(t, s, "2025-11-25")
	first := startLegacyTask(t, c, "build", map[string]any{"text": "1"}, 3_600_000)
	if first.TTL == nil || *first.TTL != 300 {
		t.Errorf("ttl = %v; want the 300 ms cap", first.TTL)
	}
	startLegacyTask(t, c, "build", map[string]any{"text": "2"}, 0)
	_, err := c.call("tools/call", map[string]any{"name": "build", "arguments": map[string]any{"text": "3"}, "task": map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "too many tasks") {
		t.Errorf("a third live task: %v; want it refused as too many", err)
	}
	for range 2 {
		select {
		case <-b.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatal("a task outliving its TTL was not cancelled")
		}
	}
	var rerr *rawError
	if _, err := c.call("tasks/get", map[string]any{"taskId": first.TaskID}); !errors.As(err, &rerr) || rerr.Code != -32602 {
		t.Errorf("tasks/get after the TTL: %v; want -32602 (forgotten)", err)
	}
	// Room again.
	startLegacyTask(t, c, "build", map[string]any{"text": "4"}, 0)
}

// TestTasksStdioHangUp: tasks started over a stdio connection are
// cancelled when the client goes away.
func TestTasksStdioHangUp(t *testing.T) {
	s, b := taskServer(t, TaskLimits{})
	c := newRawStdio(t, s, "2025-11-25")
	startLegacyTask(t, c, "build", map[string]any{"text": "x"}, 0)
	b.waitStarted(t)
	c.w.(interface{ Close() error }).Close()
	select {
	case <-b.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the task kept running after its stdio client hung up")
	}
}

// TestTasksLegacyMalformedTaskParam checks that a task parameter that is
// not a task request is refused as invalid params (it was run as a task
// with the defaults), and that a TTL too large for a Duration is capped
// rather than overflowing into an already expired task.
func TestTasksLegacyMalformedTaskParam(t *testing.T) {
	s, _ := taskServer(t, TaskLimits{MaxTTL: time.Minute})
	c := newRawStdio(t, s, "2025-11-25")
	for _, task := range []any{"soon", 7, []any{1}, map[string]any{"ttl": "60000"}, map[string]any{"ttl": 1.5}} {
		var rerr *rawError
		if _, err := c.call("tools/call", map[string]any{"name": "build", "arguments": map[string]any{"text": "x"}, "task": task}); !errors.As(err, &rerr) || rerr.Code != -32602 {
			t.Errorf("task parameter %#v: %v; want -32602 invalid params", task, err)
		}
	}
	huge := startLegacyTask(t, c, "build", map[string]any{"text": "1"}, 1<<62)
	if huge.TTL == nil || *huge.TTL != 60_000 {
		t.Errorf("ttl of a task asking 2^62 ms = %v; want the one-minute cap", huge.TTL)
	}
	if got := getTask(t, c, huge.TaskID); got.Status != "working" {
		t.Errorf("status right after creation = %q; want working (not expired)", got.Status)
	}
}
