package hooks

import (
	"context"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// BenchmarkHookRun measures one UserPromptSubmit hook run (bash -c, the
// input on stdin, its output read): directly, and inside the workspace's
// sandbox as rein runs every hook.
func BenchmarkHookRun(b *testing.B) {
	ws := b.TempDir()
	w, err := workspace.Open(ws, workspace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	cfg, _ := Build(LayerUser, "bench", map[string][]GroupSpec{
		"UserPromptSubmit": {{Hooks: []HookSpec{{Command: "cat > /dev/null; echo '{}'"}}}},
	})
	off := func(Command) (Confinement, error) {
		return Confinement{Policy: sandbox.Policy{Mode: sandbox.Off}, Env: []string{"PATH=/usr/bin:/bin"}}, nil
	}
	boxed := func(Command) (Confinement, error) {
		pol, err := w.SandboxPolicy(false, "")
		if err != nil {
			return Confinement{}, err
		}
		env, err := w.SandboxEnv([]string{"PATH=/usr/bin:/bin"}, true)
		return Confinement{Policy: pol, Env: env}, err
	}
	for _, c := range []struct {
		name    string
		confine func(Command) (Confinement, error)
	}{{"unsandboxed", off}, {"sandboxed", boxed}} {
		b.Run(c.name, func(b *testing.B) {
			r, err := NewRunner(RunnerConfig{Config: cfg, Workspace: ws, Confine: c.confine})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				r.Steer(context.Background(), agent.SteerPoint{Event: agent.SteerUserPromptSubmit, SessionID: "s", Prompt: "hi"})
			}
		})
	}
}
