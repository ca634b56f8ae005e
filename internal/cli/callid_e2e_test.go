package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// TestCrashThenContinueWithReusedCallIDs is issue 28's call-identity test
// through the real binary: a llama.cpp-style server names every call
// call_0, turn after turn. rein is killed with SIGKILL while the second
// call_0 runs; `rein run --continue` must not take the first turn's
// answered call_0 for the running one. It resumes (exit 0, not 2 "not
// waiting for the model"), tells the model the second call was
// interrupted, and runs nothing twice.
func TestCrashThenContinueWithReusedCallIDs(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.workspace, "marker")
	quick := `{"command":"echo one >> marker"}`
	slow := `{"command":"echo two-start >> marker; sleep 60; echo two-end >> marker"}`
	srv := modeltest.NewServer(t,
		sse(toolBody("call_0", "run_command", quick)),
		sse(toolBody("call_0", "run_command", slow)),
		sse(textBody("Both commands were handled.")),
	)
	stateDir := filepath.Join(e.home, "state")
	args := []string{"run", "--preset", "full", "--state-dir", stateDir, "-e", srv.URL}

	p := e.start(t, append(args, "--output-format", "json", "append to the marker file")...)
	p.stdin.Close()
	waitFor(t, "the slow command to start", 30*time.Second, func() bool {
		b, _ := os.ReadFile(marker)
		return strings.Contains(string(b), "two-start")
	})
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t, 10*time.Second)
	killGroupsRunning(t, "two-start >> marker")

	q := e.start(t, append(args, "--continue", "--output-format", "json")...)
	q.stdin.Close()
	if code := q.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("--continue exited %d\nstdout: %s\nstderr: %s", code, q.stdout, q.stderr)
	}
	var out struct {
		Outcome string `json:"outcome"`
		Text    string `json:"text"`
	}
	if err := json.Unmarshal([]byte(q.stdout.String()), &out); err != nil {
		t.Fatalf("json output: %v\n%s", err, q.stdout)
	}
	if out.Outcome != "complete" || out.Text != "Both commands were handled." {
		t.Errorf("resumed run = %+v", out)
	}
	if !strings.Contains(q.stderr.String(), "run_command (call_0)") {
		t.Errorf("stderr does not name the interrupted call:\n%s", q.stderr)
	}
	if got, _ := os.ReadFile(marker); string(got) != "one\ntwo-start\n" {
		t.Errorf("marker = %q, want the quick command once and the slow one started once, never re-run", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	// Every call_0 of the history has exactly one result, in order: the
	// quick one's real result, then the slow one's interruption.
	calls, results := wireCallsAndResults(t, reqs[2].Body)
	if diff := cmp.Diff([]string{"call_0", "call_0"}, calls); diff != "" {
		t.Errorf("tool calls sent (-want +got):\n%s", diff)
	}
	if len(results) != 2 || !strings.Contains(results[0], "exit") || strings.Contains(results[0], "interrupted") ||
		!strings.Contains(results[1], "interrupted") {
		t.Errorf("tool results sent after the resume = %q; want the quick call's result, then the slow call reported interrupted", results)
	}
}

// wireCallsAndResults lists, in order, the tool-call ids of the assistant
// messages and the contents of the tool messages of an OpenAI chat
// request body. Each assistant message with calls must be followed by one
// tool message per call; the lists keep ids a server reused.
func wireCallsAndResults(t *testing.T, body []byte) (calls, results []string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			Content    any    `json:"content"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	owed := 0
	for i, m := range req.Messages {
		switch m.Role {
		case "assistant":
			if owed != 0 {
				t.Errorf("message %d: an assistant message while %d calls await results", i, owed)
			}
			for _, c := range m.ToolCalls {
				calls = append(calls, c.ID)
			}
			owed = len(m.ToolCalls)
		case "tool":
			owed--
			results = append(results, fmt.Sprint(m.Content))
		}
	}
	if owed != 0 {
		t.Errorf("the request ends with %d calls without a result", owed)
	}
	return calls, results
}
