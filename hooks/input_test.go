package hooks

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/model"
)

// TestHookInputIsRedacted is the attack on hook stdin: a registered
// secret, and one rein only knows by its shape, travel in a call's
// arguments, its result (wrapped base64 and hex, as base64 and xxd -p
// print them), the prompt, the final answer and a notification. A hook
// that saves its stdin saves none of them, and still gets valid JSON
// with the session id.
func TestHookInputIsRedacted(t *testing.T) {
	needBash(t)
	const key = "hk-Sec/ret+9xQ2mZ7wL4vN1"
	const bearer = "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig"
	secret.Register(key)
	leaks := []string{key, base64.StdEncoding.EncodeToString([]byte("KEY=" + key + "\n")), hex.EncodeToString([]byte(key)), url.QueryEscape(key)}
	text := strings.Join(leaks, " ") + " " + bearer
	wrapped := wrapAt(base64.StdEncoding.EncodeToString([]byte("AWS_SECRET_ACCESS_KEY="+key+"\n")), 76) + "\n" +
		wrapAt(hex.EncodeToString([]byte("DB_PASS="+key+"\n")), 60)

	ws := t.TempDir()
	dump := filepath.Join(ws, "stdin.jsonl")
	cmd := `cat >> ` + dump + `; echo >> ` + dump
	var hooks []testHook
	for _, ev := range []agent.SteerEvent{agent.SteerPreToolUse, agent.SteerPostToolUse, agent.SteerUserPromptSubmit, agent.SteerStop, agent.SteerNotification} {
		hooks = append(hooks, testHook{event: ev, command: cmd})
	}
	r, _ := newTestRunner(t, ws, hooks...)
	args, _ := json.Marshal(map[string]string{"command": "echo " + text, "password": "pw-not-registered-77"})
	call := &model.ToolCall{ID: "call_1", Name: "run_command", Args: args}
	steer(t, r, agent.SteerPoint{Event: agent.SteerPreToolUse, Call: call})
	steer(t, r, agent.SteerPoint{Event: agent.SteerPostToolUse, Call: call, Result: &model.ToolResult{CallID: "call_1", Content: "exit code 0\n" + wrapped + "\n" + text}})
	steer(t, r, agent.SteerPoint{Event: agent.SteerUserPromptSubmit, Prompt: "use " + text})
	steer(t, r, agent.SteerPoint{Event: agent.SteerStop, Text: "done: " + text})
	steer(t, r, agent.SteerPoint{Event: agent.SteerNotification, Text: "approve " + text + "?"})

	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.NewReplacer("\n", "", `\n`, "").Replace(string(data))
	for _, l := range append(leaks, "eyJhbGciOiJIUzI1NiJ9", "pw-not-registered-77",
		base64.StdEncoding.EncodeToString([]byte("AWS_SECRET_ACCESS_KEY=" + key + "\n"))[28:60], hex.EncodeToString([]byte(key))) {
		if strings.Contains(flat, l) {
			t.Errorf("hook stdin holds %q", l)
		}
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 5 {
		t.Fatalf("the hooks saw %d inputs, want 5:\n%s", len(lines), data)
	}
	for _, line := range lines {
		var in map[string]any
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("hook input is not JSON: %v\n%s", err, line)
		}
		if in["session_id"] != "sess-1" {
			t.Errorf("session_id = %v: redaction took the hook's session id", in["session_id"])
		}
		if !strings.Contains(line, "[REDACTED]") {
			t.Errorf("no redaction marker in %s", line)
		}
	}
}

func wrapAt(s string, width int) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + "\n")
		s = s[width:]
	}
	return b.String() + s
}
