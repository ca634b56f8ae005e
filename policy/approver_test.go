package policy

import (
	"strings"
	"testing"
)

func askDecision(t *testing.T, e *Engine, c Call) Decision {
	t.Helper()
	d := e.Decide(ctx, c)
	if d.Action != Ask {
		t.Fatalf("%s %s: %v (%s); the test needs an ask", c.Spec.Name, c.Args, d.Action, d.Reason)
	}
	return d
}

func TestAutoAndNever(t *testing.T) {
	e := newEngine(t, PresetEditor, nil, nil, nil)
	run := runCall("go build ./...")
	d := askDecision(t, e, run)
	got, err := Auto().Approve(ctx, run, d)
	if err != nil || got.Action != Allow || got.Rule != "approver:auto" {
		t.Errorf("Auto: %+v, %v", got, err)
	}
	got, err = Never().Approve(ctx, run, d)
	want := "run_command needs approval (`go build ./...`: the editor preset asks before running commands); " +
		"rein is running without a terminal — allow it with a [[policy.commands]] rule or --approve auto"
	if err != nil || got.Action != Deny || got.Reason != want || got.Rule != "approver:never" {
		t.Errorf("Never: %+v, %v\nwant reason %q", got, err, want)
	}
	mcp := Call{Spec: specMCP}
	got, _ = Never().Approve(ctx, mcp, askDecision(t, e, mcp))
	if !strings.Contains(got.Reason, "[[policy.tools]] rule") {
		t.Errorf("Never for a tool: %q", got.Reason)
	}
	for _, d := range []Decision{{Action: Allow, Rule: "x"}, {Action: Deny, Rule: "y"}, {Action: Deny, Hard: true, Rule: "hard-deny:privilege"}} {
		for name, a := range map[string]Approver{"auto": Auto(), "never": Never()} {
			if got, err := a.Approve(ctx, run, d); got != d || err != nil {
				t.Errorf("%s changed a non-ask decision %+v to %+v", name, d, got)
			}
		}
	}
}
