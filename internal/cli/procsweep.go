package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinharness/rein/internal/procreg"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// openProcesses opens the registry of running calls' processes under the
// state directory and sweeps it: whatever a rein that died left running
// is killed now, before this run starts anything (see package
// internal/procreg). Kills of other sessions' calls are reported here;
// the resumed session's are reported with its interrupted calls.
func (sr *sessionRun) openProcesses() {
	reg, err := procreg.Open(sr.stateDir)
	if err != nil {
		// Commands still die with rein (the sandbox's supervisor); only
		// the backstop and the record of what ran are missing.
		fmt.Fprintf(sr.app.Stderr, "rein: warning: %s; commands run unrecorded\n", textclip.FirstLine(err.Error()))
		return
	}
	sr.procs = reg
	swept, err := reg.Sweep()
	if err != nil {
		fmt.Fprintf(sr.app.Stderr, "rein: warning: %s\n", textclip.FirstLine(err.Error()))
	}
	sr.swept = swept
}

// reportSwept names, for sessions other than current, the processes the
// sweep killed.
func (sr *sessionRun) reportSwept(current string) {
	for _, rec := range sr.swept {
		if rec.Session == current || rec.Swept == nil || rec.Swept.Killed == 0 {
			continue
		}
		fmt.Fprintf(sr.app.Stderr, "rein: warning: killed %s that a stopped rein left running (session %s, call %s)\n",
			processes(rec.Swept.Killed), rec.Session, rec.Call)
	}
}

// reportInterrupted says on stderr which calls of the resumed session
// were cut short by the stop, and what became of their processes;
// recorded is the session they ran in (the original of a fork).
func (sr *sessionRun) reportInterrupted(res *session.Resumed, recorded string) {
	id := res.Conversation.ID()
	sr.reportSwept(recorded)
	var taken []procreg.Record
	if sr.procs != nil {
		var err error
		if taken, err = sr.procs.Take(recorded); err != nil {
			fmt.Fprintf(sr.app.Stderr, "rein: warning: %s\n", textclip.FirstLine(err.Error()))
		}
	}
	killed := map[string]int{}
	survived := map[string]int{}
	for _, rec := range taken {
		if rec.Swept != nil {
			killed[rec.Call] += rec.Swept.Killed
			survived[rec.Call] += rec.Swept.Survivors
		}
	}
	if n := len(res.Interrupted); n > 0 {
		names := make([]string, 0, n)
		for _, c := range res.Interrupted {
			names = append(names, c.Name+" ("+c.ID+")")
		}
		fmt.Fprintf(sr.app.Stderr, "rein: session %s was stopped while %s ran: %s; the model is told it may have run partly or wholly, that its remaining processes were killed, and to check its effects before retrying\n",
			id, plural(n, "tool call"), strings.Join(names, ", "))
	}
	for _, rec := range taken {
		if k := killed[rec.Call]; k > 0 {
			fmt.Fprintf(sr.app.Stderr, "rein: %s left running by call %s were killed\n", processes(k), rec.Call)
			killed[rec.Call] = 0
		}
		if s := survived[rec.Call]; s > 0 {
			fmt.Fprintf(sr.app.Stderr, "rein: warning: %s of call %s would not die (SIGKILL); check them with ps\n", processes(s), rec.Call)
			survived[rec.Call] = 0
		}
	}
}

// Begin records a command about to start for the current session and
// the tool call in ctx (workspace.ProcessTracker).
func (sr *sessionRun) Begin(ctx context.Context) (workspace.TrackedProcess, error) {
	if sr.procs == nil {
		return nil, nil
	}
	e, err := sr.procs.Begin(sr.ID(), tool.CallID(ctx))
	if err != nil {
		return nil, err
	}
	return e, nil
}

var _ workspace.ProcessTracker = (*sessionRun)(nil)

func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}
