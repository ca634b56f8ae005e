package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestSubagentCrashThenContinue is the resume guarantee for sub-agents
// through the real binary: the root delegates to a custom agent (a
// markdown file in .rein/agents) whose first command finishes and whose
// second is running when rein is killed with SIGKILL. `rein run
// --continue` runs nothing of the child again: the marker file shows each
// command once, and the model is told the task call was interrupted along
// with what the sub-agent had finished. The first run's stream-json
// carries the child's events with their agent_path, and `rein sessions
// show` prints the child's calls nested under the task call.
func TestSubagentCrashThenContinue(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.workspace, "marker")
	agents := filepath.Join(e.workspace, ".rein", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	def := "---\nname: runner\ndescription: runs shell commands\ntools: Bash\n---\nRun the commands you are given.\n"
	if err := os.WriteFile(filepath.Join(agents, "runner.md"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	quick := `{"command":"echo one >> marker"}`
	slow := `{"command":"echo two-start >> marker; sleep 60; echo two-end >> marker"}`
	task := `{"description":"append","prompt":"append one and two to marker","agent":"runner"}`
	srv := modeltest.NewServer(t,
		sse(toolBody("call_task", "task", task)),
		sse(toolBody("call_quick", "run_command", quick)),
		sse(toolBody("call_slow", "run_command", slow)),
		sse(textBody("The sub-agent was interrupted; its first command ran.")),
	)
	stateDir := filepath.Join(e.home, "state")
	args := []string{"run", "--preset", "full", "--state-dir", stateDir, "-e", srv.URL}

	p := e.start(t, append(args, "--output-format", "stream-json", "delegate the marker work")...)
	p.stdin.Close()
	waitFor(t, "the child's slow command to start", 30*time.Second, func() bool {
		b, _ := os.ReadFile(marker)
		return strings.Contains(string(b), "two-start")
	})
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t, 10*time.Second)
	killGroupsRunning(t, "two-start >> marker")
	if !strings.Contains(p.stdout.String(), `"agent_path":"task:call_task/runner"`) {
		t.Errorf("stream-json lacks the child's events with their agent_path:\n%s", p.stdout)
	}

	q := e.start(t, append(args, "--continue", "--output-format", "json")...)
	q.stdin.Close()
	if code := q.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("--continue exited %d\nstdout: %s\nstderr: %s", code, q.stdout, q.stderr)
	}
	var out struct {
		SessionID string `json:"session_id"`
		Outcome   string `json:"outcome"`
	}
	if err := json.Unmarshal([]byte(q.stdout.String()), &out); err != nil {
		t.Fatalf("json output: %v\n%s", err, q.stdout)
	}
	if out.Outcome != "complete" {
		t.Errorf("resumed run = %+v", out)
	}
	if got, _ := os.ReadFile(marker); string(got) != "one\ntwo-start\n" {
		t.Errorf("marker = %q, want each of the child's commands once, never re-run", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("the model got %d requests, want 4", len(reqs))
	}
	res := toolResults(t, reqs[3].Body)["call_task"]
	for _, want := range []string{"interrupted", "echo one >> marker", "finished", "sleep 60"} {
		if !strings.Contains(res, want) {
			t.Errorf("the resumed model was told %q about the task call; want it to mention %q", res, want)
		}
	}
	if _, ok := toolResults(t, reqs[3].Body)["call_quick"]; ok {
		t.Error("the child's call reached the root's conversation")
	}

	show := e.start(t, "sessions", "show", "--state-dir", stateDir, out.SessionID)
	show.stdin.Close()
	if code := show.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("sessions show exited %d: %s", code, show.stderr)
	}
	text := show.stdout.String()
	iTask := strings.Index(text, "→ task ")
	iChild := strings.Index(text, "    [runner] → run_command")
	if iTask < 0 || iChild < iTask {
		t.Errorf("sessions show does not nest the child's calls under the task call:\n%s", text)
	}
}
