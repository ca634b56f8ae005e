package cli_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace/sandbox"
)

// TestProtectedListsAgree: the paths the sandbox binds read-only and the
// paths whose writes the policy makes ask are one list, seen from two
// sides; a name added to one must be added to the other.
func TestProtectedListsAgree(t *testing.T) {
	ws := t.TempDir()
	e, err := policy.NewEngine(policy.EngineConfig{Workspace: ws, Home: t.TempDir(), Layers: []policy.Layer{
		{Kind: policy.LayerUser, Source: "test", Config: policy.Config{Preset: string(policy.PresetFull)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	write := tool.Spec{Name: "write_file", Effects: tool.Effects{WritesFiles: true, PathArgs: []string{"path"}}}
	var sandboxed []string
	for _, p := range sandbox.DefaultProtected(ws) {
		rel, _ := filepath.Rel(ws, p)
		rel = filepath.ToSlash(rel)
		sandboxed = append(sandboxed, rel)
		targets := []string{rel}
		if !slices.Contains([]string{".git/config", ".git/config.worktree", ".git/commondir", ".mcp.json", ".envrc"}, rel) {
			targets = append(targets, rel+"/x") // a directory: what is inside is protected too
		}
		for _, target := range targets {
			args, _ := json.Marshal(map[string]string{"path": target})
			if d := e.Decide(t.Context(), policy.Call{ID: "c", Spec: write, Args: args}); d.Action == policy.Allow {
				t.Errorf("the sandbox protects %s, but the policy allows writing %s under full", rel, target)
			}
		}
	}
	for _, name := range append([]string{".git/config", ".git/config.worktree", ".git/commondir", ".git/hooks"}, policy.ProtectedNames()...) {
		if !slices.Contains(sandboxed, name) {
			t.Errorf("the policy protects %s, but the sandbox does not bind it read-only", name)
		}
	}
}
