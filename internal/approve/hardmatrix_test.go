package approve

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/reinharness/rein/policy"
)

// TestConsolePassesHardDenialsUnchanged is policy's
// TestHardDenialsAreNeverLifted for the console approver: every command
// line of the analyzer's attack seeds that an engine denies hard — under
// every preset, with no rules and with rules allowing every tool and
// command — passes a console answering "yes" or "always" unchanged.
func TestConsolePassesHardDenialsUnchanged(t *testing.T) {
	cmds := attackSeeds(t)
	all := policy.Config{Tools: []policy.ToolRule{{Name: "*", Action: "allow"}, {Name: "run_command", Action: "allow"}}}
	for _, name := range []string{"sudo", "rm", "git", "dd", "curl", "sh", "bash", "mkfs.ext4", "find", "xargs", "env"} {
		all.Commands = append(all.Commands, policy.CommandRule{Prefix: []string{name}, Action: "allow"})
	}
	approvers := map[string]policy.Approver{
		"console-yes":    closeAtEnd(t, Console(strings.NewReader(strings.Repeat("y\n", 4)), io.Discard, ConsoleOptions{})),
		"console-always": closeAtEnd(t, Console(strings.NewReader(strings.Repeat("a\n", 4)), io.Discard, ConsoleOptions{Workspace: t.TempDir(), Approved: policy.NewMemoryApprovedStore()})),
	}
	checked := 0
	for _, p := range []policy.Preset{policy.PresetReadOnly, policy.PresetEditor, policy.PresetFull} {
		for _, user := range []*policy.Config{nil, &all} {
			e := newEngine(t, p, user, nil, nil)
			for _, cmd := range cmds {
				call := runCall(cmd)
				d := e.Decide(ctx, call)
				if !d.Hard {
					continue
				}
				for name, a := range approvers {
					if got, err := a.Approve(ctx, call, d); err != nil || got != d {
						t.Errorf("%s, approver %s: %q became %+v (err %v); a hard denial must pass unchanged", p, name, cmd, got, err)
					}
					checked++
				}
			}
		}
	}
	if checked < 600 {
		t.Errorf("only %d hard denials checked: the seeds lost their hard cases", checked)
	}
	// The console does allow what it is asked about, so it is the hard
	// denial that stops every case above.
	ask := runCall("go build ./...")
	askD := newEngine(t, policy.PresetEditor, nil, nil, nil).Decide(ctx, ask)
	if got, err := approvers["console-yes"].Approve(ctx, ask, askD); err != nil || got.Action != policy.Allow {
		t.Errorf("console-yes does not allow an ask: %+v, %v", got, err)
	}
	t.Logf("%d hard-deny decisions checked", checked)
}

// attackSeeds are the command lines of policy/shell's FuzzAnalyze seed
// file: policy's hard denials and path attacks.
func attackSeeds(t *testing.T) []string {
	f, err := os.Open("../../policy/shell/testdata/analyze_seeds.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if line := sc.Text(); strings.HasPrefix(line, `"`) {
			s, err := strconv.Unquote(line)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			out = append(out, s)
		}
	}
	return out
}
