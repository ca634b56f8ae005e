//go:build unix

package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

// process is one command to start.
type process struct {
	launch    sandbox.Launch // what to start (Path, Args, Files; its Env is already in env)
	dir       string
	env       []string
	timeout   time.Duration
	maxOutput int
	grace     time.Duration
	onOutput  func([]byte) // ExecOptions.OnOutput
	track     ProcessTracker
}

// runProcess starts p in its own process group and waits for it, killing
// the group on timeout or cancellation and after the leader exits.
//
// Output goes through a pipe we own rather than exec's copying goroutines:
// then Wait returns when the leader exits, we can kill what is left of the
// group, and reading the pipe is bounded even if an escaped process (one
// that called setsid) keeps it open.
func runProcess(ctx context.Context, p process) (ExecResult, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return ExecResult{}, fmt.Errorf("run command: %w", err)
	}
	cmd := &exec.Cmd{
		Dir: p.dir, Env: p.env,
		Stdout: pw, Stderr: pw, // one pipe: stdout and stderr interleave as written
	}
	p.launch.Apply(cmd)
	// The record is durable before the process exists: a crash from here
	// on leaves it for the next rein's sweep.
	var rec TrackedProcess
	if p.track != nil {
		if rec, err = p.track.Begin(ctx); err != nil {
			pr.Close()
			pw.Close()
			p.launch.Release(nil)
			return ExecResult{}, fmt.Errorf("run command: %w", err)
		}
		if rec != nil {
			defer rec.End() // after the group is killed below
		}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		p.launch.Release(nil)
		return ExecResult{}, fmt.Errorf("run command: %w", err)
	}
	pw.Close() // the child holds its copies; EOF comes when they are all closed
	pgid := cmd.Process.Pid
	if rec != nil {
		// Best effort: without the pid a later sweep has nothing to
		// kill, and the supervisor has killed everything already.
		_ = rec.Started(pgid)
	}

	out := newHeadTail(p.maxOutput)
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(observed(out, p.onOutput), pr)
		close(copied)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	runCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var waitErr error
	timedOut := false
	select {
	case waitErr = <-waited:
	case <-runCtx.Done():
		timedOut = ctx.Err() == nil
		waitErr = terminate(pgid, p.grace, waited)
	}
	// The leader is gone; anything left in its group is an orphan we
	// started. Kill it so no background job outlives the call.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	// The command's cgroup, if any, catches what left the group (setsid)
	// and names the limit it hit.
	limit := p.launch.Release(cmd.ProcessState)
	select {
	case <-copied:
	case <-time.After(p.grace):
		pr.Close() // unblocks the copy; a leftover writer gets EPIPE
		<-copied
	}
	pr.Close()

	res := ExecResult{TimedOut: timedOut, Duration: time.Since(start), Limit: limit}
	if limit != "" {
		res.LimitValue = p.launch.Limits.Value(limit)
	}
	res.Output, res.Truncated = out.Result()
	res.OutputBytes = out.Total()
	res.ExitCode = -1
	if st := cmd.ProcessState; st != nil {
		res.ExitCode = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal().String()
		}
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return res, fmt.Errorf("run command: %w", waitErr)
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("command cancelled: %w", err)
	}
	return res, nil
}

// terminate asks the group (and descendants that left it) to stop with
// SIGTERM, then SIGKILLs them after the grace period, and returns the
// leader's wait error.
func terminate(pgid int, grace time.Duration, waited <-chan error) error {
	// Collect descendants while the leader is alive: once it dies they are
	// reparented and can no longer be traced to this command.
	pids := descendants(pgid)
	signalAll(pgid, pids, syscall.SIGTERM)
	select {
	case err := <-waited:
		// The leader obeyed; whatever it leaves behind is killed now.
		signalAll(pgid, append(pids, descendants(pgid)...), syscall.SIGKILL)
		return err
	case <-time.After(grace):
	}
	signalAll(pgid, append(pids, descendants(pgid)...), syscall.SIGKILL)
	return <-waited
}

func signalAll(pgid int, pids []int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
}
