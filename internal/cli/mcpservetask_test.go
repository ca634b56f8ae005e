package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// modernPost sends one 2026-07-28 request to url, declaring the tasks
// extension, and returns its result or error.
func modernPost(t *testing.T, url, method, name string, params map[string]any) (json.RawMessage, *struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}) {
	t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				raw = []byte(d)
			}
		}
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		t.Fatalf("%s: HTTP %d, undecodable answer %q", method, resp.StatusCode, raw)
	}
	return msg.Result, msg.Error
}

type servedTask struct {
	ResultType string `json:"resultType"`
	TaskID     string `json:"taskId"`
	Status     string `json:"status"`
	Result     *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

func (s *servedTask) decode(t *testing.T, raw json.RawMessage) *servedTask {
	t.Helper()
	if err := json.Unmarshal(raw, s); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return s
}

// TestMCPServeRunCommandTask starts run_command as a 2026-07-28 task
// through the real `rein mcp serve --http`: a quick command is collected
// from tasks/get once completed, and a long one is cancelled with
// tasks/cancel, which kills its whole process group (the background
// sleep it started dies too).
func TestMCPServeRunCommandTask(t *testing.T) {
	stderrR, stderrW := io.Pipe()
	s := newServeApp(t, strings.NewReader(""), io.Discard, stderrW)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code, msg := s.exec(ctx, "--http", "127.0.0.1:0", "--tools", "run_command", "--approve", "auto")
		if msg != "" {
			t.Errorf("rein mcp serve: %s", msg)
		}
		stderrW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(stderrR)
	var url string
	for url == "" && lines.Scan() {
		if m := serveURLLine.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatal("rein mcp serve did not announce its URL")
	}
	go io.Copy(io.Discard, stderrR)

	list, rpcErr := modernPost(t, url, "tools/list", "", map[string]any{})
	if rpcErr != nil || !strings.Contains(string(list), `"execution":{"taskSupport":"optional"}`) {
		t.Fatalf("tools/list: %s %v; want run_command with taskSupport optional", list, rpcErr)
	}

	poll := func(id string, want string) *servedTask {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			raw, rpcErr := modernPost(t, url, "tasks/get", id, map[string]any{"taskId": id})
			if rpcErr != nil {
				t.Fatalf("tasks/get: %+v", rpcErr)
			}
			got := new(servedTask).decode(t, raw)
			if got.Status == want || time.Now().After(deadline) {
				return got
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	raw, rpcErr := modernPost(t, url, "tools/call", "run_command", map[string]any{"name": "run_command", "arguments": map[string]any{"command": "cat notes.txt"}})
	quick := new(servedTask).decode(t, raw)
	if rpcErr != nil || quick.ResultType != "task" || quick.TaskID == "" {
		t.Fatalf("tools/call run_command: %s %v; want a CreateTaskResult", raw, rpcErr)
	}
	got := poll(quick.TaskID, "completed")
	if got.Status != "completed" || got.Result == nil || len(got.Result.Content) == 0 || !strings.Contains(got.Result.Content[0].Text, "hello notes") {
		t.Fatalf("the quick task: %+v; want completed with the command's output", got)
	}

	// The command may run in a sandbox with its own PID namespace, so
	// the proof is what a surviving child would do: write a file.
	raw, rpcErr = modernPost(t, url, "tools/call", "run_command", map[string]any{"name": "run_command",
		"arguments": map[string]any{"command": "(sleep 2; echo survived > survived.txt) & echo started > started.txt; wait"}})
	long := new(servedTask).decode(t, raw)
	if rpcErr != nil || long.TaskID == "" {
		t.Fatalf("tools/call the long command: %s %v", raw, rpcErr)
	}
	waitFile(t, filepath.Join(s.workspace, "started.txt"))
	if _, rpcErr := modernPost(t, url, "tasks/cancel", long.TaskID, map[string]any{"taskId": long.TaskID}); rpcErr != nil {
		t.Fatalf("tasks/cancel: %+v", rpcErr)
	}
	time.Sleep(3 * time.Second)
	if _, err := os.Stat(filepath.Join(s.workspace, "survived.txt")); err == nil {
		t.Error("the command's background child survived tasks/cancel")
	}
	if got := poll(long.TaskID, "cancelled"); got.Status != "cancelled" {
		t.Errorf("after tasks/cancel: status %q, want cancelled", got.Status)
	}
	s.interrupts <- os.Interrupt
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("rein mcp serve did not stop on an interrupt")
	}
}

// waitFile waits for a command to create path.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}
