package policy

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/tool"
)

// Specs shaped like the coding toolset's, declared by effects.
var (
	specReadFile   = tool.Spec{Name: "read_file", Effects: tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}}
	specWriteFile  = tool.Spec{Name: "write_file", Effects: tool.Effects{WritesFiles: true, PathArgs: []string{"path"}}}
	specEditFile   = tool.Spec{Name: "edit_file", Effects: tool.Effects{ReadsFiles: true, WritesFiles: true, PathArgs: []string{"path"}}}
	specApplyPatch = tool.Spec{Name: "apply_patch", Effects: tool.Effects{ReadsFiles: true, WritesFiles: true}}
	specListDir    = tool.Spec{Name: "list_dir", Effects: tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}}
	specGlob       = tool.Spec{Name: "glob", Effects: tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}}
	specGrep       = tool.Spec{Name: "grep", Effects: tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}}
	specRun        = tool.Spec{Name: "run_command", Effects: tool.Effects{Exec: true, CommandArg: "command", PathArgs: []string{"cwd"}}}
	specGitStatus  = tool.Spec{Name: "git_status", Effects: tool.Effects{ReadsFiles: true}}
	specGitDiff    = tool.Spec{Name: "git_diff", Effects: tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}}
	specNow        = tool.Spec{Name: "now"}
	specCalc       = tool.Spec{Name: "calculator"}
	specFetch      = tool.Spec{Name: "web_fetch", Effects: tool.Effects{Network: true}}
	specOpaqueExec = tool.Spec{Name: "make_target", Effects: tool.Effects{Exec: true}}
	specMCP        = tool.Spec{Name: "github__list_issues", Effects: tool.Effects{External: true}}
)

func specMCPDestructive() tool.Spec {
	yes := true
	return tool.Spec{Name: "github__delete_repo", Effects: tool.Effects{External: true}, Annotations: tool.Annotations{DestructiveHint: &yes}}
}

// testWorkspace and testHome are fixed paths: the engine never touches
// them on disk.
const (
	testWorkspace = "/home/dev/project"
	testHome      = "/home/dev"
)

func runCall(command string) Call {
	return Call{ID: "c1", Spec: specRun, Args: mustJSON(map[string]string{"command": command})}
}

func pathCall(spec tool.Spec, path string) Call {
	return Call{ID: "c1", Spec: spec, Args: mustJSON(map[string]string{"path": path})}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// newEngine builds an engine for the test workspace with a preset and
// optional user and project layers.
func newEngine(t testing.TB, preset Preset, user, project *Config, approved ApprovedStore) *Engine {
	t.Helper()
	layers := []Layer{{Kind: LayerUser, Source: "flags", Config: Config{Preset: string(preset)}}}
	if user != nil {
		layers = append(layers, Layer{Kind: LayerUser, Source: "user config", Config: *user})
	}
	if project != nil {
		layers = append(layers, Layer{Kind: LayerProject, Source: filepath.Join(testWorkspace, ".rein/config.toml"), Config: *project})
	}
	e, err := NewEngine(EngineConfig{Workspace: testWorkspace, Home: testHome, Layers: layers, Approved: approved})
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	return e
}

var allPresets = []Preset{PresetReadOnly, PresetEditor, PresetFull}
