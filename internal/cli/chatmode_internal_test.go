package cli

import (
	"slices"
	"testing"

	"github.com/reinharness/rein/policy"
)

// FuzzParseMode: parseMode returns one of the modes or an error, for any
// input, and knows every mode's own name.
func FuzzParseMode(f *testing.F) {
	for _, s := range []string{"plan", "full", "read-only", "editor", "acceptEdits", "bypassPermissions", "default", "", "ro", "PLAN", "plan\x00", "full "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseMode(s)
		if err == nil && !slices.Contains(policy.Modes, p) {
			t.Fatalf("parseMode(%q) = %q, not a mode", s, p)
		}
		if err != nil && p != "" {
			t.Fatalf("parseMode(%q) = %q with error %v", s, p, err)
		}
	})
}

// TestModeCycleSkipsCappedModes: the cycle visits every mode in order,
// and under a project capped at read-only only read-only and plan.
func TestModeCycleSkipsCappedModes(t *testing.T) {
	build := func(project string) *chatModes {
		layers := []policy.Layer{{Kind: policy.LayerProject, Source: "project", Config: policy.Config{Preset: project}}}
		e, err := policy.NewEngine(policy.EngineConfig{Workspace: t.TempDir(), Home: "/nonexistent-home", Layers: layers})
		if err != nil {
			t.Fatal(err)
		}
		return newChatModes(policy.NewSwitch(e))
	}
	walk := func(m *chatModes, n int) []policy.Preset {
		var seen []policy.Preset
		for range n {
			p := m.next(m.current())
			if _, err := m.sw.Set(p); err != nil {
				t.Fatal(err)
			}
			seen = append(seen, m.current())
		}
		return seen
	}
	m := build("")
	if got, want := walk(m, 4), []policy.Preset{policy.PresetFull, policy.PresetPlan, policy.PresetReadOnly, policy.PresetEditor}; !slices.Equal(got, want) {
		t.Errorf("cycle from editor: %v, want %v", got, want)
	}
	m = build("read-only")
	if got, want := walk(m, 3), []policy.Preset{policy.PresetPlan, policy.PresetReadOnly, policy.PresetPlan}; !slices.Equal(got, want) {
		t.Errorf("capped cycle: %v, want %v", got, want)
	}
}
