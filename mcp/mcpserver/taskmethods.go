package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tasksPageSize is how many tasks one tasks/list page holds.
const tasksPageSize = 100

// addTaskMethods registers tasks/get, tasks/result, tasks/list,
// tasks/cancel and tasks/update. Each serves the era of its request:
// tasks/result and tasks/list exist only before 2026-07-28, tasks/update
// only from it, where every task method also requires the client to have
// declared the tasks extension.
func (s *Server) addTaskMethods() error {
	for _, err := range []error{
		sdk.AddReceivingCustomMethod(s.sdk, "tasks/get", s.tasksGet),
		sdk.AddReceivingCustomMethod(s.sdk, "tasks/result", s.tasksResult),
		sdk.AddReceivingCustomMethod(s.sdk, "tasks/list", s.tasksList),
		sdk.AddReceivingCustomMethod(s.sdk, "tasks/cancel", s.tasksCancel),
		sdk.AddReceivingCustomMethod(s.sdk, "tasks/update", s.tasksUpdate),
	} {
		if err != nil {
			return fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	return nil
}

// taskRequestOf wraps a custom method's params in a ServerRequest, whose
// accessors read the era and capabilities from _meta or the session.
func taskRequestOf[P any, PP interface {
	*P
	sdk.Params
}](ss *sdk.ServerSession, p PP) (*sdk.ServerRequest[PP], PP) {
	if p == nil {
		p = PP(new(P))
	}
	return &sdk.ServerRequest[PP]{Session: ss, Params: p}, p
}

// lookupTask finds a task, checking first that a 2026-07-28 client
// negotiated the extension.
func (s *Server) lookupTask(req *sdk.ServerRequest[*taskIDParams], method string) (*task, bool, error) {
	modern := isModern(req)
	if modern && !negotiatedTasks(req) {
		return nil, modern, missingTasksCapability(method)
	}
	t, ok := s.tasks.get(req.Params.TaskID)
	if !ok {
		return nil, modern, unknownTask(req.Params.TaskID)
	}
	return t, modern, nil
}

func unknownTask(id string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown task %q (it never existed, or it expired)", id)}
}

func removedMethod(method, instead string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
		Message: fmt.Sprintf("%s does not exist in protocol revision %s and later; %s", method, modernVersion, instead)}
}

func (s *Server) tasksGet(_ context.Context, ss *sdk.ServerSession, p *taskIDParams) (sdk.Result, error) {
	req, _ := taskRequestOf(ss, p)
	t, modern, err := s.lookupTask(req, "tasks/get")
	if err != nil {
		return nil, err
	}
	if modern {
		return s.tasks.detailed(t), nil
	}
	return &legacyTaskResult{legacyTask: s.tasks.legacyView(t)}, nil
}

// tasksResult waits for a 2025-11-25 task to end and answers with its
// tool result, as the era defines.
func (s *Server) tasksResult(ctx context.Context, ss *sdk.ServerSession, p *taskIDParams) (sdk.Result, error) {
	req, _ := taskRequestOf(ss, p)
	if isModern(req) {
		return nil, removedMethod("tasks/result", "tasks/get inlines the result of a finished task")
	}
	t, _, err := s.lookupTask(req, "tasks/result")
	if err != nil {
		return nil, err
	}
	// While it waits, the task's requests to the client may travel on
	// this request's stream (taskrelay.go).
	forget := s.tasks.addRelay(t, ctx)
	defer forget()
	select {
	case <-t.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c := s.tasks.snapshot(t)
	switch {
	case c.err != nil:
		return nil, c.err
	case c.result == nil:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("task %s ended %s without a result: %s", c.id, c.status, c.message)}
	}
	res := *c.result
	meta := map[string]any{}
	for k, v := range res.GetMeta() {
		meta[k] = v
	}
	meta[metaRelatedTask] = map[string]any{"taskId": c.id}
	res.SetMeta(meta)
	return &res, nil
}

// tasksList lists the tasks the calling 2025-11-25 session created.
func (s *Server) tasksList(_ context.Context, ss *sdk.ServerSession, p *listTasksParams) (sdk.Result, error) {
	req, p := taskRequestOf(ss, p)
	if isModern(req) {
		return nil, removedMethod("tasks/list", "keep the IDs of the tasks you create")
	}
	start := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(p.Cursor)
		if err != nil || n < 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor %q", p.Cursor)}
		}
		start = n
	}
	owned := s.tasks.owned(sessionKey(ss))
	out := &legacyListResult{Tasks: []legacyTask{}}
	for i := start; i < len(owned) && i < start+tasksPageSize; i++ {
		out.Tasks = append(out.Tasks, s.tasks.legacyView(owned[i]))
	}
	if start+tasksPageSize < len(owned) {
		out.NextCursor = strconv.Itoa(start + tasksPageSize)
	}
	return out, nil
}

// tasksCancel cancels a task. 2026-07-28 acknowledges with an empty
// result, also for a task already finished; 2025-11-25 answers with the
// task and refuses one already finished.
func (s *Server) tasksCancel(_ context.Context, ss *sdk.ServerSession, p *taskIDParams) (sdk.Result, error) {
	req, _ := taskRequestOf(ss, p)
	t, modern, err := s.lookupTask(req, "tasks/cancel")
	if err != nil {
		return nil, err
	}
	cancelled := s.tasks.cancelTask(t)
	if modern {
		return &ackResult{ResultType: resultTypeComplete}, nil
	}
	if !cancelled {
		c := s.tasks.snapshot(t)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %s already ended (%s); only a running task can be cancelled", c.id, c.status)}
	}
	return &legacyTaskResult{legacyTask: s.tasks.legacyView(t)}, nil
}

// tasksUpdate delivers input responses to a 2026-07-28 task waiting for
// them. Only responses to pending requests are decoded; the others are
// ignored, as the protocol asks.
func (s *Server) tasksUpdate(_ context.Context, ss *sdk.ServerSession, p *taskUpdateParams) (sdk.Result, error) {
	req, p := taskRequestOf(ss, p)
	if !isModern(req) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("tasks/update exists from protocol revision %s on", modernVersion)}
	}
	if !negotiatedTasks(req) {
		return nil, missingTasksCapability("tasks/update")
	}
	t, ok := s.tasks.get(p.TaskID)
	if !ok {
		return nil, unknownTask(p.TaskID)
	}
	pending := s.tasks.snapshot(t).pending
	responses := sdk.InputResponseMap{}
	for k, raw := range p.InputResponses {
		if _, ok := pending[k]; !ok {
			continue
		}
		one, err := decodeInputResponse(k, raw)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		responses[k] = one
	}
	s.tasks.answer(t, responses)
	return &ackResult{ResultType: resultTypeComplete}, nil
}

// decodeInputResponse decodes one input response with the SDK's decoder.
func decodeInputResponse(key string, raw json.RawMessage) (sdk.InputResponse, error) {
	wrapped, err := json.Marshal(map[string]json.RawMessage{key: raw})
	if err != nil {
		return nil, err
	}
	var m sdk.InputResponseMap
	if err := json.Unmarshal(wrapped, &m); err != nil {
		return nil, fmt.Errorf("inputResponses: %v", err)
	}
	if m[key] == nil {
		return nil, fmt.Errorf("inputResponses[%q] is not an input response", key)
	}
	return m[key], nil
}
