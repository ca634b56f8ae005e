package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp/mcpserver"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// taskPeer is rein's own MCP server, serving task tools over loopback
// HTTP: slow (required, ~300 ms), broken (required, fails), block
// (required, runs until cancelled), ask (required, asks for a color),
// opt (optional) and plain (no tasks).
// It records the methods it was sent.
type taskPeer struct {
	url       string
	limits    mcpserver.TaskLimits
	slow      time.Duration // how long the slow tool takes
	started   chan struct{}
	cancelled chan struct{}

	mu      sync.Mutex
	methods []string
}

func (p *taskPeer) saw(method string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.methods {
		if m == method {
			return true
		}
	}
	return false
}

// count returns how often method was sent.
func (p *taskPeer) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, m := range p.methods {
		if m == method {
			n++
		}
	}
	return n
}

type allowAll struct{}

func (allowAll) Decide(context.Context, policy.Call) policy.Decision {
	return policy.Decision{Action: policy.Allow, Reason: "test allows", Rule: "test:allow"}
}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func newTaskPeer(t *testing.T) *taskPeer {
	t.Helper()
	p := &taskPeer{started: make(chan struct{}, 8), cancelled: make(chan struct{}, 8),
		limits: mcpserver.TaskLimits{PollInterval: 50 * time.Millisecond}, slow: 300 * time.Millisecond}
	s, err := p.server()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	h := s.Handler()
	ts := httptest.NewServer(httpRecorder(h, p))
	t.Cleanup(ts.Close)
	p.url = ts.URL
	return p
}

// server builds the peer's MCP server.
func (p *taskPeer) server() (*mcpserver.Server, error) {
	obj := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	native := func(name string, support mcpserver.TaskSupport, h sdk.ToolHandler) mcpserver.NativeTool {
		return mcpserver.NativeTool{Tool: &sdk.Tool{Name: name, Description: name + " tool", InputSchema: obj}, TaskSupport: support, Handler: h}
	}
	set, err := tool.NewSet()
	if err != nil {
		return nil, err
	}
	return mcpserver.New(mcpserver.Config{
		Tools:  set,
		Policy: allowAll{},
		Tasks:  p.limits,
		Features: &mcpserver.Features{Tools: []mcpserver.NativeTool{
			native("slow", mcpserver.TaskRequired, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				select {
				case <-time.After(p.slow):
					return textResult("slow done: " + string(req.Params.Arguments)), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}),
			native("broken", mcpserver.TaskRequired, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return nil, errors.New("the build broke")
			}),
			native("block", mcpserver.TaskRequired, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				p.started <- struct{}{}
				<-ctx.Done()
				p.cancelled <- struct{}{}
				return nil, ctx.Err()
			}),
			native("ask", mcpserver.TaskRequired, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				if r, ok := req.Params.InputResponses["color"].(*sdk.ElicitResult); ok {
					return textResult(fmt.Sprintf("color: %s %v", r.Action, r.Content["color"])), nil
				}
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"color": &sdk.ElicitParams{
					Message:         "Which color?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"color": map[string]any{"type": "string"}}},
				}}}, nil
			}),
			native("opt", mcpserver.TaskOptional, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return textResult("opt done"), nil
			}),
			native("plain", mcpserver.TaskForbidden, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return textResult("plain done"), nil
			}),
		}},
	})
}

// taskStdioServer is the "tasks" fixture: the peer's server over stdio.
func taskStdioServer() int {
	p := &taskPeer{started: make(chan struct{}, 8), cancelled: make(chan struct{}, 8),
		limits: mcpserver.TaskLimits{PollInterval: 50 * time.Millisecond}, slow: 300 * time.Millisecond}
	// FIXTURE_TASK_POLL_MS and FIXTURE_TASK_SLOW_MS tune the suggested
	// poll interval and the slow tool; FIXTURE_TASK_SILENT=1 sends no
	// task status notifications (tasknotify_test.go).
	if ms, err := strconv.Atoi(os.Getenv("FIXTURE_TASK_POLL_MS")); err == nil {
		p.limits.PollInterval = time.Duration(ms) * time.Millisecond
	}
	if ms, err := strconv.Atoi(os.Getenv("FIXTURE_TASK_SLOW_MS")); err == nil {
		p.slow = time.Duration(ms) * time.Millisecond
	}
	p.limits.NoStatusNotifications = os.Getenv("FIXTURE_TASK_SILENT") == "1"
	s, err := p.server()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := s.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestTaskOverStdio: over stdio, where rein reads the raw messages
// itself, a required-task tool runs as a task in both eras.
func TestTaskOverStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range taskEras {
		t.Run(era, func(t *testing.T) {
			sc := ServerConfig{Name: "peer", Command: exe, Args: []string{"-test.run=^$"}, Env: Secrets{"REIN_MCP_FIXTURE": "tasks"}, ProtocolVersion: era}
			m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
			ctx := testCtx(t, 30*time.Second)
			tools, err := m.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var progress []string
			var mu sync.Mutex
			pctx := tool.WithProgress(ctx, func(s string) { mu.Lock(); progress = append(progress, s); mu.Unlock() })
			res := call(t, pctx, toolByName(t, tools, "peer__slow"), `{"text":"y"}`)
			if res.IsError || !strings.Contains(res.Content, `slow done: {"text":"y"}`) {
				t.Fatalf("result = %+v", res)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(progress) == 0 {
				t.Error("no task status reached the call's progress")
			}
			if r := call(t, ctx, toolByName(t, tools, "peer__broken"), `{}`); !r.IsError || !strings.Contains(r.Content, "the build broke") {
				t.Errorf("broken result = %+v", r)
			}
		})
	}
}

// taskManager connects to the peer speaking version with the tasks mode.
func taskManager(t *testing.T, p *taskPeer, version string, mode TaskMode) (*Manager, *problems) {
	t.Helper()
	sc := ServerConfig{Name: "peer", URL: p.url, Transport: TransportStreamable, ProtocolVersion: version, Tasks: mode}
	return newManager(t, Config{Servers: []ServerConfig{sc}})
}

var taskEras = []string{Protocol251125, ProtocolModern}

// TestTaskRequiredToolRuns: a tool that requires a task and takes ~300 ms
// is called as one in both eras (created, polled, collected), its status
// reaching the call's progress, and a tool without task support is still
// called plainly.
func TestTaskRequiredToolRuns(t *testing.T) {
	for _, era := range taskEras {
		t.Run(era, func(t *testing.T) {
			p := newTaskPeer(t)
			m, _ := taskManager(t, p, era, "")
			ctx := testCtx(t, 30*time.Second)
			tools, err := m.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var progress []string
			var mu sync.Mutex
			pctx := tool.WithProgress(ctx, func(s string) { mu.Lock(); progress = append(progress, s); mu.Unlock() })
			start := time.Now()
			res := call(t, pctx, toolByName(t, tools, "peer__slow"), `{"text":"x"}`)
			if res.IsError || !strings.Contains(res.Content, `slow done: {"text":"x"}`) {
				t.Fatalf("result = %+v", res)
			}
			if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
				t.Errorf("the task took %v", d)
			}
			if !p.saw("tasks/get") {
				t.Error("rein never polled tasks/get")
			}
			if era < ProtocolModern && !p.saw("tasks/result") {
				t.Error("rein did not collect the result with tasks/result")
			}
			if era >= ProtocolModern && p.saw("tasks/result") {
				t.Error("rein sent tasks/result, which the 2026-07-28 extension does not have")
			}
			mu.Lock()
			if len(progress) == 0 || !strings.HasPrefix(progress[0], "task working") {
				t.Errorf("progress = %q, want the task's status", progress)
			}
			mu.Unlock()
			plain := call(t, ctx, toolByName(t, tools, "peer__plain"), `{}`)
			if plain.IsError || plain.Content != "plain done" {
				t.Errorf("plain result = %+v", plain)
			}
		})
	}
}

// TestTaskFailure: a task whose tool fails makes the call fail with the
// server's error, in both eras.
func TestTaskFailure(t *testing.T) {
	for _, era := range taskEras {
		t.Run(era, func(t *testing.T) {
			p := newTaskPeer(t)
			m, _ := taskManager(t, p, era, "")
			ctx := testCtx(t, 30*time.Second)
			tools, err := m.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, ctx, toolByName(t, tools, "peer__broken"), `{}`)
			if !res.IsError || !strings.Contains(res.Content, "the build broke") {
				t.Fatalf("result = %+v, want the task's failure", res)
			}
		})
	}
}

// TestTaskCancelWhileCreating: a call cancelled while the server is
// creating its task still learns the task and cancels it.
func TestTaskCancelWhileCreating(t *testing.T) {
	p := newTaskPeer(t)
	m, _ := taskManager(t, p, Protocol251125, "")
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan *tool.Result, 1)
	go func() { done <- call(t, cctx, toolByName(t, tools, "peer__block"), `{}`) }()
	<-p.started
	cancel() // the handle may not have reached rein yet
	if res := <-done; !res.IsError {
		t.Errorf("result = %+v, want an interrupted call", res)
	}
	select {
	case <-p.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the task was left running")
	}
}

// TestTaskCancel: cancelling a call mid-task sends tasks/cancel, the
// tool's context on the server ends, and the call returns promptly as
// interrupted.
func TestTaskCancel(t *testing.T) {
	for _, era := range taskEras {
		t.Run(era, func(t *testing.T) {
			p := newTaskPeer(t)
			m, _ := taskManager(t, p, era, "")
			ctx := testCtx(t, 30*time.Second)
			tools, err := m.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			cctx, cancel := context.WithCancel(ctx)
			done := make(chan *tool.Result, 1)
			go func() { done <- call(t, cctx, toolByName(t, tools, "peer__block"), `{}`) }()
			select {
			case <-p.started:
			case <-time.After(10 * time.Second):
				t.Fatal("the task's tool did not start")
			}
			for deadline := time.Now().Add(10 * time.Second); !p.saw("tasks/get"); {
				if time.Now().After(deadline) {
					t.Fatal("rein never polled the task")
				}
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
			var res *tool.Result
			select {
			case res = <-done:
			case <-time.After(taskCancelWait + 3*time.Second):
				t.Fatal("the cancelled call did not return")
			}
			if !res.IsError || !strings.Contains(res.Content, "cancel") {
				t.Errorf("result = %+v, want an interrupted call", res)
			}
			select {
			case <-p.cancelled:
			case <-time.After(5 * time.Second):
				t.Fatalf("the tool's context was not cancelled on the server; methods %v", p.methods)
			}
			if !p.saw("tasks/cancel") {
				t.Error("rein did not send tasks/cancel")
			}
		})
	}
}

// TestTaskModes: tasks = "never" hides required-task tools (reported
// once, one line) and keeps the others; "always" calls an optional tool
// as a task in 2025-11-25 (where the client asks), "auto" does not.
func TestTaskModes(t *testing.T) {
	p := newTaskPeer(t)
	m, pr := taskManager(t, p, Protocol251125, TasksNever)
	ctx := testCtx(t, 30*time.Second)
	for range 2 {
		tools, err := m.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			if n := tl.Spec().Name; n == "peer__slow" || n == "peer__broken" || n == "peer__block" || n == "peer__ask" {
				t.Errorf("%s offered with tasks = never", n)
			}
		}
		toolByName(t, tools, "peer__opt")
		toolByName(t, tools, "peer__plain")
	}
	var notes []string
	for _, q := range pr.all() {
		notes = append(notes, q.Err.Error())
	}
	if len(notes) != 4 || !strings.Contains(strings.Join(notes, "\n"), `tool "slow" is not offered: it must be called as an MCP task, and the server's tasks setting is "never"`) {
		t.Errorf("notes = %q, want one per hidden tool", notes)
	}
	for _, n := range notes {
		if strings.Contains(n, "\n") {
			t.Errorf("note %q is not one line", n)
		}
	}

	for _, tc := range []struct {
		mode  TaskMode
		tasks bool
	}{{TasksAuto, false}, {TasksAlways, true}} {
		p := newTaskPeer(t)
		m, _ := taskManager(t, p, Protocol251125, tc.mode)
		tools, err := m.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res := call(t, ctx, toolByName(t, tools, "peer__opt"), `{}`)
		if res.IsError || res.Content != "opt done" {
			t.Fatalf("%s: result = %+v", tc.mode, res)
		}
		if got := p.count("tasks/result") > 0; got != tc.tasks {
			t.Errorf("tasks = %s: called as a task = %v, want %v", tc.mode, got, tc.tasks)
		}
	}
}

// TestTaskToolsHiddenWithoutTasks: an era without tasks cannot run a
// required-task tool, so it is not offered; every transport can.
func TestTaskToolsHiddenWithoutTasks(t *testing.T) {
	s := &server{cfg: ServerConfig{Tasks: TasksAuto}}
	if ok, why := s.canRunTasks(&session{era: Protocol250618}); ok || !strings.Contains(why, "has no tasks") {
		t.Errorf("2025-06-18: canRunTasks = %v, %q", ok, why)
	}
	// The legacy SSE transport carries tasks as the others do: its
	// answers are lifted on the event stream (taskhttp.go).
	if ok, _ := s.canRunTasks(&session{era: Protocol251125, transport: TransportSSE}); !ok {
		t.Error("2025-11-25 over the legacy SSE transport cannot run tasks")
	}
	if ok, _ := s.canRunTasks(&session{era: ProtocolModern, transport: TransportStdio}); !ok {
		t.Error("2026-07-28 over stdio cannot run tasks")
	}
}

// httpRecorder records the method of each JSON-RPC request the peer is
// sent, then serves it.
func httpRecorder(h http.Handler, p *taskPeer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			data, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(data))
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(data, &msg) == nil && msg.Method != "" {
				p.mu.Lock()
				p.methods = append(p.methods, msg.Method)
				p.mu.Unlock()
			}
		}
		h.ServeHTTP(w, r)
	})
}

// TestTaskEverythingResearch: the TypeScript SDK's everything server
// (2025-11-25 experimental tasks) lists simulate-research-query as
// requiring a task; over every transport (stdio, Streamable HTTP and the
// legacy HTTP+SSE, whose answers arrive on the event stream rather than
// the POST's response) rein runs it through its four one-second stages,
// its status messages reaching the call's progress, and collects the
// report with tasks/result.
func TestTaskEverythingResearch(t *testing.T) {
	for _, tc := range []struct {
		transport string
		want      Transport
	}{{"stdio", TransportStdio}, {"streamableHttp", TransportStreamable}, {"sse", TransportSSE}} {
		t.Run(tc.transport, func(t *testing.T) {
			sc := ServerConfig{Name: "every", Command: nodeBin(t), Args: []string{everythingJS(t), "stdio"}}
			if tc.want != TransportStdio {
				port := freePort(t)
				startNode(t, port, nil, everythingJS(t), tc.transport)
				path := "/mcp"
				if tc.want == TransportSSE {
					path = "/sse"
				}
				sc = ServerConfig{Name: "every", URL: fmt.Sprintf("http://127.0.0.1:%d%s", port, path), Transport: tc.want}
			}
			m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
			ctx := testCtx(t, 60*time.Second)
			tools := mustTools(t, ctx, m)
			research := toolByName(t, tools, "every__simulate-research-query").(*mcpTool)
			if research.task != taskRequired {
				t.Fatalf("over %s the tool's taskSupport is %q, want %q", tc.transport, research.task, taskRequired)
			}
			var progress []string
			var mu sync.Mutex
			pctx := tool.WithProgress(ctx, func(s string) { mu.Lock(); progress = append(progress, s); mu.Unlock() })
			res := call(t, pctx, research, `{"topic":"tide pools"}`)
			if res.IsError || !strings.Contains(res.Content, "tide pools") {
				t.Fatalf("result = %+v", res)
			}
			mu.Lock()
			defer mu.Unlock()
			// The client polls, so under load a one-second stage can be
			// missed; two distinct stages show the status flows.
			stages := map[string]bool{}
			for _, p := range progress {
				if strings.HasPrefix(p, "task working: ") {
					stages[p] = true
				}
			}
			if len(stages) < 2 {
				t.Errorf("progress = %q, want the task's stages", progress)
			}
		})
	}
}

// answerBlue answers every elicitation with color blue.
type answerBlue struct{ Decline }

func (answerBlue) Elicit(_ context.Context, e *Elicitation) (*ElicitationResponse, error) {
	if e.Message != "Which color?" {
		return nil, fmt.Errorf("unexpected question %q", e.Message)
	}
	return &ElicitationResponse{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
}

// TestTaskInput: a task that needs input parks as input_required; rein
// answers through the Interaction (2026-07-28: tasks/update; 2025-11-25:
// the server asks over the session while rein waits in tasks/result) and
// the task completes with the answer. Without an Interaction a
// 2026-07-28 question is declined, as any headless elicitation, and a
// 2025-11-25 server, told of no elicitation support, fails the task.
func TestTaskInput(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range taskEras {
		for _, over := range []string{"http", "stdio"} {
			t.Run(era+"/"+over, func(t *testing.T) {
				p := newTaskPeer(t)
				sc := ServerConfig{Name: "peer", URL: p.url, Transport: TransportStreamable, ProtocolVersion: era}
				if over == "stdio" {
					sc = ServerConfig{Name: "peer", Command: exe, Args: []string{"-test.run=^$"}, Env: Secrets{"REIN_MCP_FIXTURE": "tasks"}, ProtocolVersion: era}
				}
				m, _ := newManager(t, Config{Servers: []ServerConfig{sc}, Interaction: answerBlue{}})
				ctx := testCtx(t, 30*time.Second)
				tools, err := m.Tools(ctx)
				if err != nil {
					t.Fatal(err)
				}
				res := call(t, ctx, toolByName(t, tools, "peer__ask"), `{}`)
				if res.IsError || res.Content != "color: accept blue" {
					t.Fatalf("result = %+v", res)
				}
				switch {
				case over == "stdio":
				case era >= ProtocolModern && !p.saw("tasks/update"):
					t.Error("rein did not answer with tasks/update")
				case era < ProtocolModern && !p.saw("tasks/result"):
					t.Error("rein did not collect the task with tasks/result")
				}

				headless, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
				tools, err = headless.Tools(ctx)
				if err != nil {
					t.Fatal(err)
				}
				res = call(t, ctx, toolByName(t, tools, "peer__ask"), `{}`)
				switch {
				case era >= ProtocolModern && (res.IsError || res.Content != "color: decline <nil>"):
					t.Fatalf("headless result = %+v, want the question declined", res)
				case era < ProtocolModern && (!res.IsError || !strings.Contains(res.Content, "does not support elicitation")):
					// Without an Interaction rein declares no elicitation, so
					// the server cannot ask and fails the task.
					t.Fatalf("headless result = %+v, want the task failed for want of elicitation", res)
				}
			})
		}
	}
}
