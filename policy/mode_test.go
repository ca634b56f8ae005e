package policy

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/tool"
)

var specTodo = tool.Spec{Name: "todo_write"}

// TestPlanPreset: plan mode allows reads, todo_write and read-only
// command lines, and denies every call that could change something —
// also when a user rule would allow it — while hard denials stay hard.
func TestPlanPreset(t *testing.T) {
	user := &Config{
		Tools:    []ToolRule{{Name: "write_file", Action: "allow"}},
		Commands: []CommandRule{{Prefix: []string{"go", "test"}, Action: "allow"}},
	}
	e := newEngine(t, PresetPlan, user, nil, nil)
	if e.Preset() != PresetPlan {
		t.Fatalf("preset %s, want plan", e.Preset())
	}
	yes, no := true, false
	roMCP := tool.Spec{Name: "gh__list", Effects: tool.Effects{External: true}, Annotations: tool.Annotations{ReadOnlyHint: &yes}}
	rwMCP := tool.Spec{Name: "gh__close", Effects: tool.Effects{External: true}, Annotations: tool.Annotations{ReadOnlyHint: &no}}
	for _, tc := range []struct {
		call Call
		want Action
	}{
		{pathCall(specReadFile, "main.go"), Allow},
		{pathCall(specGrep, "."), Allow},
		{Call{ID: "c", Spec: specTodo, Args: []byte(`{"todos":[]}`)}, Allow},
		{runCall("ls -la"), Allow},
		{pathCall(specWriteFile, "main.go"), Deny},
		{pathCall(specEditFile, "main.go"), Deny},
		{Call{ID: "c", Spec: specApplyPatch, Args: []byte(`{"patch":""}`)}, Deny},
		{runCall("go test ./..."), Deny},
		{runCall("echo x > notes.txt"), Deny},
		{runCall("rm -rf build"), Deny},
		{runCall("git commit -am wip"), Deny},
		{Call{ID: "c", Spec: specFetch, Args: []byte(`{"url":"https://example.com"}`)}, Deny},
		{Call{ID: "c", Spec: specOpaqueExec, Args: []byte(`{}`)}, Deny},
		{Call{ID: "c", Spec: rwMCP, Args: []byte(`{}`)}, Deny},
		{Call{ID: "c", Spec: specMCP, Args: []byte(`{}`)}, Deny},
	} {
		d := e.Decide(t.Context(), tc.call)
		if d.Action != tc.want {
			t.Errorf("%s %s: %s (%s: %s), want %s", tc.call.Spec.Name, tc.call.Args, d.Action, d.Rule, d.Reason, tc.want)
		}
		if tc.want == Deny && d.Rule == planRule && !strings.Contains(d.Reason, "plan mode") {
			t.Errorf("%s: reason %q does not say plan mode", tc.call.Spec.Name, d.Reason)
		}
	}
	// An outside tool that says it only reads is decided as usual (it asks).
	if d := e.Decide(t.Context(), Call{ID: "c", Spec: roMCP, Args: []byte(`{}`)}); d.Action != Ask {
		t.Errorf("read-only MCP tool: %s (%s), want ask", d.Action, d.Reason)
	}
	d := e.Decide(t.Context(), runCall("rm -rf /"))
	if d.Action != Deny || !d.Hard {
		t.Errorf("rm -rf /: %+v, want a hard denial", d)
	}
	// The read-only set is the read-only preset's, whole.
	ws, home := readOnlyWorkspace(t)
	pe := readOnlyEngine(t, PresetPlan, ws, home)
	for _, cmd := range readOnlyAllowed {
		if d := pe.Decide(t.Context(), runCall(cmd)); d.Action != Allow {
			t.Errorf("plan: %q: %s (%s), want allow", cmd, d.Action, d.Reason)
		}
	}
	for _, cmd := range readOnlyRefused {
		if d := pe.Decide(t.Context(), runCall(cmd)); d.Action != Deny {
			t.Errorf("plan: %q: %s (%s), want deny", cmd, d.Action, d.Reason)
		}
	}
	steps := e.Explain(runCall("go test ./..."))
	if last := steps[len(steps)-1]; last.Action != Deny || last.Rule != planRule {
		t.Errorf("Explain ends with %+v, want the plan denial", last)
	}
}

// TestSwitchPreset: a switch changes the preset of later decisions, keeps
// the project's cap and its tightening rules, and never changes the
// engine it started from.
func TestSwitchPreset(t *testing.T) {
	project := &Config{Commands: []CommandRule{{Prefix: []string{"make"}, Action: "deny"}}}
	base := newEngine(t, PresetEditor, nil, project, nil)
	s := NewSwitch(base)
	write := pathCall(specWriteFile, "main.go")
	if d := s.Decide(t.Context(), write); d.Action != Allow {
		t.Fatalf("editor write: %s", d.Action)
	}
	for _, tc := range []struct {
		p                Preset
		write, goTest    Action
		wantEffective    Preset
		wantMakeDecision Action
	}{
		{PresetPlan, Deny, Deny, PresetPlan, Deny},
		{PresetReadOnly, Deny, Deny, PresetReadOnly, Deny},
		{PresetFull, Allow, Allow, PresetFull, Deny},
		{PresetEditor, Allow, Ask, PresetEditor, Deny},
	} {
		got, err := s.Set(tc.p)
		if err != nil || got != tc.wantEffective || s.Preset() != tc.wantEffective {
			t.Fatalf("Set(%s) = %s, %v; preset %s", tc.p, got, err, s.Preset())
		}
		if d := s.Decide(t.Context(), write); d.Action != tc.write {
			t.Errorf("%s: write %s, want %s", tc.p, d.Action, tc.write)
		}
		if d := s.Decide(t.Context(), runCall("go test ./...")); d.Action != tc.goTest {
			t.Errorf("%s: go test %s (%s), want %s", tc.p, d.Action, d.Reason, tc.goTest)
		}
		if d := s.Decide(t.Context(), runCall("make")); d.Action != tc.wantMakeDecision {
			t.Errorf("%s: make %s, want the project's deny", tc.p, d.Action)
		}
	}
	if base.Preset() != PresetEditor {
		t.Errorf("the base engine changed to %s", base.Preset())
	}
	if _, err := s.Set("root"); err == nil {
		t.Error("Set(root) succeeded")
	}
	if _, err := s.Set(""); err == nil {
		t.Error("Set(\"\") succeeded")
	}
}

// TestSwitchProjectCap: a project's preset caps what a switch reaches,
// and a project's "plan" counts as read-only.
func TestSwitchProjectCap(t *testing.T) {
	for _, projectPreset := range []Preset{PresetReadOnly, PresetPlan} {
		base := newEngine(t, PresetEditor, nil, &Config{Preset: string(projectPreset)}, nil)
		if base.Preset() != PresetReadOnly {
			t.Fatalf("project %s: preset %s, want read-only", projectPreset, base.Preset())
		}
		s := NewSwitch(base)
		if got, _ := s.Set(PresetFull); got != PresetReadOnly || !base.Capped(PresetFull) {
			t.Errorf("project %s: Set(full) = %s, want read-only (capped)", projectPreset, got)
		}
		if got, _ := s.Set(PresetPlan); got != PresetPlan {
			t.Errorf("project %s: Set(plan) = %s, want plan (as strict)", projectPreset, got)
		}
		if d := s.Decide(t.Context(), runCall("go test ./...")); d.Action != Deny {
			t.Errorf("project %s: go test %s", projectPreset, d.Action)
		}
	}
	if p, err := ParsePreset("plan"); err != nil || p != PresetPlan {
		t.Errorf("ParsePreset(plan) = %q, %v", p, err)
	}
}
