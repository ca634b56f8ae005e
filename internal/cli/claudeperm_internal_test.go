package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/hooks"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/policy"
)

func writeSettingsFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadClaudePermsHostile: huge, truncated, wrongly typed and
// symlinked settings files give no rule and never stop rein; what
// concerns permissions is warned about, naming the file.
func TestLoadClaudePermsHostile(t *testing.T) {
	huge := `{"permissions":{"allow":["Bash"]},"x":"` + strings.Repeat("a", hooks.MaxSettingsBytes) + `"}`
	for _, c := range []struct {
		name, project, user, warn string
	}{
		{"huge project", huge, "", ""},
		{"huge user", "", huge, "~/.claude/settings.json: permissions not read"},
		{"truncated", `{"permissions":{"allow":["Bash"`, "", ""},
		{"truncated user", "", `{"permissions":{"deny":[`, "permissions not read"},
		{"wrong type", `{"permissions":{"allow":"Bash","deny":[true]}}`, "", ".claude/settings.json: permissions.allow is not a list"},
		{"garbage", "\xff\xfe\x00", "", ""},
		{"deep nesting", strings.Repeat("[", 100000), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, home := t.TempDir(), t.TempDir()
			if c.project != "" {
				writeSettingsFile(t, ws, ".claude/settings.json", c.project)
			}
			if c.user != "" {
				writeSettingsFile(t, home, ".claude/settings.json", c.user)
			}
			cp := loadClaudePerms(ws, home)
			if len(cp.project) != 0 || cp.user != nil {
				t.Errorf("rules were read: %+v %+v", cp.project, cp.user)
			}
			joined := strings.Join(cp.warnings, "\n")
			if c.warn != "" && !strings.Contains(joined, c.warn) {
				t.Errorf("warnings %q, want %q", cp.warnings, c.warn)
			}
			if c.warn == "" && c.user == "" && joined != "" && !strings.Contains(c.name, "wrong") {
				t.Errorf("unexpected warnings %q", cp.warnings)
			}
		})
	}
}

// TestLoadClaudePermsSymlinkOut: a settings file that is a symbolic link
// out of the workspace is not read (loadHooks reports it).
func TestLoadClaudePermsSymlinkOut(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	writeSettingsFile(t, outside, "evil.json", `{"permissions":{"allow":["Bash"]}}`)
	if err := os.MkdirAll(filepath.Join(ws, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "evil.json"), filepath.Join(ws, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	if cp := loadClaudePerms(ws, ""); len(cp.project) != 0 {
		t.Fatalf("a settings file leading out of the workspace was read: %+v", cp.project)
	}
}

// TestClaudePermsTrustPinsContent: trust covers the files as they are;
// any change to a file with allow rules needs trust again.
func TestClaudePermsTrustPinsContent(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	writeSettingsFile(t, ws, ".claude/settings.json", `{"permissions":{"allow":["Bash(go test:*)"]}}`)
	store := permissionsStore(state)
	cp := loadClaudePerms(ws, "")
	if st := cp.status(store, ws); st.Trusted {
		t.Fatal("trusted before rein hooks trust")
	}
	if applied := cp.apply(ws, false); len(applied.trusted) != 0 || len(applied.layers) != 1 || len(applied.layers[0].Config.Commands) != 0 {
		t.Fatalf("untrusted allow rules applied: %+v", applied.layers)
	}
	if _, err := cp.trust(store, ws); err != nil {
		t.Fatal(err)
	}
	if st := loadClaudePerms(ws, "").status(store, ws); !st.Trusted {
		t.Fatal("not trusted after trust")
	}
	applied := loadClaudePerms(ws, "").apply(ws, true)
	if len(applied.trusted) != 1 {
		t.Fatalf("trusted fingerprints = %v", applied.trusted)
	}
	writeSettingsFile(t, ws, ".claude/settings.json", `{"permissions":{"allow":["Bash(go test:*)"]}, "env":{}}`)
	if st := loadClaudePerms(ws, "").status(store, ws); st.Trusted || !st.Known {
		t.Fatalf("a changed file is trusted: %+v", st)
	}
	// Another workspace with the same file is not trusted.
	other := t.TempDir()
	writeSettingsFile(t, other, ".claude/settings.json", `{"permissions":{"allow":["Bash(go test:*)"]}}`)
	if st := loadClaudePerms(other, "").status(store, other); st.Trusted {
		t.Fatal("trust carried over to another workspace")
	}
}

// TestPolicyToolsClaudeMCPNames: [[policy.tools]] rules written in Claude
// Code's spelling of MCP tools decide rein's names too.
func TestPolicyToolsClaudeMCPNames(t *testing.T) {
	got := host.WithClaudeMCPNames([]policy.ToolRule{{Name: "mcp__github__create_issue", Action: "deny"}, {Name: "mcp__fs", Action: "ask"}, {Name: "read_file", Action: "allow"}})
	var names []string
	for _, r := range got {
		names = append(names, r.Name+":"+r.Action)
	}
	want := "mcp__github__create_issue:deny mcp__fs:ask read_file:allow github__create_issue:deny fs__*:ask"
	if strings.Join(names, " ") != want {
		t.Errorf("rules = %q, want %q", strings.Join(names, " "), want)
	}
}

// TestLoadClaudePermsInHome: run in the home directory, the user's file
// is read once, as the user's, and needs no trust.
func TestLoadClaudePermsInHome(t *testing.T) {
	home := t.TempDir()
	writeSettingsFile(t, home, ".claude/settings.json", `{"permissions":{"allow":["Bash(go test:*)"]}}`)
	cp := loadClaudePerms(home, home)
	if cp.user == nil || len(cp.project) != 0 || cp.hasProjectAllow() {
		t.Fatalf("user %v, project %+v", cp.user != nil, cp.project)
	}
}
