package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpRun runs `rein mcp ARGS` in-process with a config file holding toml
// and returns the exit code and output, mapping errors as App.Run does.
func mcpRun(t *testing.T, toml string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	env := map[string]string{"HOME": dir}
	a := &App{
		Stdin:  strings.NewReader(stdin),
		Stdout: &stdout,
		Stderr: &stderr,
		Getenv: func(k string) string { return env[k] },
		Getwd:  func() (string, error) { return dir, nil },
	}
	cmd := NewMCPCommand(a)
	cmd.SetArgs(append(args, "--config", cfgPath))
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := cmd.ExecuteContext(ctx)
	var (
		ee *exitError
		ue *usageError
	)
	switch {
	case err == nil:
		return ExitOK, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.code, stdout.String(), stderr.String()
	case errors.As(err, &ue):
		return ExitUsage, stdout.String(), stderr.String() + ue.msg
	}
	return ExitUsage, stdout.String(), stderr.String() + err.Error()
}

// everythingTOML configures server-everything over stdio, or skips (fails
// under REIN_REQUIRE_INTEROP=1) when the npm peers are not installed.
func everythingTOML(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("REIN_INTEROP_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "interop")
	}
	dir, _ = filepath.Abs(dir)
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	js := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	for _, p := range []string{node, js} {
		if _, err := os.Stat(p); err != nil {
			msg := "INTEROP PEER MISSING: " + p + " (run scripts/test)"
			if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
				t.Fatal(msg)
			}
			t.Skip("SKIPPED: " + msg)
		}
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return "[mcp_servers.every]\ncommand = " + q(node) + "\nargs = [" + q(js) + ", \"stdio\"]\n"
}

func TestMCPListCallPrompt(t *testing.T) {
	cfg := everythingTOML(t) + "\n[mcp_servers.broken]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"echo cannot start >&2; exit 7\"]\n"

	code, out, errOut := mcpRun(t, cfg, "", "list")
	if code != ExitOK {
		t.Fatalf("list: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"SERVER", "every", "connected", "stdio", "2025-11-25", "every__echo", "broken", "failed", "exited with status 7", "cannot start"} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = mcpRun(t, cfg, "", "list", "--output-format", "json")
	var sts []statusView
	if code != ExitOK || json.Unmarshal([]byte(out), &sts) != nil || len(sts) != 2 || sts[1].Era != "2025-11-25" || len(sts[1].Tools) == 0 || sts[0].Error == "" {
		t.Errorf("list --json: exit %d, %+v\n%s", code, sts, out)
	}

	code, out, errOut = mcpRun(t, cfg, "", "call", "every", "echo", `{"message":"hi from the cli"}`)
	if code != ExitOK || strings.TrimSpace(out) != "Echo: hi from the cli" {
		t.Errorf("call: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = mcpRun(t, cfg, `{"a":1,"b":2}`, "call", "every", "get-sum", "-", "--output-format", "json")
	if code != ExitOK || !strings.Contains(out, `"is_error": false`) || !strings.Contains(out, "3") {
		t.Errorf("call from stdin: exit %d, %s", code, out)
	}
	code, _, errOut = mcpRun(t, cfg, "", "call", "every", "get-sum", `{"a":"x"}`)
	if code != ExitFailed || errOut == "" {
		t.Errorf("call with bad arguments: exit %d, stderr %q; want 1 and the server's error", code, errOut)
	}

	code, out, _ = mcpRun(t, cfg, "", "prompt", "every")
	if code != ExitOK || !strings.Contains(out, "simple-prompt") || !strings.Contains(out, "args-prompt") {
		t.Errorf("prompt list: exit %d\n%s", code, out)
	}
	code, out, _ = mcpRun(t, cfg, "", "prompt", "every", "simple-prompt")
	if code != ExitOK || !strings.Contains(out, "[user]\nThis is a simple prompt without arguments.") {
		t.Errorf("prompt get: exit %d\n%s", code, out)
	}
}

func TestMCPCommandErrors(t *testing.T) {
	cfg := "[mcp_servers.sh]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"exit 3\"]\n"
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown server", []string{"call", "nope", "t"}, ExitUsage, `unknown MCP server "nope"; configured: sh`},
		{"bad json", []string{"call", "sh", "t", "[1]"}, ExitUsage, "must be a JSON object"},
		{"missing tool", []string{"call", "sh"}, ExitUsage, "usage: rein mcp call SERVER TOOL [JSON]"},
		{"server fails", []string{"call", "sh", "t"}, ExitFailed, `mcp server "sh"`},
		{"bad prompt args", []string{"prompt", "sh", "p", `{"a":1}`}, ExitUsage, "JSON object of strings"},
		{"bad format", []string{"list", "--output-format", "yaml"}, ExitUsage, "--output-format must be text or json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := mcpRun(t, cfg, "", tc.args...)
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("exit %d (want %d), output %q, want %q", code, tc.code, out+errOut, tc.want)
			}
		})
	}
	code, out, errOut := mcpRun(t, "[mcp_servers.x]\nurl = \"ftp://x\"\n", "", "list")
	if code != ExitFailed || !strings.Contains(errOut, "mcp_servers.x.url") {
		t.Errorf("bad config: exit %d, %q %q", code, out, errOut)
	}
	code, out, _ = mcpRun(t, "", "", "list")
	if code != ExitOK || !strings.Contains(out, "No MCP servers are configured") {
		t.Errorf("no servers: exit %d, %q", code, out)
	}
}
