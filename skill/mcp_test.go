package skill_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/skill"
)

// TestManifestServersParseAsMCPJSON: a manifest's mcp_servers reach the
// mcp package's own parser intact, as the wiring will use them.
func TestManifestServersParseAsMCPJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ci")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"name":"ci","description":"CI helpers.","system_prompt_file":"p.md",
		"mcp_servers":{"runner":{"command":"ci-runner","args":["--stdio"],"env":{"TOKEN":"${CI_TOKEN}"}},
		"web":{"type":"http","url":"http://127.0.0.1:9/mcp"}}}`
	for name, content := range map[string]string{"skill.json": manifest, "p.md": "Use the runner."} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, ps := skill.Load(dir, skill.LayerProject)
	if s == nil || len(ps) != 0 {
		t.Fatal(ps)
	}
	servers, err := mcp.ParseMCPJSON(s.MCPJSON(), s.File, func(k string) string { return map[string]string{"CI_TOKEN": "t0ken"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].Name != "runner" || servers[0].Command != "ci-runner" || servers[1].Transport != mcp.TransportStreamable {
		t.Errorf("servers = %v", servers)
	}
}
