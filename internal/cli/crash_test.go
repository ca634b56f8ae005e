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

// TestCrashThenContinue is issue 5's crash test through the real binary: a
// headless run whose model calls run_command twice — a quick command, then
// a slow one — is killed with SIGKILL while the slow one runs. `rein run
// --continue` then finishes the task: the marker file shows that the
// finished call ran exactly once and the interrupted one was not re-run,
// and the model is told the interrupted call was interrupted.
func TestCrashThenContinue(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.workspace, "marker")
	quick := `{"command":"echo one >> marker"}`
	slow := `{"command":"echo two-start >> marker; sleep 60; echo two-end >> marker"}`
	srv := modeltest.NewServer(t,
		sse(toolBody("call_quick", "run_command", quick)),
		sse(toolBody("call_slow", "run_command", slow)),
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
	// SIGKILL gave rein no chance to end the command's process group
	// (its own, as run_command makes one); end it here.
	killGroupsRunning(t, "two-start >> marker")

	q := e.start(t, append(args, "--continue", "--output-format", "json")...)
	q.stdin.Close()
	if code := q.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("--continue exited %d\nstdout: %s\nstderr: %s", code, q.stdout, q.stderr)
	}
	var out struct {
		SessionID string `json:"session_id"`
		Outcome   string `json:"outcome"`
		Text      string `json:"text"`
	}
	if err := json.Unmarshal([]byte(q.stdout.String()), &out); err != nil {
		t.Fatalf("json output: %v\n%s", err, q.stdout)
	}
	if out.Outcome != "complete" || out.Text != "Both commands were handled." {
		t.Errorf("resumed run = %+v", out)
	}
	if !strings.Contains(q.stderr.String(), "call_slow") {
		t.Errorf("stderr does not name the interrupted call:\n%s", q.stderr)
	}

	got, _ := os.ReadFile(marker)
	if string(got) != "one\ntwo-start\n" {
		t.Errorf("marker = %q, want the quick command once and the slow one started once, never re-run", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	results := toolResults(t, reqs[2].Body)
	if !strings.Contains(results["call_slow"], "interrupted") {
		t.Errorf("the model was told %q about the killed call; want it reported as interrupted", results["call_slow"])
	}
	if r := results["call_quick"]; strings.Contains(r, "interrupted") || !strings.Contains(r, "exit") {
		t.Errorf("the finished call's recorded result was not kept: %q", r)
	}
}

// killGroupsRunning kills the process groups of leftover processes whose
// command line contains pattern (the orphans of a SIGKILLed run), so the
// test leaves nothing behind.
func killGroupsRunning(t *testing.T, pattern string) {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, ent := range entries {
		pid := 0
		for _, c := range ent.Name() {
			if c < '0' || c > '9' {
				pid = -1
				break
			}
			pid = pid*10 + int(c-'0')
		}
		if pid <= 0 {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		if err != nil || !strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), pattern) {
			continue
		}
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid > 1 {
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
}
