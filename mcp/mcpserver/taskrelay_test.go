package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// rawMsg is any JSON-RPC message, as a test client reads it.
type rawMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta    map[string]json.RawMessage `json:"_meta"`
		Message string                     `json:"message"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rawError       `json:"error"`
}

// sseReader reads the JSON-RPC messages of a response body, SSE or JSON.
type sseReader struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func newSSEReader(resp *http.Response) *sseReader {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return &sseReader{resp: resp, sc: sc}
}

// next returns the next message, failing the test at the end of the body.
func (r *sseReader) next(t *testing.T) rawMsg {
	t.Helper()
	var data strings.Builder
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && data.Len() > 0:
			var m rawMsg
			if err := json.Unmarshal([]byte(data.String()), &m); err != nil {
				t.Fatalf("message %q: %v", data.String(), err)
			}
			return m
		case strings.HasPrefix(line, "{"): // a plain JSON response
			var m rawMsg
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("message %q: %v", line, err)
			}
			return m
		}
	}
	t.Fatalf("the response ended without another message (%v)", r.sc.Err())
	return rawMsg{}
}

// legacyHTTP is a hand-driven 2025-11-25 session over Streamable HTTP.
type legacyHTTP struct {
	url, session string
	id           int
}

func newLegacyHTTP(t *testing.T, url, caps string) *legacyHTTP {
	t.Helper()
	resp := post(t, url, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`, nil)
	if m := newSSEReader(resp).next(t); m.Error != nil {
		t.Fatalf("initialize: %v", m.Error)
	}
	c := &legacyHTTP{url: url, session: resp.Header.Get("Mcp-Session-Id")}
	if c.session == "" {
		t.Fatal("initialize answered no Mcp-Session-Id")
	}
	if resp := c.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s", resp.Status)
	}
	return c
}

func (c *legacyHTTP) post(t *testing.T, body string) *http.Response {
	t.Helper()
	return post(t, c.url, body, map[string]string{"Mcp-Session-Id": c.session, "Mcp-Protocol-Version": legacy})
}

// call sends a request and returns its response's reader.
func (c *legacyHTTP) call(t *testing.T, method string, params any) *sseReader {
	t.Helper()
	c.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	return newSSEReader(c.post(t, string(b)))
}

// startBuild starts the build tool as a task and waits until it asks for
// input.
func (c *legacyHTTP) startBuild(t *testing.T) string {
	t.Helper()
	var created struct {
		Task wireTask `json:"task"`
	}
	m := c.call(t, "tools/call", map[string]any{"name": "build", "arguments": map[string]any{"text": "all"}, "task": map[string]any{"ttl": 60_000}}).next(t)
	if m.Error != nil || json.Unmarshal(m.Result, &created) != nil || created.Task.TaskID == "" {
		t.Fatalf("tools/call with a task parameter = %s %v, want a task", m.Result, m.Error)
	}
	c.awaitStatus(t, created.Task.TaskID, statusInputRequired)
	return created.Task.TaskID
}

// awaitStatus polls tasks/get until the task has status (within 10 s),
// failing on any other status than working.
func (c *legacyHTTP) awaitStatus(t *testing.T, id, status string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got wireTask
		m := c.call(t, "tasks/get", map[string]any{"taskId": id}).next(t)
		if m.Error != nil || json.Unmarshal(m.Result, &got) != nil {
			t.Fatalf("tasks/get = %s %v", m.Result, m.Error)
		}
		if got.Status == status {
			return
		}
		if got.Status != statusWorking && got.Status != statusInputRequired || time.Now().After(deadline) {
			t.Fatalf("task status %q; want it to reach %s", got.Status, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func approvalServer(t *testing.T) (*Server, *blocker) {
	b := newBlocker()
	set, err := tool.NewSet(b.tool())
	if err != nil {
		t.Fatal(err)
	}
	askAll := deciderFunc(func(context.Context, policy.Call) policy.Decision {
		return policy.Decision{Action: policy.Ask, Reason: "builds need approval", Rule: "test:ask"}
	})
	s := newTestServer(t, Config{Tools: set, Policy: askAll, ElicitApprovals: true,
		TaskTools: map[string]TaskSupport{"build": TaskOptional}})
	t.Cleanup(s.Close)
	return s, b
}

// TestTaskInputOverHTTP: a 2025-11-25 task created over Streamable HTTP
// whose tool asks for input (here an approval) shows input_required, and
// the elicitation/create travels on the stream of the client's pending
// tasks/result, tagged with the related-task _meta; once answered (by a
// separate POST) the task runs on and that same stream carries its
// result. Before, the request was written to the tools/call's closed
// stream and failed ("rejected by transport").
func TestTaskInputOverHTTP(t *testing.T) {
	s, b := approvalServer(t)
	c := newLegacyHTTP(t, httpServer(t, s).URL, `{"elicitation":{}}`)
	id := c.startBuild(t)

	result := c.call(t, "tasks/result", map[string]any{"taskId": id})
	ask := result.next(t)
	if ask.Method != "elicitation/create" || !strings.Contains(ask.Params.Message, "builds need approval") {
		t.Fatalf("the tasks/result stream carried %+v; want the approval's elicitation/create", ask)
	}
	if rel := string(ask.Params.Meta[metaRelatedTask]); rel != fmt.Sprintf(`{"taskId":%q}`, id) {
		t.Errorf("elicitation/create related-task _meta = %s; want the task %s", rel, id)
	}
	if resp := c.post(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept"}}`, ask.ID)); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("answering the elicitation: %s", resp.Status)
	}
	b.waitStarted(t)
	close(b.release)
	done := result.next(t)
	if done.Error != nil || !strings.Contains(string(done.Result), "built all") || !strings.Contains(string(done.Result), id) {
		t.Fatalf("tasks/result = %s %v; want the approved build's result, tied to the task", done.Result, done.Error)
	}
}

// TestTaskInputOverHTTPCancelled: a task waiting for a tasks/result to
// carry its question can still be cancelled; the tool never runs.
func TestTaskInputOverHTTPCancelled(t *testing.T) {
	s, b := approvalServer(t)
	c := newLegacyHTTP(t, httpServer(t, s).URL, `{"elicitation":{}}`)
	id := c.startBuild(t)
	if m := c.call(t, "tasks/cancel", map[string]any{"taskId": id}).next(t); m.Error != nil {
		t.Fatalf("tasks/cancel: %v", m.Error)
	}
	c.awaitStatus(t, id, statusCancelled)
	select {
	case <-b.started:
		t.Fatal("the unapproved build ran")
	case <-time.After(100 * time.Millisecond):
	}
}
