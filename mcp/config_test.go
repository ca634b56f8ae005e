package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/config"
)

// loadTOML writes content as a --config file and parses its
// [mcp_servers] tables.
func loadTOML(t *testing.T, content string, env map[string]string) ([]ServerConfig, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return env[k] }
	c, err := config.Load(config.LoadOptions{File: path, Getenv: getenv})
	if err != nil {
		t.Fatalf("config.Load: %v", err)
	}
	servers, err := ParseSections(c.Sections("mcp_servers"), getenv)
	return servers, path, err
}

func TestParseSections(t *testing.T) {
	servers, path, err := loadTOML(t, `
[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"]
env = { DEBUG = "1", TOKEN = "${GH_TOKEN}" }
env_vars = ["NODE_OPTIONS"]
cwd = "/tmp"
enabled_tools = ["read_file"]
disabled_tools = ["write_file"]
startup_timeout = "20s"
tool_timeout_sec = 90
probe_timeout = 1.5
required = true
tasks = "Always"

[mcp_servers.web]
url = "https://example.com/mcp"
headers = { X-Team = "core" }
bearer_token_env_var = "WEB_TOKEN"
transport = "sse"
protocol_version = "2025-06-18"

[mcp_servers.off]
command = "true"
enabled = false
`, map[string]string{"HOME": "/home/u", "GH_TOKEN": "ghp_secretsecret"})
	if err != nil {
		t.Fatal(err)
	}
	want := []ServerConfig{
		{
			Name: "fs", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/u/src"},
			Env: Secrets{"DEBUG": "1", "TOKEN": "ghp_secretsecret"}, EnvVars: []string{"NODE_OPTIONS"}, Cwd: "/tmp",
			EnabledTools: []string{"read_file"}, DisabledTools: []string{"write_file"},
			StartupTimeout: 20 * time.Second, ToolTimeout: 90 * time.Second, ProbeTimeout: 1500 * time.Millisecond,
			Required: true, Tasks: TasksAlways, Source: "file " + path + ":2",
		},
		{Name: "off", Command: "true", Disabled: true, Source: "file " + path + ":23"},
		{
			Name: "web", URL: "https://example.com/mcp", Headers: Secrets{"X-Team": "core"}, BearerTokenEnvVar: "WEB_TOKEN",
			Transport: TransportSSE, ProtocolVersion: Protocol250618, Source: "file " + path + ":16",
		},
	}
	if diff := cmp.Diff(want, servers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

func TestParseSectionsOAuth(t *testing.T) {
	servers, _, err := loadTOML(t, `
[mcp_servers.remote]
url = "https://example.com/mcp"
[mcp_servers.remote.oauth]
client_id = "rein"
client_secret_env_var = "REMOTE_SECRET"
redirect_url = "http://127.0.0.1:53682/callback"
scopes = ["read"]
`, map[string]string{"REMOTE_SECRET": "shh-secret-value"})
	if err != nil {
		t.Fatal(err)
	}
	want := &OAuthConfig{ClientID: "rein", ClientSecret: "shh-secret-value", RedirectURL: "http://127.0.0.1:53682/callback", Scopes: []string{"read"}}
	if diff := cmp.Diff(want, servers[0].OAuth); diff != "" {
		t.Errorf("oauth (-want +got):\n%s", diff)
	}
	if _, _, err := loadTOML(t, "[mcp_servers.r]\nurl = \"https://h/\"\n[mcp_servers.r.oauth]\nredirect_url = \"http://127.0.0.1/cb\"\nclient_secret_env_var = \"NOPE\"\n", nil); err == nil || !strings.Contains(err.Error(), "mcp_servers.r.oauth.client_secret_env_var: $NOPE is not set") {
		t.Errorf("unset secret variable: %v", err)
	}
}

func TestParseSectionsLaterLayerWins(t *testing.T) {
	root := t.TempDir()
	user := filepath.Join(root, "user.toml")
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".rein"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("[mcp_servers.a]\ncommand = \"one\"\n[mcp_servers.b]\ncommand = \"b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".rein", "config.toml"), []byte("[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	c, err := config.Load(config.LoadOptions{File: user, Workspace: ws, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	servers, err := ParseSections(c.Sections("mcp_servers"), getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].URL != "http://127.0.0.1:1/mcp" || servers[0].Command != "" || servers[1].Command != "b" {
		t.Errorf("servers = %+v, want a from the project layer (url only) and b from the user layer", servers)
	}
	if !servers[0].Project || servers[1].Project {
		t.Errorf("Project = %v, %v; want only the project layer's server marked", servers[0].Project, servers[1].Project)
	}
}

// TestLoadServers: .mcp.json servers are overridden by name by the TOML
// layers, and marked as the project's.
func TestLoadServers(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(`{"mcpServers":{"a":{"command":"from-json"},"j":{"url":"http://127.0.0.1:9/mcp"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(user, []byte("[mcp_servers.a]\ncommand = \"from-toml\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	c, err := config.Load(config.LoadOptions{File: user, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	servers, err := LoadServers(c, ws, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].Command != "from-toml" || servers[0].Project || !servers[1].Project || servers[1].Source != filepath.Join(ws, ".mcp.json") {
		t.Errorf("servers = %+v", servers)
	}
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(`{`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadServers(c, ws, getenv); err == nil || !strings.Contains(err.Error(), ".mcp.json") {
		t.Errorf("broken .mcp.json: %v", err)
	}
}

func TestParseSectionsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, toml, want string
	}{
		{"unknown key", "[mcp_servers.fs]\ncommand = \"x\"\ncomand = \"y\"\n", `:3: unknown key "mcp_servers.fs.comand"`},
		{"no command or url", "[mcp_servers.fs]\nargs = []\n", `:1: mcp_servers.fs.command: set command (a stdio server) or url (an HTTP server)`},
		{"both", "[mcp_servers.fs]\ncommand = \"x\"\nurl = \"http://h/\"\n", `:3: mcp_servers.fs.url: set either command (stdio) or url (HTTP), not both`},
		{"bad name", "[mcp_servers.\"a__b\"]\ncommand = \"x\"\n", `[mcp_servers.a__b]: server name "a__b" may use only letters`},
		{"bad url", "[mcp_servers.w]\nurl = \"ftp://h/\"\n", `:2: mcp_servers.w.url: must be an http:// or https:// URL`},
		{"bad transport", "[mcp_servers.w]\nurl = \"http://h/\"\ntransport = \"ws\"\n", `:3: mcp_servers.w.transport: "ws" is not auto, streamable or sse`},
		{"stdio transport on url", "[mcp_servers.w]\ncommand = \"x\"\ntransport = \"sse\"\n", `mcp_servers.w.transport: "sse" needs a url`},
		{"bad duration", "[mcp_servers.w]\ncommand = \"x\"\nstartup_timeout = \"soon\"\n", `"soon" is not a duration`},
		{"negative duration", "[mcp_servers.w]\ncommand = \"x\"\ntool_timeout = -3\n", `a duration must be positive`},
		{"probe too long", "[mcp_servers.w]\ncommand = \"x\"\nstartup_timeout = 2\nprobe_timeout = 3\n", `mcp_servers.w.probe_timeout: 3s must be shorter than startup_timeout (2s)`},
		{"both timeouts", "[mcp_servers.w]\ncommand = \"x\"\ntool_timeout = 2\ntool_timeout_sec = 3\n", `mcp_servers.w.tool_timeout_sec: set tool_timeout or tool_timeout_sec, not both`},
		{"unset var", "[mcp_servers.w]\ncommand = \"x\"\nenv = { A = \"${NOPE}\" }\n", `:3: mcp_servers.w.env.A: ${NOPE} is not set`},
		{"headers on stdio", "[mcp_servers.w]\ncommand = \"x\"\nheaders = { A = \"b\" }\n", `mcp_servers.w.headers: headers, bearer_token_env_var and oauth apply only to url servers`},
		{"pinned version", "[mcp_servers.w]\ncommand = \"x\"\nprotocol_version = \"2099-01-01\"\n", `mcp_servers.w.protocol_version: "2099-01-01" is not one of`},
		{"bad tasks", "[mcp_servers.w]\ncommand = \"x\"\ntasks = \"sometimes\"\n", `:3: mcp_servers.w.tasks: "sometimes" is not auto, always or never`},
		{"type error", "[mcp_servers.w]\ncommand = \"x\"\nargs = \"one\"\n", `config: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, path, err := loadTOML(t, tc.toml, nil)
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("error %v does not wrap ErrInvalidConfig", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error = %v\nwant it to name %s and contain %q", err, path, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestErrorsNeverShowSecrets(t *testing.T) {
	const secret = "s3cr3t-value-xyz"
	// A bad header name next to a secret value, and a bad env name.
	for _, body := range []string{
		"[mcp_servers.w]\nurl = \"http://h/\"\nheaders = { \"bad name\" = \"" + secret + "\" }\n",
		"[mcp_servers.w]\ncommand = \"x\"\nenv = { \"1BAD\" = \"" + secret + "\" }\n",
		"[mcp_servers.w]\ncommand = \"x\"\nenv = { A = \"" + secret + "${MISSING}\" }\n",
	} {
		_, _, err := loadTOML(t, body, nil)
		if err == nil {
			t.Fatalf("no error for %q", body)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error leaks the secret: %v", err)
		}
	}
	sc := ServerConfig{Name: "w", URL: "http://h/", Headers: Secrets{"Authorization": "Bearer " + secret}, Env: Secrets{"K": secret}}
	for _, s := range []string{fmt.Sprint(sc), fmt.Sprintf("%+v", sc), fmt.Sprintf("%#v", sc)} {
		if strings.Contains(s, secret) {
			t.Errorf("formatting a ServerConfig leaks the secret: %s", s)
		}
	}
	data, err := json.Marshal(sc)
	if err != nil || strings.Contains(string(data), secret) {
		t.Errorf("json of a ServerConfig leaks the secret or fails: %s %v", data, err)
	}
}

func TestParseMCPJSON(t *testing.T) {
	data := `{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "server-filesystem", "${WS:-/w}"], "env": {"K": "${KEY}"}},
		"remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOK}"}},
		"legacy": {"type": "sse", "url": "http://127.0.0.1:3001/sse"},
		"auto": {"url": "http://127.0.0.1:3001/mcp", "alwaysAllow": ["x"]},
		"off": {"command": "x", "disabled": true, "tasks": "never"}
	}}`
	env := map[string]string{"KEY": "k-value-123", "TOK": "tok-value-456"}
	got, err := ParseMCPJSON([]byte(data), ".mcp.json", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := []ServerConfig{
		{Name: "auto", URL: "http://127.0.0.1:3001/mcp", Source: ".mcp.json"},
		{Name: "fs", Command: "npx", Args: []string{"-y", "server-filesystem", "/w"}, Env: Secrets{"K": "k-value-123"}, Source: ".mcp.json"},
		{Name: "legacy", URL: "http://127.0.0.1:3001/sse", Transport: TransportSSE, Source: ".mcp.json"},
		{Name: "off", Command: "x", Disabled: true, Tasks: TasksNever, Source: ".mcp.json"},
		{Name: "remote", URL: "https://example.com/mcp", Transport: TransportStreamable, Headers: Secrets{"Authorization": "Bearer tok-value-456"}, Source: ".mcp.json"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

func TestParseMCPJSONErrors(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"truncated", `{"mcpServers": `, `.mcp.json: invalid JSON at line 1`},
		{"garbage", "\x00\x01", `.mcp.json: invalid JSON at line 1`},
		{"servers not object", `{"mcpServers": []}`, `a JSON array where map`},
		{"server not object", `{"mcpServers": {"a": 3}}`, `mcpServers.a.: expected an object`},
		{"args type", `{"mcpServers": {"a": {"command": "x", "args": "y"}}}`, `mcpServers.a.args: expected an array of strings, got a JSON string`},
		{"env type", `{"mcpServers": {"a": {"command": "x", "env": {"A": 1}}}}`, `mcpServers.a.env: expected an object of strings, got a JSON number`},
		{"bad tasks", `{"mcpServers": {"a": {"command": "x", "tasks": "yes"}}}`, `mcpServers.a.tasks: "yes" is not auto, always or never`},
		{"bad type", `{"mcpServers": {"a": {"type": "ws", "url": "http://h"}}}`, `mcpServers.a.type: "ws" is not stdio, http or sse`},
		{"bad name", `{"mcpServers": {"a b": {"command": "x"}}}`, `server name "a b" may use only`},
		{"missing var", `{"mcpServers": {"a": {"command": "x", "args": ["${NOPE}"]}}}`, `mcpServers.a.args: ${NOPE} is not set`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseMCPJSON([]byte(tc.json), ".mcp.json", func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
			if err != nil && !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("err %v does not wrap ErrInvalidConfig", err)
			}
		})
	}
}

func TestLoadMCPJSON(t *testing.T) {
	dir := t.TempDir()
	got, err := LoadMCPJSON(filepath.Join(dir, ".mcp.json"), nil)
	if err != nil || got != nil {
		t.Errorf("missing file: %v, %v; want no servers and no error", got, err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxMCPJSONBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadMCPJSON(big, nil); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: err = %v", err)
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": ""}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"$A and $", "$A and $", ""},
		{"${A}", "1", ""},
		{"x${A}y${A}", "x1y1", ""},
		{"${B:-def}", "def", ""},
		{"${EMPTY:-def}", "def", ""},
		{"${B:-}", "", ""},
		{"${B}", "", "${B} is not set"},
		{"${A", "", "unterminated"},
		{"${1A}", "", "does not name"},
		{"${}", "", "does not name"},
	} {
		got, err := expand(tc.in, getenv)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("expand(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		sc   ServerConfig
		want string
	}{
		{ServerConfig{Name: "ok", Command: "x"}, ""},
		{ServerConfig{Name: "", Command: "x"}, "needs a name"},
		{ServerConfig{Name: strings.Repeat("a", 33), Command: "x"}, "longer than 32"},
		{ServerConfig{Name: "_a", Command: "x"}, "may use only"},
		{ServerConfig{Name: "a_", Command: "x"}, "may use only"},
		{ServerConfig{Name: "a-b_c", Command: "x"}, ""},
		{ServerConfig{Name: "h", URL: "http://user:pw@h/"}, "must not carry credentials"},
		{ServerConfig{Name: "h", URL: "http://h/", OAuth: &OAuthConfig{RedirectURL: "http://127.0.0.1:9/cb", ClientMetadataURL: "http://x/y"}}, "client_metadata_url"},
		{ServerConfig{Name: "h", URL: "http://h/", OAuth: &OAuthConfig{}}, ""}, // rein mcp login picks the redirect
		{ServerConfig{Name: "h", URL: "http://h/", OAuth: &OAuthConfig{RedirectURL: "127.0.0.1:9/cb"}}, "oauth.redirect_url: must be an http"},
		{ServerConfig{Name: "h", Command: "x", EnabledTools: []string{""}}, "must not be empty"},
	} {
		err := tc.sc.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", tc.sc, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: err = %v, want %q", tc.sc, err, tc.want)
		}
	}
}
