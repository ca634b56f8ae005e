package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestBinaryRunCallsMCPTask runs the real rein binary against another
// rein, `rein mcp serve`, whose run_command is a task-capable tool: the
// scripted model calls it, rein runs the call as an MCP task (in the
// 2026-07-28 era because the server decides, in 2025-11-25 because the
// server's tasks setting is "always"), and the model is given the
// command's output collected from the task.
func TestBinaryRunCallsMCPTask(t *testing.T) {
	bin := reinBinary(t)
	for _, tc := range []struct{ era, extra string }{
		{"2026-07-28", ""},
		{"2025-11-25", "tasks = \"always\"\n"},
	} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t)
			if err := os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("task-collected-42\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[mcp_servers.inner]\n"+
				fmt.Sprintf("command = %q\nargs = [\"mcp\", \"serve\", \"--tools\", \"run_command\", \"--approve\", \"auto\"]\nsandbox = false # rein itself, outside the workspace, with its own sandbox for run_command\n", bin)+
				fmt.Sprintf("protocol_version = %q\n", tc.era)+tc.extra+
				"\n[[policy.tools]]\nname = \"inner__run_command\"\naction = \"allow\"\n")
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "inner__run_command", `{"command":"sleep 0.3; cat notes.txt"}`)),
				sse(textBody("Done.")),
			)
			p := e.start(t, "run", "--output-format", "stream-json", "-e", srv.URL, "read the notes with the MCP tool")
			p.stdin.Close()
			if code := p.wait(t, 45*time.Second); code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, p.stdout, p.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2\nstderr: %s", len(reqs), p.stderr)
			}
			if got := toolResults(t, reqs[1].Body)["c1"]; !strings.Contains(got, "task-collected-42") {
				t.Errorf("the model was given %q for the task's result\nstderr: %s", got, p.stderr)
			}
			if !strings.Contains(p.stdout.String(), `"type":"tool.progress"`) || !strings.Contains(p.stdout.String(), `task working`) {
				t.Errorf("no task status in the event stream:\n%s", p.stdout)
			}
		})
	}
}

// TestTUIShowsMCPTaskStatus: in chat, a tool that runs as an MCP task
// shows its status while it runs, then its result.
func TestTUIShowsMCPTaskStatus(t *testing.T) {
	bin := reinBinary(t)
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("task-collected-42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[mcp_servers.inner]\n"+
		fmt.Sprintf("command = %q\nargs = [\"mcp\", \"serve\", \"--tools\", \"run_command\", \"--approve\", \"auto\"]\nsandbox = false # rein itself, outside the workspace, with its own sandbox for run_command\n", bin)+
		"protocol_version = \"2026-07-28\"\n"+
		"\n[[policy.tools]]\nname = \"inner__run_command\"\naction = \"allow\"\n")
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "inner__run_command", `{"command":"sleep 2; cat notes.txt"}`)),
		sse(textBody("Collected the notes.")),
	)
	tm := e.startTUI(t, 110, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("read the notes with the MCP tool")
	tm.key("Enter")
	s := tm.waitFor("the task's status while it runs", func(s string) bool {
		return strings.Contains(s, "task working") || strings.Contains(s, "Collected the notes.")
	})
	if strings.Contains(s, "Collected the notes.") {
		t.Fatalf("no task status was shown before the answer:\n%s", s)
	}
	s = tm.waitText("Collected the notes.")
	if !strings.Contains(s, "task completed") || !strings.Contains(s, "exit code 0") {
		t.Errorf("the task's end and result are not shown:\n%s", s)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}
