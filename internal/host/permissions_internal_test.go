package host

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tools/exec"
	"github.com/reinharness/rein/workspace"
)

// editorDecide decides run_command calls under the editor preset, with
// the layers given.
func editorDecide(t *testing.T, dir string, extra ...policy.Layer) func(cmd string) policy.Decision {
	t.Helper()
	layers := append([]policy.Layer{{Kind: policy.LayerUser, Source: "--preset", Config: policy.Config{Preset: "editor"}}}, extra...)
	eng, err := policy.NewEngine(policy.EngineConfig{Workspace: dir, Home: t.TempDir(), Layers: layers})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	spec := exec.RunCommand(ws, exec.Options{}).Spec()
	return func(cmd string) policy.Decision {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return eng.Decide(context.Background(), policy.Call{ID: "c", Spec: spec, Args: args})
	}
}

// TestEditorReadOnlyCommands checks the read-only set through the real
// run_command spec: commands the analyzer proves static that only read
// files inside the workspace (policy/readonly.go) run without asking
// under the editor preset; git still asks (a repository's .git/config can
// make any git command run programs), as does anything that strays from
// the set.
func TestEditorReadOnlyCommands(t *testing.T) {
	decide := editorDecide(t, t.TempDir())
	for _, cmd := range []string{"ls", "ls -la", "cat go.mod", "wc -l main.go", "head -n 5 main.go", "go version", "ls | wc -l"} {
		if d := decide(cmd); d.Action != policy.Allow {
			t.Errorf("%q: %s (%s: %s), want allow", cmd, d.Action, d.Rule, d.Reason)
		}
	}
	for _, cmd := range []string{"git status", "cat /etc/passwd", "tail -f main.go", "cat go.mod > x", "go env"} {
		if d := decide(cmd); d.Action != policy.Ask || d.Rule != "preset:editor" {
			t.Errorf("%q: %s (%s: %s), want ask by preset:editor", cmd, d.Action, d.Rule, d.Reason)
		}
	}
	if d := decide("echo hi && pwd"); d.Action != policy.Allow {
		t.Errorf("builtins: %s (%s), want allow", d.Action, d.Rule)
	}
}

// TestPermissionLayerLiftsAsk checks that an "always" grant in the state
// directory lets exactly that command run without asking, and only in
// its workspace.
func TestPermissionLayerLiftsAsk(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	const cmd = "curl -s http://127.0.0.1:1/x"
	if d := editorDecide(t, dir)(cmd); d.Action != policy.Ask {
		t.Skipf("%q is %s under the editor preset; the test needs a command that asks", cmd, d.Action)
	}
	store := NewPermissionStore(t.TempDir())
	if err := store.Add(dir, Permission{Command: []string{"curl", "-s", "http://127.0.0.1:1/x"}}); err != nil {
		t.Fatal(err)
	}
	l, ok, err := store.Layer(dir)
	if err != nil || !ok {
		t.Fatalf("layer: %v %v", ok, err)
	}
	decide := editorDecide(t, dir, l)
	if d := decide(cmd); d.Action != policy.Allow {
		t.Errorf("granted %q: %s (%s), want allow", cmd, d.Action, d.Rule)
	}
	if d := decide(cmd + " -o out"); d.Action == policy.Allow {
		t.Errorf("a longer command was allowed by an exact grant")
	}
	if _, ok, _ := store.Layer(other); ok {
		t.Errorf("the grant leaked to another workspace")
	}
	ps, _ := store.List(dir)
	if len(ps) != 1 {
		t.Fatalf("list: %v", ps)
	}
	if _, err := store.Remove(dir, 1); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := store.Layer(dir); ok {
		t.Errorf("the grant survived rm")
	}
}
