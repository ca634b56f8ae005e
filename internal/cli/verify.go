package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// verifyOutputBytes caps the output a check hands back to the model: the
// first and last 8 KiB, with a marker saying how much was left out, so a
// test run that prints megabytes still shows how it started and the
// failures at its end.
const verifyOutputBytes = 16 << 10

// commandTool is the tool whose calls may change files the workspace's
// journal cannot see (a command's writes are not journaled).
const commandTool = "run_command"

// verifier is the verification gate: the configured checks, run in the
// workspace under its sandbox. It is also an agent.Hook, watching each
// run for file changes: with on = "changes" a run that changed nothing
// (no journaled change, no command run) is not verified.
//
// It is safe for concurrent use.
type verifier struct {
	ws     *workspace.Workspace
	checks []host.VerifyCheck
	always bool
	scrub  func(string) string
	// gate decides the project's checks like run_command calls; set
	// once the approver exists (useGate), before the first run.
	gate *checkGate
	// mode is the session's current permission mode, when it can change
	// (chat's Shift+Tab): in plan mode nothing may change files, so there
	// is nothing to verify — and the checks would be refused as mutations.
	mode func() policy.Preset

	mu sync.Mutex
	// baseline is the workspace journal's last sequence number when the
	// current run started; commandRan is set when the run called
	// run_command.
	baseline   int64
	commandRan bool
}

var (
	_ agent.Verifier = (*verifier)(nil)
	_ agent.Hook     = (*verifier)(nil)
)

// newVerifier returns the gate for s in ws, nil when there are no checks.
func newVerifier(ws *workspace.Workspace, s host.VerifySettings, scrub func(string) string) *verifier {
	if len(s.Checks) == 0 {
		return nil
	}
	v := &verifier{ws: ws, checks: s.Checks, always: s.Always, scrub: scrub}
	v.baseline = lastSeq(ws)
	return v
}

// useGate has the project's checks decided by decider and approver like
// run_command calls of spec.
func (v *verifier) useGate(decider policy.Decider, approver policy.Approver, spec tool.Spec) {
	if v != nil {
		v.gate = &checkGate{decider: decider, approver: approver, spec: spec}
	}
}

func lastSeq(ws *workspace.Workspace) int64 {
	if cs := ws.Changes(); len(cs) > 0 {
		return cs[len(cs)-1].Seq
	}
	return 0
}

// OnEvent implements agent.Hook: a run's start resets what it changed.
func (v *verifier) OnEvent(_ context.Context, ev agent.Event) {
	switch {
	case ev.Type == agent.EventSessionStarted && ev.AgentPath == "":
		seq := lastSeq(v.ws)
		v.mu.Lock()
		v.baseline, v.commandRan = seq, false
		v.mu.Unlock()
	case ev.Type == agent.EventToolCall && ev.ToolCall != nil && ev.ToolCall.Name == commandTool:
		v.mu.Lock()
		v.commandRan = true
		v.mu.Unlock()
	}
}

// changed reports whether the current run may have changed files.
func (v *verifier) changed() bool {
	v.mu.Lock()
	base, ran := v.baseline, v.commandRan
	v.mu.Unlock()
	return ran || len(v.ws.ChangesSince(base)) > 0
}

// Checks implements agent.Verifier.
func (v *verifier) Checks(_ context.Context, attempt int) []agent.Check {
	if v.mode != nil && v.mode() == policy.PresetPlan {
		return nil
	}
	if !v.always && !v.changed() {
		return nil
	}
	out := make([]agent.Check, 0, len(v.checks))
	for _, c := range v.checks {
		out = append(out, agent.Check{Name: c.Name, Run: func(ctx context.Context) agent.CheckResult {
			return host.MarkUnavailable(v.run(ctx, c), attempt)
		}})
	}
	return out
}

// run runs one check. Exec kills the check's whole process group at its
// timeout; a check killed or unable to start counts as failed with exit
// code -1.
func (v *verifier) run(ctx context.Context, c host.VerifyCheck) agent.CheckResult {
	if c.Source != "" {
		// The repository's check: the policy decides it, as it would the
		// model's command; nothing runs without a decision.
		why := "refused: no policy to decide the repository's check"
		if v.gate != nil {
			why = v.gate.decide(ctx, c)
		}
		if why != "" {
			return agent.CheckResult{ExitCode: -1, Err: v.scrub(why)}
		}
	}
	res, err := v.ws.Exec(ctx, workspace.ExecOptions{Command: c.Script, Timeout: c.Timeout, MaxOutput: verifyOutputBytes})
	out := agent.CheckResult{ExitCode: res.ExitCode, Output: v.scrub(res.Output)}
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		out.ExitCode, out.Err = -1, "interrupted"
	case err != nil:
		// Exec could not start it (no workspace directory, no sandbox):
		// no answer of the model can change that.
		out.ExitCode, out.Err, out.Unavailable = -1, v.scrub(textclip.FirstLine(err.Error())), true
	case res.TimedOut:
		out.ExitCode, out.Err = -1, fmt.Sprintf("timed out after %s", c.Timeout)
	case res.Signal != "":
		out.ExitCode, out.Err = -1, "killed by "+res.Signal
	}
	if res.Warning != "" {
		out.Output = v.scrub(res.Warning) + "\n" + out.Output
	}
	return out
}
