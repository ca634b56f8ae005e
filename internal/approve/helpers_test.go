package approve

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

var ctx = context.Background()

// Specs shaped like the coding toolset's, as in policy's tests.
var (
	specRun = tool.Spec{Name: "run_command", Effects: tool.Effects{Exec: true, CommandArg: "command", PathArgs: []string{"cwd"}}}
	specMCP = tool.Spec{Name: "github__list_issues", Effects: tool.Effects{External: true}}
)

// testWorkspace and testHome are fixed paths the engine never touches.
const (
	testWorkspace = "/home/dev/project"
	testHome      = "/home/dev"
)

func runCall(command string) policy.Call {
	return policy.Call{ID: "c1", Spec: specRun, Args: mustJSON(map[string]string{"command": command})}
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
func newEngine(t testing.TB, preset policy.Preset, user, project *policy.Config, approved policy.ApprovedStore) *policy.Engine {
	t.Helper()
	layers := []policy.Layer{{Kind: policy.LayerUser, Source: "flags", Config: policy.Config{Preset: string(preset)}}}
	if user != nil {
		layers = append(layers, policy.Layer{Kind: policy.LayerUser, Source: "user config", Config: *user})
	}
	if project != nil {
		layers = append(layers, policy.Layer{Kind: policy.LayerProject, Source: filepath.Join(testWorkspace, ".rein/config.toml"), Config: *project})
	}
	e, err := policy.NewEngine(policy.EngineConfig{Workspace: testWorkspace, Home: testHome, Layers: layers, Approved: approved})
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	return e
}

func askDecision(t *testing.T, e *policy.Engine, c policy.Call) policy.Decision {
	t.Helper()
	d := e.Decide(ctx, c)
	if d.Action != policy.Ask {
		t.Fatalf("%s %s: %v (%s); the test needs an ask", c.Spec.Name, c.Args, d.Action, d.Reason)
	}
	return d
}

// closeAtEnd closes c when the test ends, so that its reader goroutine
// does not outlive the test (TestMain's leak check).
func closeAtEnd(t testing.TB, c *ConsoleApprover) *ConsoleApprover {
	t.Cleanup(func() { c.Close() })
	return c
}
