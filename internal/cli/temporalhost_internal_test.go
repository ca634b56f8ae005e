package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/reinharness/rein/policy"
)

// TestEngineWorkspaceRefusesWiderPreset: a session may narrow the
// workers' policy, never widen it.
func TestEngineWorkspaceRefusesWiderPreset(t *testing.T) {
	w := newTemporalWorkspace(&App{}, commonFlags{}, t.TempDir())
	if err := w.SetMaxPreset("editor"); err != nil {
		t.Fatal(err)
	}
	_, err := w.get(context.Background(), string(policy.PresetFull))
	if err == nil || !strings.Contains(err.Error(), "allow presets up to editor") || !strings.Contains(err.Error(), "--max-preset full") {
		t.Fatalf("get(full) under max editor = %v", err)
	}
	if err := w.SetMaxPreset("root"); err == nil {
		t.Error("SetMaxPreset accepted an unknown preset")
	}
}
