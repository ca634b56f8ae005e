package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// How tools/call becomes a task. The SDK knows nothing of tasks, so a
// receiving middleware (outermost, around the SDK's own multi-round-trip
// middleware) intercepts tools/call for task-capable tools: it answers
// with a task handle, and runs the SDK's ordinary tools/call path — the
// registered handler with its policy decision, argument checks and result
// cap — in the task, under a context that outlives the request.

// taskMiddleware serves tools/call as tasks and adds what the SDK's types
// cannot say to tools/list (execution.taskSupport) and initialize (the
// 2025-11-25 tasks capability).
func (s *Server) taskMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "tools/call":
			if cr, ok := req.(*sdk.CallToolRequest); ok {
				return s.callTool(ctx, next, cr)
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if lr, ok := res.(*sdk.ListToolsResult); ok && err == nil {
				return &toolsWithExecution{ListToolsResult: lr, support: s.taskSupportSnapshot()}, nil
			}
			return res, err
		case "initialize":
			res, err := next(ctx, method, req)
			if ir, ok := res.(*sdk.InitializeResult); ok && err == nil && s.hasTaskTools() {
				return &initializeWithTasks{InitializeResult: ir}, nil
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// callTool decides whether a tools/call runs as a task.
func (s *Server) callTool(ctx context.Context, next sdk.MethodHandler, req *sdk.CallToolRequest) (sdk.Result, error) {
	support := s.taskSupportOf(req.Params.Name)
	if support == TaskForbidden {
		return next(ctx, "tools/call", req)
	}
	if isModern(req) {
		if !negotiatedTasks(req) {
			if support == TaskRequired {
				return nil, missingTasksCapability(req.Params.Name)
			}
			return next(ctx, "tools/call", req)
		}
		return s.startTask(ctx, next, req, false, nil)
	}
	tr, asked, err := legacyTaskParam(req)
	if err != nil {
		return nil, err
	}
	if !asked {
		if support == TaskRequired {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("tool %q must be called as a task: send tools/call with the task parameter", req.Params.Name)}
		}
		return next(ctx, "tools/call", req)
	}
	return s.startTask(ctx, next, req, true, tr.TTL)
}

// startTask runs the tool's gathering phase, if it has one, and then
// starts the task. A gathering phase that still needs input answers the
// request itself (an input_required result in the 2026-07-28 era), so a
// tool can ask for input before it commits to running in the background.
func (s *Server) startTask(ctx context.Context, next sdk.MethodHandler, req *sdk.CallToolRequest, legacy bool, ttlMs *int64) (sdk.Result, error) {
	if s.hasGather(req.Params.Name) {
		g := &gathering{}
		res, err := next(context.WithValue(ctx, gatherKey{}, g), "tools/call", req)
		if err != nil || !g.ready {
			return res, err
		}
	}
	run := func(ctx context.Context, answers sdk.InputResponseMap, state string) (*sdk.CallToolResult, error) {
		r := req
		if answers != nil {
			p := *req.Params
			p.InputResponses, p.RequestState = answers, state
			r = &sdk.CallToolRequest{Session: req.Session, Params: &p, Extra: req.Extra}
		}
		res, err := next(ctx, "tools/call", r)
		if err != nil {
			return nil, err
		}
		cr, ok := res.(*sdk.CallToolResult)
		if !ok {
			return nil, fmt.Errorf("tools/call answered %T, not a tool result", res)
		}
		return cr, nil
	}
	owner := ""
	if legacy {
		owner = sessionKey(req.Session)
	}
	// Over HTTP the tools/call's stream closes with the task handle, so a
	// 2025-11-25 task's requests to the client ride a tasks/result's.
	viaResult := legacy && req.Extra != nil && req.Extra.Header != nil
	t, err := s.tasks.start(ctx, owner, legacy, viaResult, s.tasks.ttlFor(ttlMs), run)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	if legacy {
		return &legacyCreateResult{Task: s.tasks.legacyView(t)}, nil
	}
	return &modernCreateResult{ResultType: resultTypeTask, modernTask: s.tasks.modernView(s.tasks.snapshot(t))}, nil
}

// gathering tells the task middleware that a tool's Gather found all the
// input it needs; it travels in the context of the gathering round.
type gathering struct{ ready bool }

type gatherKey struct{}

// gatherRound runs a native tool's Gather when ctx marks a gathering
// round, reporting whether it did.
func gatherRound(ctx context.Context, gather sdk.ToolHandler, req *sdk.CallToolRequest) (res *sdk.CallToolResult, gathered bool, err error) {
	g, ok := ctx.Value(gatherKey{}).(*gathering)
	if !ok || gather == nil {
		return nil, false, nil
	}
	defer func() {
		if v := recover(); v != nil {
			res, gathered, err = errorResult("tool %q panicked while gathering input: %v", req.Params.Name, v), true, nil
		}
	}()
	res, err = gather(ctx, req)
	if err == nil && res == nil {
		g.ready = true
		res = &sdk.CallToolResult{Content: []sdk.Content{}}
	}
	return res, true, err
}

// isModern reports whether a request follows the 2026-07-28 revision.
func isModern[P sdk.Params](req *sdk.ServerRequest[P]) bool {
	return req.ProtocolVersion() >= modernVersion
}

// negotiatedTasks reports whether the client declared the tasks
// extension, for the session or in this request's _meta.
func negotiatedTasks[P sdk.Params](req *sdk.ServerRequest[P]) bool {
	caps := req.ClientCapabilities()
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// missingTasksCapability is SEP-2575's error for a client that did not
// declare the tasks extension a request needs.
func missingTasksCapability(what string) error {
	data, _ := json.Marshal(sdk.MissingRequiredClientCapabilityData{
		RequiredCapabilities: &sdk.ClientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}},
	})
	return &jsonrpc.Error{
		Code:    sdk.CodeMissingRequiredClientCapabilities,
		Message: fmt.Sprintf("%s needs the %s extension, which the client did not declare", what, TasksExtension),
		Data:    data,
	}
}

// legacyTaskParam reads the task parameter of a 2025-11-25 tools/call,
// which the transports moved into _meta. A parameter that is not a task
// request (not an object, a ttl that is not an integer) is invalid params:
// the call is refused rather than run with the defaults it did not ask for.
func legacyTaskParam(req *sdk.CallToolRequest) (taskRequest, bool, error) {
	var tr taskRequest
	raw, ok := req.Params.GetMeta()[metaTaskRequest]
	if !ok {
		return tr, false, nil
	}
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &tr)
	}
	if err != nil {
		return tr, true, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: "invalid task parameter: want an object with an optional integer ttl (milliseconds)"}
	}
	return tr, true, nil
}

// sessionKey names a legacy session, for tasks/list.
func sessionKey(ss *sdk.ServerSession) string {
	if ss == nil {
		return "-"
	}
	if id := ss.ID(); id != "" {
		return id
	}
	return fmt.Sprintf("session-%p", ss)
}

// toolsWithExecution lists tools with their execution.taskSupport.
type toolsWithExecution struct {
	*sdk.ListToolsResult
	support map[string]TaskSupport
}

func (t *toolsWithExecution) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(t.ListToolsResult)
	if err != nil || len(t.support) == 0 {
		return b, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(obj["tools"], &tools); err != nil {
		return nil, err
	}
	for _, tl := range tools {
		var name string
		json.Unmarshal(tl["name"], &name)
		if ts := t.support[name]; ts != TaskForbidden {
			tl["execution"], _ = json.Marshal(map[string]string{"taskSupport": string(ts)})
		}
	}
	if obj["tools"], err = json.Marshal(tools); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// initializeWithTasks advertises the 2025-11-25 tasks capability: tasks
// for tools/call, with tasks/list and tasks/cancel.
type initializeWithTasks struct{ *sdk.InitializeResult }

func (r *initializeWithTasks) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.InitializeResult)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(obj["capabilities"], &caps); err != nil || caps == nil {
		caps = map[string]json.RawMessage{}
	}
	caps["tasks"] = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
	if obj["capabilities"], err = json.Marshal(caps); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// checkTaskTools refuses TaskTools naming no served tool or holding a
// value that is not a TaskSupport.
func checkTaskTools(cfg Config) error {
	for name, ts := range cfg.TaskTools {
		if err := ts.valid(); err != nil {
			return fmt.Errorf("%w: TaskTools[%q]: %v", ErrConfig, name, err)
		}
		if _, ok := cfg.Tools.Get(name); !ok {
			return fmt.Errorf("%w: TaskTools names %q, which is not among the served tools", ErrConfig, name)
		}
	}
	if cfg.Features != nil {
		for _, nt := range cfg.Features.Tools {
			if err := nt.TaskSupport.valid(); err != nil && nt.Tool != nil {
				return fmt.Errorf("%w: native tool %q: %v", ErrConfig, nt.Tool.Name, err)
			}
		}
	}
	return nil
}

func (ts TaskSupport) valid() error {
	switch ts {
	case TaskForbidden, TaskOptional, TaskRequired:
		return nil
	}
	return fmt.Errorf("task support %q is none of \"\", %q, %q", string(ts), TaskOptional, TaskRequired)
}

// declaresTaskTools reports whether cfg serves a task-capable tool.
func declaresTaskTools(cfg Config) bool {
	for _, ts := range cfg.TaskTools {
		if ts != TaskForbidden {
			return true
		}
	}
	if cfg.Features != nil {
		for _, nt := range cfg.Features.Tools {
			if nt.TaskSupport != TaskForbidden {
				return true
			}
		}
	}
	return false
}

// setTaskSupport records how a tool may run, and whether it gathers input
// before its task starts.
func (s *Server) setTaskSupport(name string, ts TaskSupport, gathers bool) {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	if ts == TaskForbidden {
		delete(s.support, name)
	} else {
		s.support[name] = ts
	}
	s.gather[name] = gathers && ts != TaskForbidden
}

func (s *Server) taskSupportOf(name string) TaskSupport {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	return s.support[name]
}

func (s *Server) hasGather(name string) bool {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	return s.gather[name]
}

func (s *Server) hasTaskTools() bool {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	return len(s.support) > 0
}

func (s *Server) taskSupportSnapshot() map[string]TaskSupport {
	s.taskMu.Lock()
	defer s.taskMu.Unlock()
	out := make(map[string]TaskSupport, len(s.support))
	for k, v := range s.support {
		out[k] = v
	}
	return out
}
