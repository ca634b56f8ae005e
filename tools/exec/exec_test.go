package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// newTool opens a workspace without the sandbox: these tests are about
// the tool's outcome, process-group killing and signals as the host sees
// them (inside the namespace sandbox pids are the namespace's own and a
// signal death comes back as exit code 128+n); workspace tests the
// sandbox itself.
func newTool(t *testing.T, opts Options) (tool.Tool, string) {
	t.Helper()
	ws, err := workspace.Open(t.TempDir(), workspace.Options{Sandbox: sandbox.Off})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return RunCommand(ws, opts), ws.Dir()
}

func call(t *testing.T, tl tool.Tool, args map[string]any) (*tool.Result, Outcome) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tl.Call(context.Background(), raw)
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	var o Outcome
	if res.Structured != nil {
		if err := json.Unmarshal(res.Structured, &o); err != nil {
			t.Fatalf("structured result: %v", err)
		}
	}
	return res, o
}

// alive reports whether pid runs and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	return len(f) > 0 && string(f[0]) != "Z"
}

// TestRunCommandTimeoutKillsGrandchildren is the acceptance test:
// sleep 100 with a 1 s timeout returns within 2 s and no process of the
// group, grandchildren included, survives.
func TestRunCommandTimeoutKillsGrandchildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to check for surviving processes")
	}
	tl, _ := newTool(t, Options{})
	start := time.Now()
	res, o := call(t, tl, map[string]any{
		"command":   `bash -c 'sleep 100 & echo "pid $!"; sleep 100' & echo "pid $!"; sleep 100 & echo "pid $!"; sleep 100`,
		"timeout_s": 1,
	})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %v, want within 2s", d)
	}
	if !res.IsError || !o.TimedOut || !strings.HasPrefix(res.Content, "timed out after 1s") {
		t.Errorf("result: %+v", res)
	}
	pids := regexp.MustCompile(`pid (\d+)`).FindAllStringSubmatch(o.Output, -1)
	if len(pids) != 3 {
		t.Fatalf("want 3 pids, got output %q", o.Output)
	}
	deadline := time.Now().Add(time.Second)
	for _, m := range pids {
		pid, _ := strconv.Atoi(m[1])
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d survived the timeout", pid)
		}
	}
}

func TestRunCommandCapsOutput(t *testing.T) {
	tl, _ := newTool(t, Options{})
	res, o := call(t, tl, map[string]any{"command": `echo START; yes 0123456789 | head -c 10000000; echo; echo END`})
	if res.IsError || o.ExitCode != 0 || !o.Truncated || !res.Truncated {
		t.Fatalf("result: IsError=%v exit=%d truncated=%v", res.IsError, o.ExitCode, o.Truncated)
	}
	if len(res.Content) > DefaultMaxOutput+512 {
		t.Errorf("content is %d bytes, want about %d", len(res.Content), DefaultMaxOutput)
	}
	if !strings.Contains(res.Content, "\nSTART\n") || !strings.HasSuffix(res.Content, "END\n") {
		t.Errorf("head or tail lost")
	}
	if !strings.Contains(res.Content, "output: 10000011 bytes, truncated") {
		t.Errorf("no truncation notice: %q", res.Content[:120])
	}
}

func TestRunCommandResults(t *testing.T) {
	tl, dir := newTool(t, Options{})
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		prefix  string
		out     Outcome
	}{
		{"success", map[string]any{"command": "echo hi"}, false, "exit code 0 (", Outcome{Output: "hi\n"}},
		{"failure is information", map[string]any{"command": "echo no >&2; exit 2"}, false, "exit code 2 (", Outcome{ExitCode: 2, Output: "no\n"}},
		{"no output", map[string]any{"command": "true"}, false, "exit code 0 (", Outcome{}},
		{"cwd", map[string]any{"command": "basename $PWD", "cwd": "sub"}, false, "exit code 0", Outcome{Output: "sub\n"}},
		{"signal", map[string]any{"command": "kill -9 $$"}, false, "killed by signal killed", Outcome{ExitCode: -1, Signal: "killed"}},
	}
	for _, tt := range tests {
		res, o := call(t, tl, tt.args)
		if res.IsError != tt.isError || !strings.HasPrefix(res.Content, tt.prefix) {
			t.Errorf("%s: IsError=%v content=%q", tt.name, res.IsError, res.Content)
		}
		o.DurationMS, o.Sandboxed = 0, false
		if diff := cmp.Diff(tt.out, o); diff != "" {
			t.Errorf("%s: outcome (-want +got):\n%s", tt.name, diff)
		}
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": " "}, "command is empty"},
		{map[string]any{"command": "true", "cwd": "../"}, "path escapes the workspace"},
		{map[string]any{"command": "true", "cwd": "/etc"}, "path escapes the workspace"},
		{map[string]any{"command": "true", "cwd": "missing"}, "no such file"},
		{map[string]any{"command": "true", "timeout_s": -1}, "negative"},
	} {
		res, _ := call(t, tl, tc.args)
		if !res.IsError || !strings.Contains(res.Content, tc.want) {
			t.Errorf("run_command(%v) = %+v; want an error containing %q", tc.args, res, tc.want)
		}
	}
}

func TestRunCommandCancellation(t *testing.T) {
	tl, _ := newTool(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	res, err := tl.Call(ctx, json.RawMessage(`{"command":"sleep 100"}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	if !res.IsError || !strings.HasPrefix(res.Content, "interrupted") {
		t.Errorf("result: %+v", res)
	}
}

func TestRunCommandTimeoutClamp(t *testing.T) {
	tl, _ := newTool(t, Options{Timeout: time.Second, MaxTimeout: time.Second})
	start := time.Now()
	res, o := call(t, tl, map[string]any{"command": "sleep 100", "timeout_s": 3600})
	if d := time.Since(start); d > 2*time.Second || !o.TimedOut {
		t.Errorf("timeout_s over the maximum was not clamped: %v, %+v", d, res)
	}
}

func TestRunCommandSpec(t *testing.T) {
	tl, _ := newTool(t, Options{})
	s := tl.Spec()
	want := tool.Effects{Exec: true, CommandArg: "command", DirArg: "cwd", PathArgs: []string{"cwd"}, Network: true}
	if diff := cmp.Diff(want, s.Effects); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
	if s.Name != "run_command" || *s.Annotations.ReadOnlyHint || !*s.Annotations.DestructiveHint {
		t.Errorf("spec: %+v", s)
	}
	if to, ok := tl.(tool.Timeouter); !ok || to.Timeout() <= DefaultMaxTimeout {
		t.Errorf("the harness timeout must exceed the command's own maximum")
	}
}
