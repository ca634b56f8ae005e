package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/model/modeltest"
)

// hostileParts are the controls planted text uses against a terminal:
// clipboard writes (OSC 52), window titles (OSC 0), hyperlinks (OSC 8),
// device control strings, APC, the one-byte C1 CSI (as UTF-8 and as a
// raw byte), bidi overrides and isolates, marks, and a carriage return.
var hostileParts = []string{
	"\x1b]52;c;cm0gLXJmIH4K\x07",
	"\x1b]0;pwned\x07",
	"\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
	"\x1bP+q544e\x1b\\",
	"\x1b_apc\x1b\\",
	"\u009b31m",
	"\x9b2J",
	"\u202egnp.exe\u202c",
	"\u2067iso\u2069",
	"\u200e\u200f\u061c",
	"\rok",
}

// hostile is all of hostileParts in one text, between words.
func hostile() string { return "start " + strings.Join(hostileParts, " mid ") + " end" }

// hostileName is a file or directory name made of them (no slash, no
// NUL: any file name can hold the rest).
func hostileName() string { return "evil\x1b]0;pwned\x07\u202e\x9b.txt" }

// assertInert fails if out holds anything a terminal would obey: a C0
// control other than newline and tab, DEL, a C1 control, a bidi or
// invisible format character, or invalid UTF-8.
func assertInert(t *testing.T, what, out string) {
	t.Helper()
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		bad := ""
		switch {
		case r == utf8.RuneError && size <= 1:
			bad = "invalid UTF-8"
		case (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f:
			bad = "a C0 control or DEL"
		case r >= 0x80 && r < 0xa0:
			bad = "a C1 control"
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			bad = "a bidi control"
		}
		if bad != "" {
			lo, hi := max(i-30, 0), min(i+30, len(out))
			t.Fatalf("%s prints %s raw (byte %d, %q):\n%q", what, bad, i, out[lo:hi], out)
		}
		i += size
	}
}

// assertEscaped fails unless out shows each form (the escaped spelling
// of planted text).
func assertEscaped(t *testing.T, what, out string, forms ...string) {
	t.Helper()
	for _, f := range forms {
		if !strings.Contains(out, f) {
			t.Errorf("%s does not show %q:\n%s", what, f, out)
		}
	}
}

// escapedForms are how hostile() reads once escaped (the raw \x9b byte
// is stored as U+FFFD: sessions hold UTF-8).
var escapedForms = []string{`\x1b]52;c;cm0gLXJmIH4K\x07`, `\x1b]0;pwned\x07`, `\x1bP+q544e\x1b\`, `\x1b_apc`, `\u009b31m`, `\u202egnp.exe\u202c`, `\u2067iso\u2069`, `\u200e\u200f\u061c`, `\rok`}

// hostileSession records a session whose title (the prompt), tool call
// (a read of a file with a hostile name), tool result (the file's
// content) and answer are hostile, and returns its ID.
func hostileSession(t *testing.T, e *env) string {
	t.Helper()
	name := hostileName()
	if err := os.WriteFile(filepath.Join(e.workspace, name), []byte(hostile()), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"path": strings.ToValidUTF8(name, "?")})
	// The model names the file validly (JSON is UTF-8); the raw byte is
	// in the file's content and in the prompt.
	if err := os.WriteFile(filepath.Join(e.workspace, strings.ToValidUTF8(name, "?")), []byte(strings.ToValidUTF8(hostile(), "")), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "read_file", string(args))),
		sse(textBody("answer: ", hostile())),
	)
	code, _, stderr := e.runBinary(t, "run", "-e", srv.URL, "title "+hostile())
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	assertInert(t, "rein run's stderr", stderr)
	code, out, stderr := e.runBinary(t, "sessions", "list", "--json")
	if code != 0 {
		t.Fatalf("sessions list --json: exit %d\n%s", code, stderr)
	}
	var info struct{ ID string }
	if err := json.Unmarshal([]byte(lines(out)[0]), &info); err != nil || info.ID == "" {
		t.Fatalf("sessions list --json: %v\n%s", err, out)
	}
	return info.ID
}

// TestSessionsCommandsEscape: `rein sessions list` (the title), `rein
// sessions show` (prompt, tool call, result, answer) print a hostile
// session inert and escaped; their JSON forms stay JSON that decodes to
// the planted text, with nothing raw a terminal obeys.
func TestSessionsCommandsEscape(t *testing.T) {
	e := newEnv(t)
	id := hostileSession(t, e)

	code, out, stderr := e.runBinary(t, "sessions", "list")
	if code != 0 {
		t.Fatalf("sessions list: exit %d\n%s", code, stderr)
	}
	assertInert(t, "sessions list", out)
	assertEscaped(t, "sessions list", out, `title start \x1b]52;c;`)
	if n := len(lines(out)); n != 2 {
		t.Errorf("sessions list prints %d lines, want a header and one row:\n%s", n, out)
	}

	code, out, stderr = e.runBinary(t, "sessions", "show", id)
	if code != 0 {
		t.Fatalf("sessions show: exit %d\n%s", code, stderr)
	}
	assertInert(t, "sessions show", out+stderr)
	assertEscaped(t, "sessions show", out, escapedForms...)
	// The arguments are JSON text: the model's \u001b escapes are shown
	// as written (their backslash doubled), the raw override escaped.
	assertEscaped(t, "sessions show", out, `read_file {"path":"evil\\u001b]0;pwned\\u0007\u202e?.txt"}`, `← 1 start \x1b]52;c;`)

	for _, args := range [][]string{{"sessions", "show", "--json", id}, {"sessions", "list", "--json"}} {
		code, out, stderr = e.runBinary(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		assertInert(t, strings.Join(args, " "), out)
		decoded := ""
		for _, l := range lines(out) {
			var v any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatalf("%v prints a line that is not JSON (%v): %q", args, err, l)
			}
			decoded += fmt.Sprint(v)
		}
		// The same JSON: it decodes to the planted text, raw.
		if !strings.Contains(decoded, hostileParts[0]) {
			t.Errorf("%v does not decode to the planted text:\n%q", args, decoded)
		}
		if !strings.Contains(out, `\u001b]52;c;`) || (args[1] == "show" && !strings.Contains(out, `\u009b31m`)) {
			t.Errorf("%v does not escape the planted text as JSON:\n%s", args, out)
		}
	}
}

// TestReplayDiffEscapes: `rein replay` prints the diff between the
// recorded and the replayed result; the file's new content is hostile.
func TestReplayDiffEscapes(t *testing.T) {
	e := newEnv(t)
	id := hostileSession(t, e)
	p := filepath.Join(e.workspace, strings.ToValidUTF8(hostileName(), "?"))
	if err := os.WriteFile(p, []byte(strings.ToValidUTF8("changed "+hostile()+"\nsecond line "+hostile(), "")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := e.runBinary(t, "replay", id)
	if code != 1 || !strings.Contains(out, "diverged") {
		t.Fatalf("replay: exit %d, want 1 with a divergence\n%s%s", code, out, stderr)
	}
	assertInert(t, "replay", out+stderr)
	assertEscaped(t, "replay", out, `changed start \x1b]52;c;`, `\u009b31m`, `\u202egnp`)
}

// hostileMCP serves, on loopback, an MCP server whose serverInfo,
// instructions, tool names, descriptions and results are hostile.
func hostileMCP(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "srv" + hostileParts[1], Title: hostile(), Version: "1" + hostileParts[0]},
		&sdk.ServerOptions{Instructions: hostile()})
	obj := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&sdk.Tool{Name: "echo", Description: hostile(), InputSchema: obj}, func(_ context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "result " + hostile()}}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "fails", Description: "x", InputSchema: obj}, func(_ context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "failure " + hostile()}}}, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestMCPCommandsEscape: `rein mcp list` (server name and version, the
// workspace's hostile server names, tools), its JSON, and `rein mcp
// call` (a result, an error result) print a hostile server inert.
func TestMCPCommandsEscape(t *testing.T) {
	e := newEnv(t)
	url := hostileMCP(t)
	e.writeUserConfig(t, fmt.Sprintf("[model]\ncontext_window = 32768\n\n[mcp_servers.h]\nurl = %q\n", url))
	// A workspace server's name is checked; the error quotes it inert.
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"ws" + hostileParts[1] + "\u202e": map[string]any{"command": "true"}}})
	writeFiles(t, e.workspace, map[string]string{".mcp.json": string(mcpJSON)})
	code, out, stderr := e.runBinary(t, "mcp", "list")
	if code != 1 {
		t.Fatalf("mcp list with a bad .mcp.json: exit %d\n%s%s", code, out, stderr)
	}
	assertInert(t, "mcp list's error", out+stderr)
	assertEscaped(t, "mcp list's error", stderr, `x1b]0;pwned`, `u202e`)
	os.Remove(filepath.Join(e.workspace, ".mcp.json"))

	code, out, stderr = e.runBinary(t, "mcp", "list")
	if code != 0 {
		t.Fatalf("mcp list: exit %d\n%s%s", code, out, stderr)
	}
	assertInert(t, "mcp list", out+stderr)
	assertEscaped(t, "mcp list", out+stderr, `srv\x1b]0;pwned\x07 1\x1b]52;c;`)

	code, out, stderr = e.runBinary(t, "mcp", "list", "--output-format", "json")
	if code != 0 {
		t.Fatalf("mcp list json: exit %d\n%s%s", code, out, stderr)
	}
	assertInert(t, "mcp list --output-format json", out+stderr)
	var views []map[string]any
	if err := json.Unmarshal([]byte(out), &views); err != nil {
		t.Fatalf("mcp list json is not JSON: %v\n%s", err, out)
	}
	if !strings.Contains(out, `srv\u001b]0;pwned\u0007`) {
		t.Errorf("the JSON lacks the escaped server name:\n%s", out)
	}

	code, out, stderr = e.runBinary(t, "mcp", "call", "h", "echo")
	if code != 0 {
		t.Fatalf("mcp call: exit %d\n%s%s", code, out, stderr)
	}
	assertInert(t, "mcp call", out+stderr)
	assertEscaped(t, "mcp call", out, append([]string{"result start "}, escapedForms...)...)

	code, out, stderr = e.runBinary(t, "mcp", "call", "h", "fails")
	if code != 1 {
		t.Fatalf("mcp call fails: exit %d, want 1\n%s%s", code, out, stderr)
	}
	assertInert(t, "mcp call (an error result)", out+stderr)
	assertEscaped(t, "mcp call (an error result)", stderr, `failure start \x1b]52;c;`)
}

// TestSkillsListAndStartupWarningsEscape: a repository's skill with a
// hostile directory name and description, and a broken one whose
// problem names its hostile path: `rein skills list` and the start-up
// warnings of `rein run` print them inert.
func TestSkillsListAndStartupWarningsEscape(t *testing.T) {
	e := newEnv(t)
	skills := filepath.Join(e.workspace, ".agents", "skills")
	writeFiles(t, skills, map[string]string{
		"good/SKILL.md":                "---\nname: good\ndescription: " + strings.ReplaceAll(hostile(), "\r", "") + "\n---\nbody",
		hostileName() + "/SKILL.md":    "---\nname: [broken\n---\nbody",
		"bad" + hostileParts[0] + "/x": "not a skill",
	})
	code, out, stderr := e.runBinary(t, "skills", "list")
	if code != 0 {
		t.Fatalf("skills list: exit %d\n%s%s", code, out, stderr)
	}
	assertInert(t, "skills list", out+stderr)
	assertEscaped(t, "skills list", out+stderr, `\x1b]52;c;`, `evil\x1b]0;pwned\x07\u202e\x9b.txt`)
	code, out, stderr = e.runBinary(t, "skills", "list", "--output-format", "json")
	if code != 0 {
		t.Fatalf("skills list --output-format json: exit %d\n%s%s", code, out, stderr)
	}
	assertInert(t, "skills list --output-format json", out+stderr)

	// An agent definition with a hostile file name and broken front
	// matter: its warning names the file.
	writeFiles(t, filepath.Join(e.workspace, ".claude", "agents"), map[string]string{hostileName() + ".md": "---\nname: [x\n---\n"})
	srv := modeltest.NewServer(t, sse(textBody("hi")))
	code, out, stderr = e.runBinary(t, "run", "-e", srv.URL, "hello")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, stderr)
	}
	assertInert(t, "rein run's start-up warnings", out+stderr)
	assertEscaped(t, "rein run's start-up warnings", stderr, `evil\x1b]0;pwned\x07\u202e\x9b.txt`, `agents/evil\x1b]0;pwned\x07\u202e\x9b.txt.md`)
}

// TestMCPTrustEscapes: `rein mcp trust` shows what a repository's server
// runs for the user to review: its hostile arguments are shown escaped,
// so the review reads what would run.
func TestMCPTrustEscapes(t *testing.T) {
	e := newEnv(t)
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"ws": map[string]any{
		"command": "true", "args": []string{"ok" + hostileParts[1] + "\r" + hostileParts[0], strings.ToValidUTF8(hostile(), "")},
	}}})
	writeFiles(t, e.workspace, map[string]string{".mcp.json": string(mcpJSON)})
	for _, args := range [][]string{{"mcp", "trust"}, {"mcp", "trust", "ws"}} {
		code, out, stderr := e.runBinary(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
		assertInert(t, strings.Join(args, " "), out+stderr)
		assertEscaped(t, strings.Join(args, " "), out, `ok\x1b]0;pwned\x07\r\x1b]52;c;`)
	}
}

// TestHooksAndPermissionsListEscape: a repository hook whose matcher
// and command are hostile, and a stored grant for a hostile command:
// `rein hooks list` and `rein permissions list` print them inert.
func TestHooksAndPermissionsListEscape(t *testing.T) {
	e := newEnv(t)
	writeClaudeSettings(t, e.workspace, "PreToolUse", "Bash"+hostileParts[1], "echo "+hostile())
	code, out, stderr := e.runBinary(t, "hooks", "list")
	if code != 0 {
		t.Fatalf("hooks list: exit %d\n%s%s", code, out, stderr)
	}
	assertInert(t, "hooks list", out+stderr)
	assertEscaped(t, "hooks list", out, `Bash\x1b]0;pwned\x07`, `echo start \x1b]52;c;`)

	ws, err := filepath.EvalSymlinks(e.workspace)
	if err != nil {
		t.Fatal(err)
	}
	grants, _ := json.Marshal(map[string]any{"version": 1, "workspaces": map[string]any{ws: []any{
		map[string]any{"command": []string{"echo", hostile()}, "added": time.Now().UTC()},
		map[string]any{"tool": "srv__" + hostileParts[1], "added": time.Now().UTC()},
	}}})
	writeFiles(t, filepath.Join(e.home, ".local", "state", "rein"), map[string]string{"permissions.json": string(grants)})
	code, out, stderr = e.runBinary(t, "permissions", "list")
	if code != 0 {
		t.Fatalf("permissions list: exit %d\n%s%s", code, out, stderr)
	}
	assertInert(t, "permissions list", out+stderr)
	assertEscaped(t, "permissions list", out, `echo start \x1b]52;c;`, `srv__\x1b]0;pwned\x07`)
}

// TestErrorsQuotingServersEscape: a model server whose error body is
// hostile: the one-line error rein prints quotes it inert.
func TestErrorsQuotingServersEscape(t *testing.T) {
	e := newEnv(t)
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "bad " + hostile()}})
	srv := modeltest.NewServer(t, modeltest.Status(400, map[string]string{"Content-Type": "application/json"}, string(body)),
		modeltest.Status(400, map[string]string{"Content-Type": "text/plain"}, "plain "+hostile()))
	for range 2 {
		code, out, stderr := e.runBinary(t, "run", "-e", srv.URL, "hello")
		if code == 0 {
			t.Fatalf("run against a failing server: exit 0\n%s", stderr)
		}
		assertInert(t, "rein run's error", out+stderr)
	}
}
