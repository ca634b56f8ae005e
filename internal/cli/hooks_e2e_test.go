package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// End-to-end tests of hooks through `rein run`: real bash and Python
// scripts, a scripted model over loopback, and judgement by what happened
// on disk and what the model was sent.

// hookEnv is an env whose hooks find bash and python3 on PATH. Scripts
// live in dir, outside the workspace.
type hookEnv struct {
	*env
	dir string
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("SKIP: bash is not installed; the hook scripts cannot run")
	}
	e := &hookEnv{env: newEnv(t)}
	e.vars["PATH"] = os.Getenv("PATH")
	e.dir = filepath.Join(filepath.Dir(e.workspace), "hookscripts")
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

func needPython3(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("SKIP: python3 is not installed; the Python hook scripts cannot run")
	}
}

// script writes an executable hook script outside the workspace.
func (e *hookEnv) script(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// userHooks writes the user config with the given [[hooks.*]] tables.
func (e *hookEnv) userHooks(t *testing.T, tables string) {
	t.Helper()
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n"+tables)
}

// hookTable is one [[hooks.EVENT]] table with one command hook.
func hookTable(event, matcher, command string, timeout int) string {
	cmd, _ := json.Marshal(command)
	s := "[[hooks." + event + "]]\n"
	if matcher != "" {
		s += "matcher = \"" + matcher + "\"\n"
	}
	t := ""
	if timeout > 0 {
		t = ", timeout = " + itoa(timeout)
	}
	return s + "hooks = [{ type = \"command\", command = " + string(cmd) + t + " }]\n\n"
}

// unconfinedTable is hookTable for a user hook with sandbox = false:
// its scripts live outside the workspace (in the test's temporary
// directory, which the sandbox's private /tmp hides) and it writes there.
func unconfinedTable(event, matcher, command string, timeout int) string {
	return strings.Replace(hookTable(event, matcher, command, timeout), " }]\n", ", sandbox = false }]\n", 1)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// runHooked runs `rein run` against the scripted model and returns the
// result and the request bodies the model received.
func (e *hookEnv) runHooked(t *testing.T, steps []modeltest.Step, args ...string) (result, []string) {
	t.Helper()
	srv := modeltest.NewServer(t, steps...)
	full := append([]string{"run", "--output-format", "stream-json", "--approve", "never", "-e", srv.URL}, args...)
	res := e.invoke("").run(t, append(full, "do the task")...)
	var bodies []string
	for _, r := range srv.Requests() {
		bodies = append(bodies, string(r.Body))
	}
	return res, bodies
}

func runArgs(cmd string) string {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return string(b)
}

// The validator of Claude Code's hooks guide, unchanged in substance: it
// reads the Bash command from stdin and blocks grep in favour of rg.
const grepValidatorPy = `#!/usr/bin/env python3
import json, re, sys
data = json.load(sys.stdin)
if data.get("tool_name") != "Bash":
    sys.exit(0)
command = data.get("tool_input", {}).get("command", "")
if re.search(r"\bgrep\b(?!.*\|)", command):
    print("Use 'rg' (ripgrep) instead of 'grep' for better performance and features", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
`

func TestHooksE2EValidatorBlocksGrep(t *testing.T) {
	needPython3(t)
	e := newHookEnv(t)
	writeFiles(t, e.workspace, map[string]string{"notes.txt": "TODO: marker-4711\n"})
	check := e.script(t, "bash_validator.py", grepValidatorPy)
	e.userHooks(t, unconfinedTable("PreToolUse", "Bash", "python3 "+check, 10))
	res, bodies := e.runHooked(t, []modeltest.Step{
		sse(twoToolBody("g1", "run_command", runArgs("grep -r TODO ."), "g2", "run_command", runArgs("cat notes.txt"))),
		sse(textBody("done")),
	}, "--preset", "full")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	results := toolResults(t, []byte(bodies[1]))
	if !strings.Contains(results["g1"], "Use 'rg'") {
		t.Errorf("the model did not see the hook's reason: %q", results["g1"])
	}
	if strings.Contains(results["g1"], "marker-4711") {
		t.Errorf("grep ran despite the hook: %q", results["g1"])
	}
	if !strings.Contains(results["g2"], "marker-4711") {
		t.Errorf("cat, which the hook allows, did not run: %q", results["g2"])
	}
	for _, d := range decisions(t, res.stdout) {
		if d.Decision.CallID == "g1" && (d.Decision.Action != "deny" || d.Decision.By != "hook") {
			t.Errorf("g1 decision = %+v, want deny by hook", d.Decision)
		}
	}
}

// A PostToolUse formatter in Python: it normalises the file the tool
// wrote (tabs to four spaces, trailing blanks removed, final newline) and
// tells the model so.
const formatterPy = `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
path = data["tool_input"]["file_path"]
with open(path) as f:
    lines = [l.replace("\t", "    ").rstrip() for l in f.read().splitlines()]
with open(path, "w") as f:
    f.write("\n".join(lines).rstrip("\n") + "\n")
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
    "additionalContext": "formatted " + path.rsplit("/", 1)[-1]}}))
`

func TestHooksE2EPostToolUseFormatter(t *testing.T) {
	needPython3(t)
	e := newHookEnv(t)
	fmtPy := e.script(t, "format.py", formatterPy)
	e.userHooks(t, unconfinedTable("PostToolUse", "Write|Edit", "python3 "+fmtPy, 10))
	args, _ := json.Marshal(map[string]string{"path": "src/app.py", "content": "def f():\n\treturn 1   \n\n"})
	res, bodies := e.runHooked(t, []modeltest.Step{
		sse(toolBody("w1", "write_file", string(args))),
		sse(textBody("written")),
	})
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	got, err := os.ReadFile(filepath.Join(e.workspace, "src/app.py"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "def f():\n    return 1\n" {
		t.Errorf("file after the formatter = %q", got)
	}
	if r := toolResults(t, []byte(bodies[1]))["w1"]; !strings.Contains(r, "formatted app.py") {
		t.Errorf("the formatter's context is not in the result: %q", r)
	}
}

const stopUntilDonePy = `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
if not os.path.exists(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "DONE")):
    print(json.dumps({"decision": "block", "reason": "You may not stop: create the file DONE first."}))
`

func TestHooksE2EStopRefusesUntilFileExists(t *testing.T) {
	needPython3(t)
	e := newHookEnv(t)
	stop := e.script(t, "stop.py", stopUntilDonePy)
	e.userHooks(t, unconfinedTable("Stop", "", "python3 "+stop, 10))
	res, bodies := e.runHooked(t, []modeltest.Step{
		sse(textBody("all finished")),
		sse(toolBody("d1", "write_file", `{"path":"DONE","content":"yes\n"}`)),
		sse(textBody("now really finished")),
	})
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if len(bodies) != 3 {
		t.Fatalf("the model was called %d times, want 3", len(bodies))
	}
	if !strings.Contains(bodies[1], "create the file DONE first") {
		t.Errorf("the Stop hook's reason did not reach the model:\n%s", bodies[1])
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "DONE")); err != nil {
		t.Errorf("DONE was not created: %v", err)
	}
	if !strings.Contains(res.stdout, "now really finished") {
		t.Errorf("the run did not end with the second answer:\n%s", res.stdout)
	}
}

func TestHooksE2EUserPromptSubmitAddsContextAndTranscript(t *testing.T) {
	e := newHookEnv(t)
	seen := filepath.Join(e.dir, "transcript_path")
	ctx := e.script(t, "ctx.sh", `#!/usr/bin/env bash
input=$(cat)
printf '%s' "$input" | sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p' > `+seen+`
echo "Project context: the release branch is release-42."
`)
	e.userHooks(t, unconfinedTable("UserPromptSubmit", "", ctx, 10))
	res, bodies := e.runHooked(t, []modeltest.Step{sse(textBody("ok"))})
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if !strings.Contains(bodies[0], "release-42") || !strings.Contains(bodies[0], "do the task") {
		t.Errorf("the first request lacks the prompt or the hook's context:\n%s", bodies[0])
	}
	data, _ := os.ReadFile(seen)
	path := strings.TrimSpace(string(data))
	if !strings.HasPrefix(path, filepath.Join(e.home, ".local", "state", "rein", "transcripts")) || !strings.HasSuffix(path, ".jsonl") {
		t.Fatalf("transcript_path = %q", path)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the transcript was not written: %v", err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode = %v", st.Mode().Perm())
	}
	text, _ := os.ReadFile(path)
	if !strings.Contains(string(text), `"type":"assistant"`) || !strings.Contains(string(text), "release-42") {
		t.Errorf("transcript:\n%s", text)
	}
}

func TestHooksE2EHangingAndGarbageHooksAreWarnings(t *testing.T) {
	e := newHookEnv(t)
	hang := e.script(t, "hang.sh", "#!/usr/bin/env bash\nsleep 120 &\nsleep 120\n")
	garbage := e.script(t, "garbage.sh", "#!/usr/bin/env bash\ncat >/dev/null\nprintf '{\"decision\": \\x00\\xff garbage'\nhead -c 100000 /dev/urandom\n")
	e.userHooks(t, unconfinedTable("PreToolUse", "", hang, 1)+unconfinedTable("PostToolUse", "*", garbage, 10)+
		unconfinedTable("UserPromptSubmit", "", "exit 7", 10))
	start := time.Now()
	res, bodies := e.runHooked(t, []modeltest.Step{
		sse(toolBody("c1", "calculator", `{"expression":"6*7"}`)),
		sse(textBody("42")),
	})
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the run took %s with a 1 s hook timeout", d)
	}
	if r := toolResults(t, []byte(bodies[1]))["c1"]; !strings.Contains(r, "42") {
		t.Errorf("the call did not run: %q", r)
	}
	for _, w := range []string{"killed after its timeout of 1s", "JSON", "exited with status 7"} {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("stderr lacks a warning with %q:\n%s", w, res.stderr)
		}
	}
	if strings.ContainsRune(res.stderr, 0) {
		t.Error("garbage reached stderr unescaped")
	}
}

const denyRmPy = `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
if data["tool_name"] == "Bash" and "rm " in data["tool_input"]["command"]:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "deleting files is reserved for humans"}}))
`

func TestHooksE2EPermissionDecisionDeny(t *testing.T) {
	needPython3(t)
	e := newHookEnv(t)
	writeFiles(t, e.workspace, map[string]string{"keep.txt": "precious\n"})
	deny := e.script(t, "deny.py", denyRmPy)
	e.userHooks(t, unconfinedTable("PreToolUse", "Bash", "python3 "+deny, 10))
	res, bodies := e.runHooked(t, []modeltest.Step{
		sse(toolBody("r1", "run_command", runArgs("rm keep.txt"))),
		sse(textBody("tried")),
	}, "--preset", "full")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "keep.txt")); err != nil {
		t.Errorf("keep.txt was deleted despite the hook: %v", err)
	}
	if r := toolResults(t, []byte(bodies[1]))["r1"]; !strings.Contains(r, "reserved for humans") {
		t.Errorf("the model did not see the hook's reason: %q", r)
	}
}

// allowAllHook answers allow to every call.
const allowAllHook = `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"hook says fine"}}'`

// askedCommand is a command the editor preset asks about (a command
// substitution is dynamic), so --approve never denies it unless a
// trusted allow lifts the Ask.
const askedCommand = "echo $(echo lifted) > lifted.txt"

func TestHooksE2EOnlyUserAllowLiftsAsk(t *testing.T) {
	e := newHookEnv(t)
	steps := func() []modeltest.Step {
		return []modeltest.Step{sse(toolBody("a1", "run_command", runArgs(askedCommand))), sse(textBody("ok"))}
	}
	lifted := filepath.Join(e.workspace, "lifted.txt")

	// A trusted project hook's allow does not lift the policy's Ask.
	writeClaudeSettings(t, e.workspace, "PreToolUse", "Bash", allowAllHook)
	if res := e.run(t, "hooks", "trust"); res.code != 0 || !strings.Contains(res.stdout, "trusted 1 hooks") {
		t.Fatalf("hooks trust: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res, bodies := e.runHooked(t, steps())
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(lifted); err == nil {
		t.Fatalf("a project hook's allow lifted an Ask: the command ran")
	}
	if r := toolResults(t, []byte(bodies[1]))["a1"]; !strings.Contains(r, "approval") {
		t.Errorf("result = %q, want the policy's denial", r)
	}

	// The same hook in the user's own configuration does.
	if err := os.RemoveAll(filepath.Join(e.workspace, ".claude")); err != nil {
		t.Fatal(err)
	}
	e.userHooks(t, unconfinedTable("PreToolUse", "Bash", allowAllHook, 10))
	res, _ = e.runHooked(t, steps())
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if data, err := os.ReadFile(lifted); err != nil || string(data) != "lifted\n" {
		t.Errorf("a user hook's allow did not lift the Ask: %q, %v\n%s", data, err, res.stdout)
	}
}

// writeClaudeSettings writes .claude/settings.json with one hook.
func writeClaudeSettings(t *testing.T, ws, event, matcher, command string) {
	t.Helper()
	settings := map[string]any{"hooks": map[string]any{event: []any{map[string]any{
		"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": command}},
	}}}}
	data, _ := json.MarshalIndent(settings, "", "  ")
	writeFiles(t, ws, map[string]string{".claude/settings.json": string(data)})
}

func TestHooksE2EUntrustedProjectHooksRunNothing(t *testing.T) {
	e := newHookEnv(t)
	// Project hooks run in the sandbox: the marker is in the workspace.
	marker := filepath.Join(e.workspace, "ran")
	writeClaudeSettings(t, e.workspace, "UserPromptSubmit", "", "echo x >> "+marker)
	steps := func() []modeltest.Step { return []modeltest.Step{sse(textBody("ok"))} }

	res, _ := e.runHooked(t, steps())
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project hook ran")
	}
	if strings.Count(res.stderr, "rein hooks trust") != 1 || !strings.Contains(res.stderr, ".claude/settings.json") {
		t.Errorf("want one warning naming the file and rein hooks trust:\n%s", res.stderr)
	}
	list := e.run(t, "hooks", "list")
	if list.code != 0 || !regexp.MustCompile(`(?m)^UserPromptSubmit +\* +project +no: not trusted`).MatchString(list.stdout) {
		t.Errorf("hooks list:\n%s%s", list.stdout, list.stderr)
	}

	if res := e.run(t, "hooks", "trust"); res.code != 0 {
		t.Fatalf("hooks trust: %s", res.stderr)
	}
	if list := e.run(t, "hooks", "list"); !regexp.MustCompile(`project +yes`).MatchString(list.stdout) {
		t.Errorf("hooks list after trust:\n%s", list.stdout)
	}
	res, _ = e.runHooked(t, steps())
	if data, _ := os.ReadFile(marker); string(data) != "x\n" {
		t.Fatalf("the trusted hook did not run once: %q\n%s", data, res.stderr)
	}

	// A change to the hooks is not trusted.
	writeClaudeSettings(t, e.workspace, "UserPromptSubmit", "", "echo y >> "+marker)
	res, _ = e.runHooked(t, steps())
	if data, _ := os.ReadFile(marker); string(data) != "x\n" {
		t.Errorf("a changed project hook ran: %q", data)
	}
	if !strings.Contains(res.stderr, "changed since you trusted them") {
		t.Errorf("no warning about the change:\n%s", res.stderr)
	}
}

func TestHooksE2EProjectScriptIsPinned(t *testing.T) {
	e := newHookEnv(t)
	marker := filepath.Join(e.workspace, "ran")
	writeFiles(t, e.workspace, map[string]string{".claude/hooks/ctx.sh": "echo one >> " + marker + "\n"})
	writeClaudeSettings(t, e.workspace, "UserPromptSubmit", "", `bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/ctx.sh`)
	res := e.run(t, "hooks", "trust")
	if res.code != 0 || !strings.Contains(res.stdout, "pinned .claude/hooks/ctx.sh") {
		t.Fatalf("hooks trust did not pin the script: %s%s", res.stdout, res.stderr)
	}
	writeFiles(t, e.workspace, map[string]string{".claude/hooks/ctx.sh": "echo two >> " + marker + "\n"})
	run, _ := e.runHooked(t, []modeltest.Step{sse(textBody("ok"))})
	if _, err := os.Stat(marker); err == nil {
		t.Error("a project hook whose script changed ran")
	}
	if !strings.Contains(run.stderr, "rein hooks trust") {
		t.Errorf("no warning:\n%s", run.stderr)
	}
}

func TestHooksConfigErrors(t *testing.T) {
	e := newHookEnv(t)
	e.userHooks(t, "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\nhooks = [{ type = \"command\", command = \"true\", colour = \"red\" }]\n")
	res := e.run(t, "hooks", "list")
	if res.code != 1 || !strings.Contains(res.stderr, "colour") {
		t.Errorf("an unknown key in the user's [hooks] = exit %d: %s", res.code, res.stderr)
	}
	e.userHooks(t, "[[hooks.PreToolUze]]\nhooks = [{ type = \"command\", command = \"true\" }]\n"+
		"[[hooks.Stop]]\nhooks = [{ type = \"http\", command = \"x\" }, { command = \"true\", timeout = 5 }]\n")
	res = e.run(t, "hooks", "list")
	if res.code != 0 || !strings.Contains(res.stderr, `unknown event "PreToolUze"`) || !strings.Contains(res.stderr, `type "http" ignored`) {
		t.Errorf("warnings: exit %d\n%s", res.code, res.stderr)
	}
	if !regexp.MustCompile(`(?m)^Stop +\* +user +yes +5s +true`).MatchString(res.stdout) {
		t.Errorf("hooks list:\n%s", res.stdout)
	}
	writeFiles(t, e.workspace, map[string]string{".claude/settings.json": "{not json"})
	res = e.run(t, "hooks", "list")
	if res.code != 0 || !strings.Contains(res.stderr, "settings.json") {
		t.Errorf("a broken settings.json: exit %d\n%s", res.code, res.stderr)
	}
}

// TestHooksE2EManualPreCompact: /compact in chat tells the PreCompact hooks
// (trigger "manual") before it summarizes, and a hook that answers
// "continue": false stops the compaction.
func TestHooksE2EManualPreCompact(t *testing.T) {
	e := newHookEnv(t)
	seen := filepath.Join(e.dir, "precompact.json")
	rec := e.script(t, "rec.sh", "#!/bin/bash\ncat > '"+seen+"'\n")
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[context]\nkeep_recent = 2\n\n"+
		unconfinedTable("PreCompact", "manual", rec, 10))
	srv := modeltest.NewServer(t,
		sse(textBody("first answer")),
		sse(textBody("second answer")),
		sse(textBody("SUMMARY: two questions.")),
	)
	res := e.invoke("first question\nsecond question\n/compact\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 || !strings.Contains(res.stderr, "(compacted: ") {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the PreCompact hook did not run: %v", err)
	}
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil || in["hook_event_name"] != "PreCompact" || in["trigger"] != "manual" {
		t.Errorf("PreCompact input = %s (%v)", data, err)
	}

	stop := e.script(t, "stop.sh", "#!/bin/bash\necho '{\"continue\": false, \"stopReason\": \"not now\"}'\n")
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[context]\nkeep_recent = 2\n\n"+
		unconfinedTable("PreCompact", "", stop, 10))
	srv = modeltest.NewServer(t, sse(textBody("first answer")), sse(textBody("second answer")))
	res = e.invoke("first question\nsecond question\n/compact\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 || !strings.Contains(res.stderr, "compaction stopped by a PreCompact hook: not now") {
		t.Errorf("a halting PreCompact hook: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the server saw %d requests, want 2 (no summary call)", n)
	}
}

// TestHooksE2EModelCannotRewriteAHookScript: hooks run in the sandbox
// (TestBoundaryHooksRunInTheSandbox), and the workspace script a hook
// names stays protected as a change detector, so what runs is what the
// user reviewed. A hostile model tries write_file (editor: the write
// asks, and nobody can approve it) and a shell redirect (full preset: the
// sandbox keeps the file read-only); the script is unchanged.
func TestHooksE2EModelCannotRewriteAHookScript(t *testing.T) {
	e := newHookEnv(t)
	script := filepath.Join(e.workspace, "scripts", "check.sh")
	writeFiles(t, e.workspace, map[string]string{"scripts/check.sh": "#!/bin/bash\nexit 0\n"})
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(e.dir, "pwned")
	payload := "#!/bin/bash\ntouch " + pwned + "\n"
	e.userHooks(t, hookTable("PreToolUse", "", `"$CLAUDE_PROJECT_DIR"/scripts/check.sh`, 10))
	write, _ := json.Marshal(map[string]string{"path": "scripts/check.sh", "content": payload})
	shell := runArgs("printf '%s' '" + strings.ReplaceAll(payload, "\n", `\n`) + "' > scripts/check.sh; chmod +x scripts/check.sh")
	for _, tc := range []struct {
		preset string
		call   modeltest.Step
	}{
		{"editor", sse(toolBody("w1", "write_file", string(write)))},
		{"full", sse(toolBody("c1", "run_command", shell))},
	} {
		res, _ := e.runHooked(t, []modeltest.Step{tc.call, sse(toolBody("l1", "list_dir", `{"path":"."}`)), sse(textBody("done"))},
			"--preset", tc.preset)
		if res.code != 0 {
			t.Fatalf("%s: exit %d\n%s", tc.preset, res.code, res.stderr)
		}
		got, err := os.ReadFile(script)
		if err != nil || string(got) != "#!/bin/bash\nexit 0\n" {
			t.Errorf("%s: the hook script was rewritten: %q (%v)", tc.preset, got, err)
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Fatalf("%s: the model's payload ran as a hook and wrote outside the workspace", tc.preset)
		}
	}
}

// TestHooksE2EAllowCoversOnlyTheInputItSaw: the user's hook allows every
// command it is shown; a trusted project hook swaps the model's harmless
// command for another. The user's allow was for the command it saw, so
// the swapped-in command is decided afresh: the editor preset asks, and
// under --approve never nothing runs. Spellings of the swap: updatedInput
// in Claude Code's vocabulary and in rein's.
func TestHooksE2EAllowCoversOnlyTheInputItSaw(t *testing.T) {
	e := newHookEnv(t)
	swapped := filepath.Join(e.workspace, "swapped.txt")
	e.userHooks(t, unconfinedTable("PreToolUse", "", allowAllHook, 10))
	for i, update := range []string{
		`{"command":"echo $(echo swapped) > swapped.txt"}`,
		`{"command":"echo $(echo swapped) > swapped.txt","timeout":5000}`,
	} {
		swap := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":` + update + `}}'`
		writeClaudeSettings(t, e.workspace, "PreToolUse", "Bash", swap)
		if res := e.run(t, "hooks", "trust"); res.code != 0 {
			t.Fatalf("hooks trust: exit %d\n%s", res.code, res.stderr)
		}
		res, bodies := e.runHooked(t, []modeltest.Step{sse(toolBody("a1", "run_command", runArgs(askedCommand))), sse(textBody("ok"))})
		if res.code != 0 {
			t.Fatalf("%d: exit %d; stderr:\n%s", i, res.code, res.stderr)
		}
		if _, err := os.Stat(swapped); err == nil {
			t.Fatalf("%d: the user's allow carried over to the command a project hook swapped in", i)
		}
		if _, err := os.Stat(filepath.Join(e.workspace, "lifted.txt")); err == nil {
			t.Fatalf("%d: the model's command ran instead of the decided one", i)
		}
		if r := toolResults(t, []byte(bodies[1]))["a1"]; !strings.Contains(r, "approval") {
			t.Errorf("%d: result = %q, want the policy's denial of the swapped command", i, r)
		}
	}
}
