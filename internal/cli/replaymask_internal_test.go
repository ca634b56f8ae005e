package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// TestReplayMasksVolatileText: a command whose output carries a duration
// that changes on every run replays as identical by default, and with
// --exact diverges, shown as a unified diff.
func TestReplayMasksVolatileText(t *testing.T) {
	e := newSTEnv(t)
	cfgDir := filepath.Join(e.home, ".config", "rein")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("[policy]\npreset = \"full\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := e.config(t, config.Settings{})
	args, _ := json.Marshal(map[string]string{"command": "echo same line; date +%H:%M:%S.%N; date '+took %Nns'"})
	p := modeltest.NewScripted(
		modeltest.ToolCalls(model.ToolCall{ID: "c1", Name: "run_command", Args: args}),
		modeltest.Text("done"),
	)
	id, out, stderr := e.record(t, sessionFlags{}, "time it", p, cfg)
	if out.Kind != agent.Complete {
		t.Fatalf("outcome %+v\n%s", out, stderr)
	}
	_, shown, _ := e.exec(t, "sessions", "show", id)
	if !strings.Contains(shown, "same line") {
		t.Fatalf("the command did not run in the recording:\n%s", shown)
	}
	code, stdout, stderr := e.exec(t, "replay", id)
	if code != 0 || !strings.Contains(stdout, "1 tool result identical") {
		t.Fatalf("masked replay: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = e.exec(t, "replay", "--exact", id)
	if code != ExitFailed {
		t.Fatalf("--exact replay: exit %d, want a divergence\n%s", code, stdout)
	}
	for _, want := range []string{"call 1 (run_command, id c1) diverged", "\n--- recorded\n+++ replayed\n@@ ", "\n same line\n", "\n-took ", "\n+took "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--exact output lacks %q:\n%s", want, stdout)
		}
	}
}
