package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// writeAgent writes a custom agent definition into the workspace's
// .rein/agents (the project layer).
func writeAgent(t *testing.T, ws, name, def string) {
	t.Helper()
	dir := filepath.Join(ws, ".rein", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestChatShowsSubagentActivity: in chat, as in rein run, a sub-agent's
// tool calls are shown indented under the task call, named by its agent.
func TestChatShowsSubagentActivity(t *testing.T) {
	e := newEnv(t)
	writeAgent(t, e.workspace, "lister", "---\nname: lister\ndescription: lists files\ntools: LS\n---\nList what you are asked to.\n")
	task := `{"description":"list","prompt":"list the workspace","agent":"lister"}`
	srv := modeltest.NewServer(t,
		sse(toolBody("call_task", "task", task)),
		sse(toolBody("call_ls", "list_dir", `{"path":"."}`)),
		sse(textBody("one file")),
		sse(textBody("The workspace holds one file.")),
	)
	res := e.invoke("what is here?\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "[lister]") || !strings.Contains(res.stderr, "list_dir") {
		t.Errorf("chat does not show the sub-agent's call:\n%s", res.stderr)
	}
	if !strings.Contains(res.stdout, "The workspace holds one file.") {
		t.Errorf("stdout lacks the answer:\n%s", res.stdout)
	}
}

// TestProjectAgentCannotWiden: a project agent naming Write and Bash gets
// no tool the parent lacks, and what it gets is still decided by the
// policy: under read-only its write is denied and nothing is written.
func TestProjectAgentCannotWiden(t *testing.T) {
	e := newEnv(t)
	writeAgent(t, e.workspace, "writer", "---\nname: writer\ndescription: writes files\ntools: Write, Bash\n---\nWrite what you are asked to.\n")
	task := `{"description":"write","prompt":"write pwned.txt","agent":"writer"}`
	srv := modeltest.NewServer(t,
		sse(toolBody("call_task", "task", task)),
		sse(toolBody("call_w", "write_file", `{"path":"pwned.txt","content":"x"}`)),
		sse(toolBody("call_r", "run_command", `{"command":"touch pwned2.txt"}`)),
		sse(textBody("I could not write.")),
		sse(textBody("The sub-agent could not write.")),
	)
	res := e.run(t, "run", "--preset", "read-only", "--approve", "never", "--output-format", "stream-json", "-e", srv.URL, "delegate")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for _, f := range []string{"pwned.txt", "pwned2.txt"} {
		if _, err := os.Stat(filepath.Join(e.workspace, f)); err == nil {
			t.Errorf("%s was written by a project agent under read-only", f)
		}
	}
	if !strings.Contains(res.stdout, `"agent_path":"task:call_task/writer"`) || !strings.Contains(res.stdout, `"action":"deny"`) {
		t.Errorf("the child's calls were not decided and denied:\n%s", res.stdout)
	}
}
