package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPListShowsUntrustedServers: in a fresh clone whose .mcp.json
// defines a server, rein mcp list shows it as untrusted with the command
// that trusts it (it said "No MCP servers are configured"), and does not
// start it.
func TestMCPListShowsUntrustedServers(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.home, "started")
	writeFiles(t, e.workspace, map[string]string{".mcp.json": fmt.Sprintf(`{"mcpServers":{"repo":{"command":"sh","args":["-c","touch %s"]}}}`, marker)})
	res := e.run(t, "mcp", "list")
	if res.code != 0 {
		t.Fatalf("exit %d stderr %s", res.code, res.stderr)
	}
	if strings.Contains(res.stdout, "No MCP servers are configured") {
		t.Errorf("the untrusted server is not listed:\n%s", res.stdout)
	}
	for _, want := range []string{"repo    untrusted  stdio", ".mcp.json) defined by the workspace and not trusted", "Review it, then run: rein mcp trust repo"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("listing started the untrusted server")
	}
	res = e.run(t, "mcp", "list", "--output-format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil {
		t.Fatalf("json: %v\n%s", err, res.stdout)
	}
	if len(rows) != 1 || rows[0]["name"] != "repo" || rows[0]["state"] != "untrusted" || !strings.Contains(fmt.Sprint(rows[0]["error"]), "rein mcp trust repo") {
		t.Errorf("json rows %v", rows)
	}
}
