package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/tools/exec"
	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestTaskCancelKillsGrandchildProcesses: the root starts a child that
// starts a grandchild that runs three `sleep 30` through the real
// run_command; cancelling the root ends the run and leaves no sleep alive
// within 1 s.
func TestTaskCancelKillsGrandchildProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see processes")
	}
	dir := t.TempDir()
	ws, err := workspace.Open(dir, workspace.Options{Sandbox: sandbox.Off})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	const script = `sleep 30 & echo $! > p1; sleep 30 & echo $! > p2; sleep 30 & echo $! > p3; wait`
	cmdArgs, _ := json.Marshal(map[string]string{"command": script})
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		switch who(req) {
		case "root":
			return modeltest.ToolCalls(taskCall("t1", "runner", "delegate"))
		case "runner":
			return modeltest.ToolCalls(taskCall("t2", "sleeper", "sleep"))
		}
		return modeltest.ToolCalls(call("s1", "run_command", string(cmdArgs)))
	}}
	task := mustTask(t, TaskConfig{Agents: []SubagentDef{
		{Name: "runner", System: "AGENT:runner", Tools: []string{TaskToolName, "run_command"}},
		{Name: "sleeper", System: "AGENT:sleeper", Tools: []string{"run_command"}},
	}})
	j := &memJournal{}
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, exec.RunCommand(ws, exec.Options{Timeout: time.Minute}), task),
		ToolTimeout: time.Minute, Journal: j})
	defer func() {
		if t.Failed() {
			for _, ev := range j.snapshot() {
				if ev.ToolResult != nil {
					t.Logf("%s %s: %s", ev.AgentPath, ev.Type, ev.ToolResult.Content)
				}
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *Outcome, 1)
	go func() {
		out, _ := a.RunToEnd(ctx, NewConversation("s"), "go")
		done <- out
	}()
	pids := waitPIDs(t, dir, 3, 10*time.Second)
	cancelled := time.Now()
	cancel()
	var out *Outcome
	select {
	case out = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not end within 5 s of the cancellation")
	}
	ended := time.Since(cancelled)
	for time.Since(cancelled) < time.Second && anyAlive(pids) {
		time.Sleep(5 * time.Millisecond)
	}
	gone := time.Since(cancelled)
	if anyAlive(pids) {
		t.Fatalf("processes %v still alive %v after the cancellation", pids, gone)
	}
	if ended > time.Second {
		t.Errorf("the run ended %v after the cancellation, want within 1 s", ended)
	}
	if out == nil || out.Kind != Cancelled {
		t.Errorf("outcome %+v, want cancelled", out)
	}
	t.Logf("cancellation: run ended after %v, processes gone after %v", ended, gone)
}

func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if alive(pid) {
			return true
		}
	}
	return false
}

// waitPIDs waits for the pid files p1…pn the script writes.
func waitPIDs(t *testing.T, dir string, n int, limit time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var pids []int
		for i := 1; i <= n; i++ {
			data, err := os.ReadFile(filepath.Join(dir, "p"+strconv.Itoa(i)))
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil {
				pids = append(pids, pid)
			}
		}
		if len(pids) == n && anyAlive(pids) {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild's processes did not start within %v (got %v)", limit, pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTaskCancelEndsParallelChildren: three children running at once,
// each in a tool that waits for its context, all end within 1 s of the
// root's cancellation.
func TestTaskCancelEndsParallelChildren(t *testing.T) {
	var inside atomic.Int64
	hang := readTool("hang", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		inside.Add(1)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	p := &routed{fn: func(req *model.Request) modeltest.Turn {
		if who(req) == "root" {
			return modeltest.ToolCalls(taskCall("a", "", "1"), taskCall("b", "", "2"), taskCall("c", "", "3"))
		}
		return modeltest.ToolCalls(call("h", "hang", `{}`))
	}}
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, hang, mustTask(t, TaskConfig{}))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *Outcome, 1)
	go func() {
		out, _ := a.RunToEnd(ctx, NewConversation("s"), "go")
		done <- out
	}()
	for deadline := time.Now().Add(5 * time.Second); inside.Load() < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of 3 children reached their tool", inside.Load())
		}
	}
	start := time.Now()
	cancel()
	select {
	case out := <-done:
		if out.Kind != Cancelled {
			t.Errorf("outcome %s, want cancelled", out.Kind)
		}
		t.Logf("three children ended %v after the cancellation", time.Since(start))
	case <-time.After(time.Second):
		t.Fatal("the tree did not end within 1 s of the cancellation")
	}
}
