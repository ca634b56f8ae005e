package policy

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reinharness/rein/policy/shell"
)

// allowAll builds the most permissive rule set an attacker could hope
// for: every tool allowed, and for every hard-deny command an allow rule
// for its first word and for its exact argv.
func allowAll() Config {
	c := Config{Tools: []ToolRule{{Name: "*", Action: "allow"}, {Name: "run_command", Action: "allow"}}}
	seen := map[string]bool{}
	add := func(prefix []string, exact bool) {
		key := strings.Join(prefix, "\x00")
		if exact {
			key += "\x00exact"
		}
		if len(prefix) == 0 || seen[key] || strings.Contains(key, "\x00\x00") || prefix[0] == "" {
			return
		}
		seen[key] = true
		c.Commands = append(c.Commands, CommandRule{Prefix: prefix, Exact: exact, Action: "allow"})
	}
	for _, name := range []string{"sudo", "rm", "git", "dd", "curl", "sh", "bash", "mkfs.ext4", "find", "xargs", "env"} {
		add([]string{name}, false)
	}
	add([]string{"git", "push"}, false)
	for _, h := range hardCommands {
		for _, cmd := range shell.Analyze(h.cmd, shell.Options{Workspace: testWorkspace, Home: testHome}).Commands {
			if len(cmd.Norm) > 0 {
				add(cmd.Norm[:1], false)
				add(cmd.Norm, true)
			}
		}
	}
	c.Paths = []PathRule{{Pattern: "**", Action: "allow"}}
	return c
}

// TestHardDenialsAreNeverLifted: every hard-deny case × every preset ×
// (no rules, allow-all user rules, allow-all approved project rules) ×
// every approver stays a hard Deny.
func TestHardDenialsAreNeverLifted(t *testing.T) {
	ctx := context.Background()
	all := allowAll()
	approved := NewMemoryApprovedStore()
	for _, r := range all.Commands {
		approved.Approve(testWorkspace, compileCommand(r).fingerprint(testWorkspace), "test")
	}
	for _, r := range all.Tools {
		approved.Approve(testWorkspace, compileTool(r).fingerprint(testWorkspace), "test")
	}
	type ruleSet struct {
		name          string
		user, project *Config
	}
	ruleSets := []ruleSet{{name: "no rules"}, {name: "allow-all user", user: &all}, {name: "allow-all approved project", project: &all}}
	// Approvers that would allow anything they are asked about (the
	// console approver, a front end's, has the same matrix in
	// internal/approve: TestConsolePassesHardDenialsUnchanged).
	approvers := map[string]Approver{
		"auto":  Auto(),
		"never": Never(),
	}
	checked := 0
	for _, p := range allPresets {
		for _, rs := range ruleSets {
			e := newEngine(t, p, rs.user, rs.project, approved)
			for _, h := range hardCommands {
				call := runCall(h.cmd)
				d := e.Decide(ctx, call)
				if d.Action != Deny || !d.Hard || d.Rule != "hard-deny:"+h.id {
					t.Errorf("%s, %s: %q decided %v hard=%v rule=%q (%s); want hard deny %s", p, rs.name, h.cmd, d.Action, d.Hard, d.Rule, d.Reason, h.id)
					continue
				}
				for name, a := range approvers {
					got, err := a.Approve(ctx, call, d)
					if err != nil || got != d {
						t.Errorf("%s, %s, approver %s: %q became %+v (err %v); a hard denial must pass unchanged", p, rs.name, name, h.cmd, got, err)
					}
					checked++
				}
			}
		}
	}
	// The approvers do allow what they are asked about, so it is the
	// hard denial that stops every case above.
	ask := runCall("go build ./...")
	askD := newEngine(t, PresetEditor, nil, nil, nil).Decide(ctx, ask)
	for _, name := range []string{"auto"} {
		if got, err := approvers[name].Approve(ctx, ask, askD); err != nil || got.Action != Allow {
			t.Errorf("approver %s does not allow an ask: %+v, %v", name, got, err)
		}
	}
	t.Logf("%d hard-deny decisions checked (%d commands × %d presets × %d rule sets × %d approvers)",
		checked, len(hardCommands), len(allPresets), len(ruleSets), len(approvers))
}

// TestAllowAllRulesDoLift guards the test above: the allow-all rules do
// allow ordinary commands, so the hard denials are what stops the cases.
func TestAllowAllRulesDoLift(t *testing.T) {
	all := allowAll()
	e := newEngine(t, PresetReadOnly, &all, nil, nil)
	for _, cmd := range []string{"git status", "rm -rf build", "curl -o x https://example.com", "find . -name x"} {
		if d := e.Decide(context.Background(), runCall(cmd)); d.Action != Allow {
			t.Errorf("%q under allow-all: %v (%s); want allow", cmd, d.Action, d.Reason)
		}
	}
}

// TestAnalyzerSeedsHoldTheAttacks keeps policy/shell's FuzzAnalyze seeds
// in step with the tables here: every hard denial and path attack is a
// seed of the analyzer's fuzz target.
func TestAnalyzerSeedsHoldTheAttacks(t *testing.T) {
	data, err := os.ReadFile("shell/testdata/analyze_seeds.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var cmds []string
	for _, h := range hardCommands {
		cmds = append(cmds, h.cmd)
	}
	for _, c := range class3Cases {
		cmds = append(cmds, c.cmd)
	}
	for _, cmd := range cmds {
		if !slices.Contains(lines, strconv.Quote(cmd)) {
			t.Errorf("%q is not a seed in shell/testdata/analyze_seeds.txt; add the line %s", cmd, strconv.Quote(cmd))
		}
	}
}
