package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// logBuffer collects a Runner's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testHook is one hook of a test configuration.
type testHook struct {
	event   agent.SteerEvent
	matcher string
	command string
	timeout float64
	layer   Layer
}

// newTestRunner writes nothing itself: scripts are written by the test
// into ws. It returns the runner and its log.
func newTestRunner(t *testing.T, ws string, hooks ...testHook) (*Runner, *logBuffer) {
	t.Helper()
	var cfg Config
	for _, h := range hooks {
		layer := h.layer
		if layer == "" {
			layer = LayerUser
		}
		c, w := Build(layer, "test", map[string][]GroupSpec{
			string(h.event): {{Matcher: h.matcher, Hooks: []HookSpec{{Type: "command", Command: h.command, Timeout: h.timeout}}}},
		})
		if len(w) > 0 {
			t.Fatalf("config warnings: %v", w)
		}
		cfg.Add(c)
	}
	logs := &logBuffer{}
	r, err := NewRunner(RunnerConfig{
		Config: cfg, Workspace: ws, TranscriptDir: filepath.Join(t.TempDir(), "transcripts"),
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r, logs
}

// script writes an executable script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the Python hook scripts cannot run (install python3 to run this test)")
	}
}

func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: the bash hook scripts cannot run")
	}
}

func runCall(cmd string) *model.ToolCall {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return &model.ToolCall{ID: "call_1", Name: "run_command", Args: args}
}

func steer(t *testing.T, r *Runner, p agent.SteerPoint) agent.SteerVerdict {
	t.Helper()
	if p.SessionID == "" {
		p.SessionID = "sess-1"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return r.Steer(ctx, p)
}

// The command validator of Claude Code's documentation, in bash: it
// blocks grep in favour of rg with exit 2 and its reason on stderr.
const grepValidator = `#!/usr/bin/env bash
input=$(cat)
# The command, as the JSON string Claude Code's tool_input gives it.
cmd=$(printf '%s' "$input" | sed -n 's/.*"tool_input":{[^}]*"command":"\([^"]*\)".*/\1/p')
if printf '%s' "$cmd" | grep -Eq '(^|[|;&[:space:]])grep([[:space:]]|$)'; then
  echo "Use 'rg' (ripgrep) instead of 'grep' for better performance and features" >&2
  exit 2
fi
exit 0
`

func TestRunnerBlocksGrepWithExit2(t *testing.T) {
	needBash(t)
	ws := t.TempDir()
	check := script(t, ws, "check.sh", grepValidator)
	r, logs := newTestRunner(t, ws, testHook{event: agent.SteerPreToolUse, matcher: "Bash", command: check})

	v := steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: runCall("grep -r TODO .")})
	if !v.Block || !strings.Contains(v.Reason, "Use 'rg'") {
		t.Fatalf("grep was not blocked with the hook's reason: %+v (log %s)", v, logs)
	}
	v = steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: runCall("rg TODO")})
	if v.Block || v.Permission != "" {
		t.Fatalf("rg was steered: %+v", v)
	}
	// The matcher is Claude Code's name: other tools are not checked.
	other := &model.ToolCall{ID: "c", Name: "read_file", Args: json.RawMessage(`{"path":"grep x"}`)}
	if v := steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: other}); v.Block {
		t.Fatalf("the Bash matcher ran for read_file: %+v", v)
	}
}

func TestRunnerInputIsClaudeCodes(t *testing.T) {
	needBash(t)
	ws := t.TempDir()
	dump := filepath.Join(ws, "input.json")
	envDump := filepath.Join(ws, "env.txt")
	cmd := `cat > ` + dump + `; printf '%s\n%s\n%s\n' "$CLAUDE_PROJECT_DIR" "$REIN_PROJECT_DIR" "$PWD" > ` + envDump
	r, _ := newTestRunner(t, ws, testHook{event: agent.SteerPreToolUse, command: cmd},
		testHook{event: agent.SteerPostToolUse, command: cmd},
		testHook{event: agent.SteerStop, command: cmd},
		testHook{event: agent.SteerUserPromptSubmit, command: cmd},
		testHook{event: agent.SteerSessionStart, command: cmd},
		testHook{event: agent.SteerPreCompact, command: cmd},
		testHook{event: agent.SteerSessionEnd, command: cmd},
		testHook{event: agent.SteerNotification, command: cmd})
	read := func() map[string]any {
		t.Helper()
		data, err := os.ReadFile(dump)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("hook input is not JSON: %v\n%s", err, data)
		}
		return m
	}
	edit := &model.ToolCall{ID: "toolu_1", Name: "edit_file",
		Args: json.RawMessage(`{"path":"src/a.go","old_string":"x","new_string":"y","replace_all":true}`)}
	steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, SessionID: "s1", Call: edit})
	in := read()
	want := map[string]any{
		"session_id": "s1", "cwd": ws, "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_1",
		"tool_input":     map[string]any{"file_path": filepath.Join(ws, "src/a.go"), "old_string": "x", "new_string": "y", "replace_all": true},
		"rein_tool_name": "edit_file",
	}
	for k, v := range want {
		if got, _ := json.Marshal(in[k]); string(got) != mustJSON(v) {
			t.Errorf("PreToolUse %s = %s, want %s", k, got, mustJSON(v))
		}
	}
	if tp, _ := in["transcript_path"].(string); !strings.HasSuffix(tp, "/s1.jsonl") {
		t.Errorf("transcript_path = %q", tp)
	}
	env, _ := os.ReadFile(envDump)
	if got := strings.Split(strings.TrimSpace(string(env)), "\n"); len(got) != 3 || got[0] != ws || got[1] != ws || got[2] != ws {
		t.Errorf("CLAUDE_PROJECT_DIR, REIN_PROJECT_DIR, PWD = %q, want %s", got, ws)
	}

	steer(t, r, agent.SteerPoint{Event: agent.SteerPostToolUse, Call: runCall("ls"),
		Result: &model.ToolResult{CallID: "call_1", Content: "exit code 0\na\n"}})
	in = read()
	resp, _ := in["tool_response"].(map[string]any)
	if in["tool_name"] != "Bash" || resp["stdout"] != "exit code 0\na\n" || resp["is_error"] != false {
		t.Errorf("PostToolUse input = %v", in)
	}
	checks := []struct {
		p      agent.SteerPoint
		key    string
		want   any
		absent string
	}{
		{agent.SteerPoint{Event: agent.SteerStop, StopActive: true, Text: "done"}, "stop_hook_active", true, "prompt"},
		{agent.SteerPoint{Event: agent.SteerUserPromptSubmit, Prompt: "fix it"}, "prompt", "fix it", "tool_name"},
		{agent.SteerPoint{Event: agent.SteerSessionStart, Source: "resume"}, "source", "resume", "prompt"},
		{agent.SteerPoint{Event: agent.SteerPreCompact, Source: "auto"}, "trigger", "auto", "source"},
		{agent.SteerPoint{Event: agent.SteerSessionEnd, Source: "complete"}, "reason", "complete", "source"},
		{agent.SteerPoint{Event: agent.SteerNotification, Text: "rein needs your permission to use Bash"}, "message", "rein needs your permission to use Bash", "prompt"},
	}
	for _, c := range checks {
		steer(t, r, c.p)
		in := read()
		if in["hook_event_name"] != string(c.p.Event) || in[c.key] != c.want {
			t.Errorf("%s: %s = %v, want %v (input %v)", c.p.Event, c.key, in[c.key], c.want, in)
		}
		if _, ok := in[c.absent]; ok {
			t.Errorf("%s input has %s: %v", c.p.Event, c.absent, in)
		}
	}
}

func mustJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// A Python hook answering with Claude Code's JSON: deny rm -rf, ask for
// sudo, allow ls.
const pythonPermission = `import json, sys
data = json.load(sys.stdin)
cmd = data.get("tool_input", {}).get("command", "")
def out(decision, reason):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": decision, "permissionDecisionReason": reason}}))
if "rm -rf" in cmd:
    out("deny", "recursive deletion is not allowed here")
elif cmd.startswith("sudo"):
    out("ask", "sudo needs a human")
elif cmd.startswith("ls"):
    out("allow", "listing is harmless")
sys.exit(0)
`

func TestRunnerPythonPermissionDecision(t *testing.T) {
	needPython(t)
	ws := t.TempDir()
	py := script(t, ws, "perm.py", pythonPermission)
	for _, layer := range []Layer{LayerUser, LayerProject} {
		r, logs := newTestRunner(t, ws, testHook{event: agent.SteerPreToolUse, matcher: "Bash", command: "python3 " + py, layer: layer})
		for _, tc := range []struct {
			cmd     string
			perm    agent.Permission
			reason  string
			trusted bool
		}{
			{"rm -rf /", agent.PermissionDeny, "recursive deletion", false},
			{"sudo make install", agent.PermissionAsk, "sudo needs a human", false},
			{"ls -la", agent.PermissionAllow, "listing is harmless", layer == LayerUser},
			{"make", agent.PermissionNone, "", false},
		} {
			v := steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: runCall(tc.cmd)})
			if v.Permission != tc.perm || !strings.Contains(v.PermissionReason, tc.reason) || v.Trusted != tc.trusted || v.Block {
				t.Errorf("%s layer, %q: verdict %+v, want %s %q trusted=%v (log %s)", layer, tc.cmd, v, tc.perm, tc.reason, tc.trusted, logs)
			}
		}
	}
}

func TestRunnerMergesParallelHooks(t *testing.T) {
	needBash(t)
	ws := t.TempDir()
	allow := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok by me"}}'`
	ask := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check this"}}'`
	deny := `echo '{"decision":"block","reason":"legacy no"}'`
	block := `echo first >&2; exit 2`
	block2 := `echo second >&2; exit 2`
	pre := func(cmd string, layer Layer) testHook {
		return testHook{event: agent.SteerPreToolUse, command: cmd, layer: layer}
	}
	call := agent.SteerPoint{Event: agent.SteerPreToolUse, Call: runCall("make")}

	r, _ := newTestRunner(t, ws, pre(allow, LayerUser), pre(ask, LayerUser))
	if v := steer(t, r, call); v.Permission != agent.PermissionAsk || v.PermissionReason != "check this" || v.Trusted {
		t.Errorf("allow+ask = %+v, want ask", v)
	}
	r, _ = newTestRunner(t, ws, pre(allow, LayerUser), pre(ask, LayerUser), pre(deny, LayerProject))
	if v := steer(t, r, call); v.Permission != agent.PermissionDeny || v.PermissionReason != "legacy no" {
		t.Errorf("allow+ask+deny = %+v, want deny", v)
	}
	// An allow is trusted only when every allow is the user's.
	r, _ = newTestRunner(t, ws, pre(allow, LayerUser), pre(allow+" #project", LayerProject))
	if v := steer(t, r, call); v.Permission != agent.PermissionAllow || v.Trusted {
		t.Errorf("user+project allow = %+v, want an untrusted allow", v)
	}
	r, _ = newTestRunner(t, ws, pre(allow, LayerUser), pre(allow, LayerProject))
	if v := steer(t, r, call); !v.Trusted {
		t.Errorf("a command the user configured too is the user's: %+v", v)
	}
	r, _ = newTestRunner(t, ws, pre(block, LayerUser), pre(block2, LayerProject), pre(allow, LayerUser))
	v := steer(t, r, call)
	if !v.Block || !strings.Contains(v.Reason, "first") || !strings.Contains(v.Reason, "second") {
		t.Errorf("two blocks = %+v, want both reasons", v)
	}
}

// TestRunnerRunsHooksInParallel: four 1 s hooks take less than twice
// one (in series they would take four times), whatever each start costs
// here (every hook starts through the sandbox's supervisor, a re-exec of
// this binary: slow under -race on a loaded machine).
func TestRunnerRunsHooksInParallel(t *testing.T) {
	ws := t.TempDir()
	timed := func(n int) time.Duration {
		var hooks []testHook
		for i := range n {
			hooks = append(hooks, testHook{event: agent.SteerPreToolUse, command: "sleep 1; echo " + strconv.Itoa(i) + " >/dev/null"})
		}
		r, _ := newTestRunner(t, ws, hooks...)
		start := time.Now()
		steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: runCall("make")})
		return time.Since(start)
	}
	one, four := timed(1), timed(4)
	if four > 2*one {
		t.Errorf("four 1 s hooks took %s, one %s: not run in parallel", four, one)
	}
}

func TestRunnerKillsHangingHookAndItsChildren(t *testing.T) {
	needBash(t)
	ws := t.TempDir()
	pids := filepath.Join(ws, "pids")
	// The hook starts a background child and a grandchild, records their
	// pids, and hangs.
	hang := script(t, ws, "hang.sh", `#!/usr/bin/env bash
sleep 300 &
echo $! >> `+pids+`
( sleep 300 & echo $! >> `+pids+`; wait ) &
echo $$ >> `+pids+`
sleep 300
`)
	r, logs := newTestRunner(t, ws,
		testHook{event: agent.SteerPreToolUse, command: hang, timeout: 0.5},
		testHook{event: agent.SteerPreToolUse, command: "echo fine >&2; exit 2"})
	start := time.Now()
	v := steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: runCall("make")})
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a hook with a 0.5 s timeout held the point for %s", d)
	}
	if !v.Block || v.Reason != "fine" {
		t.Errorf("the other hook's verdict was lost: %+v", v)
	}
	if !strings.Contains(logs.String(), "killed after its timeout of 500ms") {
		t.Errorf("no warning about the hanging hook:\n%s", logs)
	}
	data, _ := os.ReadFile(pids)
	fields := strings.Fields(string(data))
	if len(fields) != 3 {
		t.Fatalf("pids recorded: %q", data)
	}
	deadline := time.Now().Add(2 * time.Second)
	for _, f := range fields {
		pid, _ := strconv.Atoi(f)
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d started by the hook outlived its timeout", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func TestRunnerSurvivesGarbageAndFailures(t *testing.T) {
	needBash(t)
	ws := t.TempDir()
	garbage := script(t, ws, "garbage.sh", `#!/usr/bin/env bash
cat >/dev/null
printf '{"decision": "block", "reason": '
head -c 300000 /dev/urandom
printf '\x00\xff\xfe not json'
`)
	r, logs := newTestRunner(t, ws,
		testHook{event: agent.SteerPreToolUse, command: garbage},
		testHook{event: agent.SteerPreToolUse, command: "exit 1"},
		testHook{event: agent.SteerPreToolUse, command: "echo 'oops: it broke' >&2; exit 3"},
		testHook{event: agent.SteerPreToolUse, command: "/nonexistent/hook"},
		testHook{event: agent.SteerPreToolUse, command: `echo '{"continue": "maybe", "decision": 7, "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "sure"}}'`},
		testHook{event: agent.SteerPreToolUse, command: `echo '{"hookSpecificOutput": {"hookEventName": "Stop", "permissionDecision": "allow"}}'`},
		testHook{event: agent.SteerPreToolUse, command: `echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": [1]}}'`, timeout: 5},
	)
	v := steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: runCall("make")})
	if v.Block || v.Halt || v.UpdatedInput != nil || v.Permission != agent.PermissionAllow {
		t.Errorf("garbage steered the call: %+v", v)
	}
	log := logs.String()
	for _, w := range []string{"JSON output was cut", "exited with status 1", "exited with status 3: oops: it broke",
		"exited with status 127", `output field \"continue\" has the wrong type`, `permissionDecision \"sure\"`,
		`hookSpecificOutput is for \"Stop\"`, "updatedInput is not a JSON object"} {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q:\n%s", w, log)
		}
	}
}

func TestRunnerPromptContext(t *testing.T) {
	needBash(t)
	needPython(t)
	ws := t.TempDir()
	ctxPy := script(t, ws, "ctx.py", `import json, sys
data = json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
    "additionalContext": "The prompt was %d characters long." % len(data["prompt"])}}))
`)
	r, _ := newTestRunner(t, ws,
		testHook{event: agent.SteerUserPromptSubmit, command: "echo 'Current branch: main'; echo 'api_key=sk-abcdefghijklmnop'"},
		testHook{event: agent.SteerUserPromptSubmit, command: "python3 " + ctxPy},
		testHook{event: agent.SteerSessionStart, command: "echo 'Open issues: 3'"},
		testHook{event: agent.SteerPostToolUse, command: "echo 'plain stdout is not context here'"},
	)
	v := steer(t, r, agent.SteerPoint{Event: agent.SteerUserPromptSubmit, Prompt: "hello"})
	for _, want := range []string{"Current branch: main", "The prompt was 5 characters long."} {
		if !strings.Contains(v.Context, want) {
			t.Errorf("context %q lacks %q", v.Context, want)
		}
	}
	if strings.Contains(v.Context, "sk-abcdefghijklmnop") {
		t.Errorf("a secret reached the model: %q", v.Context)
	}
	if v := steer(t, r, agent.SteerPoint{Event: agent.SteerSessionStart, Source: "startup"}); v.Context != "Open issues: 3" {
		t.Errorf("SessionStart context = %q", v.Context)
	}
	if v := steer(t, r, agent.SteerPoint{Event: agent.SteerPostToolUse, Call: runCall("ls"), Result: &model.ToolResult{}}); v.Context != "" {
		t.Errorf("PostToolUse took plain stdout as context: %q", v.Context)
	}
}

func TestRunnerBlockingPromptAndHalt(t *testing.T) {
	needBash(t)
	ws := t.TempDir()
	r, _ := newTestRunner(t, ws,
		testHook{event: agent.SteerUserPromptSubmit, command: `echo '{"decision": "block", "reason": "no secrets in prompts"}'`},
		testHook{event: agent.SteerPostToolUse, command: `echo '{"continue": false, "stopReason": "build broke", "decision": "block", "reason": "ignored"}'`},
	)
	if v := steer(t, r, agent.SteerPoint{Event: agent.SteerUserPromptSubmit, Prompt: "x"}); !v.Block || v.Reason != "no secrets in prompts" {
		t.Errorf("UserPromptSubmit block = %+v", v)
	}
	v := steer(t, r, agent.SteerPoint{Event: agent.SteerPostToolUse, Call: runCall("make"), Result: &model.ToolResult{}})
	if !v.Halt || v.HaltReason != "build broke" || v.Block {
		t.Errorf("continue:false = %+v, want a halt that overrides the decision", v)
	}
}

// A Stop hook in Python that refuses to let the run end until DONE exists.
const stopUntilFile = `import json, os, sys
data = json.load(sys.stdin)
if not os.path.exists(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "DONE")):
    print(json.dumps({"decision": "block", "reason": "Create the file DONE before you finish (stop_hook_active=%s)." % data["stop_hook_active"]}))
`

func TestRunnerStopHookRefusesUntilFileExists(t *testing.T) {
	needPython(t)
	ws := t.TempDir()
	py := script(t, ws, "stop.py", stopUntilFile)
	r, _ := newTestRunner(t, ws, testHook{event: agent.SteerStop, command: "python3 " + py})
	v := steer(t, r, agent.SteerPoint{Event: agent.SteerStop, Text: "all done"})
	if !v.Block || !strings.Contains(v.Reason, "Create the file DONE") || !strings.Contains(v.Reason, "stop_hook_active=False") {
		t.Fatalf("Stop verdict = %+v, want a block", v)
	}
	if err := os.WriteFile(filepath.Join(ws, "DONE"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if v := steer(t, r, agent.SteerPoint{Event: agent.SteerStop, Text: "all done", StopActive: true}); v.Block {
		t.Fatalf("Stop blocked after DONE exists: %+v", v)
	}
}

func TestRunnerUpdatedInputInReinVocabulary(t *testing.T) {
	needPython(t)
	ws := t.TempDir()
	py := script(t, ws, "rewrite.py", `import json, sys
data = json.load(sys.stdin)
inp = dict(data["tool_input"])
if data["tool_name"] == "Bash":
    inp["command"] = inp["command"].replace("grep", "rg")
    inp["timeout"] = 5000
    inp["description"] = "search"
elif data["tool_name"] == "Write":
    inp["file_path"] = inp["file_path"].replace("a.txt", "b.txt")
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": inp}}))
`)
	r, _ := newTestRunner(t, ws, testHook{event: agent.SteerPreToolUse, matcher: "Bash|Write", command: "python3 " + py})
	v := steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: runCall("grep x .")})
	if got := string(v.UpdatedInput); got != `{"command":"rg x .","timeout_s":5}` {
		t.Errorf("Bash updatedInput = %s", got)
	}
	w := &model.ToolCall{ID: "w", Name: "write_file", Args: json.RawMessage(`{"path":"dir/a.txt","content":"hi"}`)}
	v = steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: w})
	if got := string(v.UpdatedInput); got != `{"content":"hi","path":"dir/b.txt"}` {
		t.Errorf("Write updatedInput = %s", got)
	}
}

func TestRunnerCancelledContext(t *testing.T) {
	ws := t.TempDir()
	r, _ := newTestRunner(t, ws, testHook{event: agent.SteerPreToolUse, command: "sleep 30"})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	r.Steer(ctx, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: runCall("x")})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a cancelled point waited %s for its hook", d)
	}
}

func TestNewRunnerNeedsWorkspace(t *testing.T) {
	if _, err := NewRunner(RunnerConfig{}); err == nil {
		t.Error("NewRunner without a workspace did not fail")
	}
}

// alive reports whether pid is a live process: a zombie waiting for its
// new parent to reap it is dead.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
