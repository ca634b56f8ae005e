package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The go-sdk (v1.8.0) knows nothing of tasks: its Tool has no execution
// field, its CallToolParams no task parameter, and it decodes a task
// handle as an empty CallToolResult. rein therefore moves what tasks need
// through _meta, where the SDK keeps it. wireMethods below does the
// rewriting for every transport; it sees the bytes where rein owns them:
// stdioConn for stdio, httpTrip (the RoundTripper under both HTTP
// transports: every POST and every event stream, taskhttp.go) for
// Streamable HTTP and legacy HTTP+SSE alike:
//
//   - outbound, a tools/call whose _meta holds metaTaskRequest is sent
//     with that value as its task parameter (2025-11-25);
//   - inbound, a tools/list result's execution of each tool is copied to
//     the tool's _meta[metaExecution], and a tools/call result that is a
//     task handle (2025-11-25 {task}, 2026-07-28 resultType "task")
//     becomes an empty CallToolResult whose _meta[metaCreatedTask] holds
//     the handle.
//
// The SDK's own connections stay as they are (the HTTP transport relies
// on hooks of its connection that a wrapper would hide).
const (
	metaTaskRequest = "io.github.reinharness/task-request"
	metaExecution   = "io.github.reinharness/execution"
	metaCreatedTask = "io.github.reinharness/created-task"
)

// wireMethods remembers the method of each outstanding tools/list and
// tools/call request on one connection, so their responses can be
// recognised. Entries go when the response passes.
type wireMethods struct {
	mu sync.Mutex
	m  map[string]string
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// outbound lowers msg for the wire and remembers its method.
func (w *wireMethods) outbound(msg jsonrpc.Message) jsonrpc.Message {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() || (req.Method != "tools/call" && req.Method != "tools/list") {
		return msg
	}
	w.mu.Lock()
	if w.m == nil {
		w.m = map[string]string{}
	}
	w.m[idKey(req.ID)] = req.Method
	w.mu.Unlock()
	if req.Method == "tools/call" {
		if p, changed := lowerTaskParam(req.Params); changed {
			cp := *req
			cp.Params = p
			return &cp
		}
	}
	return msg
}

// inbound lifts a response to a remembered request.
func (w *wireMethods) inbound(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || !resp.ID.IsValid() {
		return msg
	}
	k := idKey(resp.ID)
	w.mu.Lock()
	method, ok := w.m[k]
	delete(w.m, k)
	w.mu.Unlock()
	if !ok || resp.Error != nil || len(resp.Result) == 0 {
		return msg
	}
	if r, changed := liftResult(method, resp.Result); changed {
		cp := *resp
		cp.Result = r
		return &cp
	}
	return msg
}

// lowerTaskParam moves params._meta[metaTaskRequest] to params.task.
func lowerTaskParam(params json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(params, []byte(metaTaskRequest)) {
		return params, false
	}
	var p map[string]json.RawMessage
	var meta map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p["_meta"], &meta) != nil {
		return params, false
	}
	task, ok := meta[metaTaskRequest]
	if !ok {
		return params, false
	}
	delete(meta, metaTaskRequest)
	p["task"] = task
	if len(meta) == 0 {
		delete(p, "_meta")
	} else if b, err := json.Marshal(meta); err == nil {
		p["_meta"] = b
	}
	out, err := json.Marshal(p)
	if err != nil {
		return params, false
	}
	return out, true
}

// liftResult rewrites a tools/list or tools/call result (see above).
// Anything it cannot parse passes unchanged, for the SDK to judge.
func liftResult(method string, result json.RawMessage) (json.RawMessage, bool) {
	switch method {
	case "tools/list":
		return liftExecution(result)
	case "tools/call":
		return liftCreatedTask(result)
	}
	return result, false
}

func liftExecution(result json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(result, []byte(`"execution"`)) {
		return result, false
	}
	var r map[string]json.RawMessage
	var tools []map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil || json.Unmarshal(r["tools"], &tools) != nil {
		return result, false
	}
	changed := false
	for _, t := range tools {
		ex, ok := t["execution"]
		if !ok || t == nil {
			continue
		}
		meta := map[string]json.RawMessage{}
		if raw, ok := t["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
			continue
		}
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta[metaExecution] = ex
		b, err := json.Marshal(meta)
		if err != nil {
			continue
		}
		t["_meta"] = b
		changed = true
	}
	if !changed {
		return result, false
	}
	b, err := json.Marshal(tools)
	if err != nil {
		return result, false
	}
	r["tools"] = b
	out, err := json.Marshal(r)
	if err != nil {
		return result, false
	}
	return out, true
}

func liftCreatedTask(result json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(result, []byte(`"task`)) {
		return result, false
	}
	var r struct {
		ResultType string          `json:"resultType"`
		Task       json.RawMessage `json:"task"`
		TaskID     string          `json:"taskId"`
	}
	if json.Unmarshal(result, &r) != nil {
		return result, false
	}
	legacy := len(r.Task) > 0 && r.Task[0] == '{'
	modern := r.ResultType == "task" && r.TaskID != ""
	if !legacy && !modern {
		return result, false
	}
	out, err := json.Marshal(map[string]any{
		"content": []any{},
		"_meta":   map[string]json.RawMessage{metaCreatedTask: result},
	})
	if err != nil {
		return result, false
	}
	return out, true
}
