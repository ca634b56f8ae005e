package skill

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/tool"
)

type echoIn struct {
	Text string `json:"text"`
}

func echoTool(name, prefix string) tool.Tool {
	return tool.Func(name, "echo", func(_ context.Context, in echoIn) (string, error) { return prefix + in.Text, nil },
		tool.WithEffects(tool.Effects{ReadsFiles: true}))
}

// TestExposeTool: a skill's tool is offered as <skill>__<tool>, keeps its
// effects and calls through; names past 64 characters are refused.
func TestExposeTool(t *testing.T) {
	et, err := ExposeTool("pdf", echoTool("fill", "filled "))
	if err != nil {
		t.Fatal(err)
	}
	if sp := et.Spec(); sp.Name != "pdf__fill" || !sp.Effects.ReadsFiles {
		t.Errorf("spec = %+v", sp)
	}
	r, err := et.Call(context.Background(), []byte(`{"text":"form"}`))
	if err != nil || r.Content != "filled form" {
		t.Errorf("call = %+v, %v", r, err)
	}
	if _, err := ExposeTool(strings.Repeat("a", 40), echoTool(strings.Repeat("b", 30), "")); !errors.Is(err, tool.ErrInvalidName) {
		t.Errorf("long name: %v", err)
	}
	if _, err := ExposeTool("Bad", echoTool("x", "")); !errors.Is(err, ErrInvalidName) {
		t.Errorf("bad skill name: %v", err)
	}
}

// TestNarrow: allowed-tools keeps only tools already offered; it never
// adds one, maps Claude Code's names, and ignores command patterns.
func TestNarrow(t *testing.T) {
	offered := []string{"read_file", "write_file", "run_command", "grep", "skill"}
	for _, tc := range []struct {
		allowed, kept, unmatched []string
	}{
		{nil, offered, nil},
		{[]string{}, nil, nil},
		{[]string{"read_file"}, []string{"read_file"}, nil},
		{[]string{"Read", "Bash(git log:*)", "web_fetch", "delete_everything"}, []string{"read_file", "run_command"}, []string{"web_fetch", "delete_everything"}},
		{[]string{"grep", "grep", "Grep"}, []string{"grep"}, nil},
	} {
		kept, unmatched := Narrow(tc.allowed, offered)
		if diff := cmp.Diff(tc.kept, kept); diff != "" {
			t.Errorf("Narrow(%v) kept (-want +got):\n%s", tc.allowed, diff)
		}
		if diff := cmp.Diff(tc.unmatched, unmatched); diff != "" {
			t.Errorf("Narrow(%v) unmatched (-want +got):\n%s", tc.allowed, diff)
		}
	}
}

// TestRegistry: activation shadows a base tool in place and narrows the
// set; deactivation restores the original tool and order.
func TestRegistry(t *testing.T) {
	original := echoTool("pdf__fill", "mcp ")
	base, err := tool.NewSet(echoTool("read_file", ""), echoTool("run_command", ""), original, echoTool("skill", ""), echoTool("grep", ""))
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := New("pdf", "PDF forms.", "Fill the form.", echoTool("fill", "skill "), echoTool("merge", ""))
	if err != nil {
		t.Fatal(err)
	}
	pdf.AllowedTools = []string{"Read"}
	r := NewRegistry(base, RegistryOptions{Keep: []string{"skill"}})
	a, err := r.Activate(context.Background(), pdf)
	if err != nil {
		t.Fatal(err)
	}
	set, err := r.Tools()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"read_file", "pdf__fill", "skill", "pdf__merge"}, set.Names()); diff != "" {
		t.Errorf("active tools (-want +got):\n%s", diff)
	}
	fill, _ := set.Get("pdf__fill")
	if res, _ := fill.Call(context.Background(), []byte(`{"text":"x"}`)); res.Content != "skill x" {
		t.Errorf("pdf__fill is not the skill's: %q", res.Content)
	}
	if got := r.Shadowed(); !cmp.Equal(got, map[string][]string{"pdf": {"pdf__fill"}}) {
		t.Errorf("shadowed = %v", got)
	}
	if r.SystemPrompt() != a.Prompt || !strings.HasPrefix(a.Prompt, "# Skill: pdf\n\nFill the form.") {
		t.Errorf("prompt = %q", r.SystemPrompt())
	}
	if _, err := r.Activate(context.Background(), pdf); !errors.Is(err, ErrAlreadyActive) {
		t.Errorf("second activation: %v", err)
	}
	if base.Len() != 5 {
		t.Errorf("the base set changed: %v", base.Names())
	}
	if _, err := r.Deactivate("pdf"); err != nil {
		t.Fatal(err)
	}
	set, _ = r.Tools()
	if diff := cmp.Diff(base.Names(), set.Names()); diff != "" {
		t.Errorf("after deactivation (-want +got):\n%s", diff)
	}
	if got, _ := set.Get("pdf__fill"); got != original {
		t.Error("deactivation did not restore the shadowed tool")
	}
	if _, err := r.Deactivate("pdf"); !errors.Is(err, ErrNotActive) {
		t.Errorf("second deactivation: %v", err)
	}
	if r.SystemPrompt() != "" || r.ContextSections() != "" {
		t.Errorf("sections remain: %q %q", r.SystemPrompt(), r.ContextSections())
	}
}

// TestRegistryRefusesBadActivation: an activation that cannot work leaves
// the registry unchanged.
func TestRegistryRefusesBadActivation(t *testing.T) {
	base, _ := tool.NewSet(echoTool("read_file", ""))
	r := NewRegistry(base, RegistryOptions{})
	s, _ := New("dup", "d", "b", echoTool("x", ""), echoTool("x", ""))
	if _, err := r.Activate(context.Background(), s); err == nil {
		t.Error("two tools with one exposed name activated")
	}
	if len(r.Active()) != 0 {
		t.Errorf("active = %v", r.Active())
	}
}
