package command

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

var reinTools = []string{"read_file", "write_file", "edit_file", "glob", "grep", "list_dir", "run_command", "todo_write", "calculator", "git_status", "fs__read", "fs__write", "web_fetch"}

func TestNewRestrictionMapsClaudeNames(t *testing.T) {
	r, warnings := NewRestriction([]string{"Read", "Grep", "LS", "MultiEdit", "calculator", "mcp__fs", "WebFetch", "NotebookEdit", "Read(src/**)", "Bash(git status:*)"}, reinTools, "the command's allowed-tools")
	want := []string{"calculator", "edit_file", "fs__read", "fs__write", "grep", "list_dir", "read_file", "run_command", "web_fetch"}
	if diff := cmp.Diff(want, r.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	all := strings.Join(warnings, "\n")
	for _, w := range []string{`"NotebookEdit", which this run does not have`, `"Read(src/**)": rein does not narrow read_file by "src/**"`} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	if len(warnings) != 2 {
		t.Errorf("warnings: %q", warnings)
	}
	r, _ = NewRestriction([]string{"mcp__fs__write"}, reinTools, "")
	if !cmp.Equal(r.Tools, []string{"fs__write"}) {
		t.Errorf("mcp__fs__write: %v", r.Tools)
	}
	r, _ = NewRestriction(nil, reinTools, "")
	if r.Tools == nil || len(r.Tools) != 0 {
		t.Errorf("an empty list must narrow to nothing, got %#v", r.Tools)
	}
	// Only unusable Bash patterns: run_command is left out, not allowed whole.
	r, warnings = NewRestriction([]string{"Bash(git *stat*)", "Read"}, reinTools, "")
	if !cmp.Equal(r.Tools, []string{"read_file"}) || len(warnings) != 1 {
		t.Errorf("tools %v warnings %q", r.Tools, warnings)
	}
}

func decideCommand(r *Restriction, cmd string) policy.Decision {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return r.Decide(context.Background(), policy.Call{Spec: tool.Spec{Name: "run_command"}, Args: args})
}

func TestRestrictionBashPatterns(t *testing.T) {
	r, warnings := NewRestriction([]string{"Bash(git status:*)", "Bash(git add *)", "Bash(npm test)"}, reinTools, "the command's allowed-tools")
	if len(warnings) != 0 {
		t.Fatal(warnings)
	}
	tests := map[string]bool{
		"git status":                       true,
		"git status --short":               true,
		"git add a.go b.go":                true,
		"npm test":                         true,
		"timeout 5 git status":             true, // wrappers are unwrapped
		"git status && git add x":          true,
		"npm test --watch":                 false, // exact
		"git push":                         false,
		"git status; rm -rf x":             false,
		"git status | sh":                  false,
		"echo $(curl evil)":                false,
		"$CMD status":                      false,
		"git statusx":                      false,
		"":                                 false,
		"bash -c 'git status; curl evil'":  false,
		"git -C /elsewhere status --short": false, // matched on the words as written: stricter, never looser
	}
	for cmd, ok := range tests {
		d := decideCommand(r, cmd)
		if (d.Action == policy.Allow) != ok {
			t.Errorf("%q: %s (%s), want allowed=%v", cmd, d.Action, d.Reason, ok)
		}
		if !ok && !strings.HasPrefix(d.Reason, "the command's allowed-tools allows run_command only for Bash(git status:*), Bash(git add *), Bash(npm test)") {
			t.Errorf("%q: reason %q", cmd, d.Reason)
		}
	}
	other := r.Decide(context.Background(), policy.Call{Spec: tool.Spec{Name: "read_file"}, Args: json.RawMessage(`{}`)})
	if other.Action != policy.Allow {
		t.Errorf("another tool: %+v", other)
	}
	if d := r.Decide(context.Background(), policy.Call{Spec: tool.Spec{Name: "run_command"}, Args: json.RawMessage(`[1]`)}); d.Action != policy.Deny {
		t.Errorf("garbled arguments: %+v", d)
	}
	any, _ := NewRestriction([]string{"Bash", "Bash(git status:*)"}, reinTools, "")
	if d := decideCommand(any, "rm -rf x"); d.Action != policy.Allow {
		t.Errorf("plain Bash does not narrow run_command: %+v", d)
	}
}
