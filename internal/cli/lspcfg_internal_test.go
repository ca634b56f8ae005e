package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/lsp"
)

func TestLSPConfig(t *testing.T) {
	cfg, err := loadVerifyLayers(t,
		"[lsp]\nafter_edit = \"off\"\n[lsp.zig]\ncommand = \"/opt/zls\"\nargs = [\"--stdio\"]\nextensions = [\".ZIG\"]\nenv = { ZLS_LOG = \"1\" }\nlanguage_ids = { \".zig\" = \"zig\" }\n",
		"[lsp.evil]\ncommand = \"./run.sh\"\nextensions = [\".go\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	st, err := host.LoadLSP(cfg, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if st.AfterEdit {
		t.Error("after_edit = off not applied")
	}
	if len(st.Servers) == 0 || st.Servers[0].Name != "zig" || st.Servers[0].Command != "/opt/zls" ||
		st.Servers[0].Extensions[0] != ".zig" || st.Servers[0].Env["ZLS_LOG"] != "1" || !st.Servers[0].Handles("a.zig") {
		t.Fatalf("servers = %+v", st.Servers)
	}
	for _, s := range st.Servers {
		if s.Name == "evil" {
			t.Fatal("a project's language server is started without trust")
		}
	}
	if len(st.Project) != 1 || st.Project[0].Name != "evil" || !st.Project[0].Project {
		t.Fatalf("project servers = %+v", st.Project)
	}
	// Untrusted, it is left out with a warning; trusted, it is added.
	ws := t.TempDir()
	store := &host.TrustStore{Path: filepath.Join(t.TempDir(), lspTrustFile)}
	servers, warning := trustedLSP(st, store, ws)
	if len(servers) != len(st.Servers) || !strings.Contains(warning, "the workspace's language servers (evil) do not start: not trusted") {
		t.Errorf("untrusted: servers %+v, warning %q", servers, warning)
	}
	if _, err := store.TrustPins(ws, lspFingerprint(st.Project), lspPins(st.Project, ws)); err != nil {
		t.Fatal(err)
	}
	if servers, warning = trustedLSP(st, store, ws); warning != "" || len(servers) != len(st.Servers)+1 || servers[len(servers)-1].Name != "evil" {
		t.Errorf("trusted: servers %+v, warning %q", servers, warning)
	}
	// Another table is another fingerprint: trusted no longer.
	other := st
	other.Project = []lsp.Config{{Name: "evil", Command: "./other.sh", Extensions: []string{".go"}, Project: true}}
	if _, warning = trustedLSP(other, store, ws); !strings.Contains(warning, "changed since trusted") {
		t.Errorf("a changed table: warning %q", warning)
	}
	// The defaults come from the App's PATH, not the process's.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gopls"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err = host.LoadLSP(cfg, func(k string) string {
		if k == "PATH" {
			return "relative:" + bin
		}
		return ""
	})
	if err != nil || len(st.Servers) != 2 || st.Servers[1].Name != "go" || st.Servers[1].Command != filepath.Join(bin, "gopls") {
		t.Fatalf("with gopls on PATH: %+v, %v", st.Servers, err)
	}
	for _, bad := range []string{
		"[lsp]\nafter_edit = \"all\"\n",
		"[lsp]\nsettle = \"1s\"\n",
		"[lsp.x]\nextensions = [\".x\"]\n",
		"[lsp.x]\ncommand = \"x\"\n",
		"[lsp.x]\ncommand = \"x\"\nextensions = [\"x\"]\n",
		"[lsp.x]\ncommand = \"x\"\nextensions = [\".x\"]\nport = 3\n",
		"[lsp]\nafter_edit = 3\n",
	} {
		cfg, err := loadVerifyLayers(t, bad, "")
		if err == nil {
			_, err = host.LoadLSP(cfg, func(string) string { return "" })
		}
		if err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}
