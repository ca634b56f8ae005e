//go:build unix

package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/reinharness/rein/workspace/sandbox"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// setProcessGroup starts the command in a process group of its own, so
// that stopping a server also stops what it spawned (npx starts node, a
// shell wrapper starts the real server).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = sandbox.ProcessAttr() // own group; on Linux it dies with rein
}

// signalGroup signals the process group led by p.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	if p == nil || p.Pid <= 0 {
		return nil
	}
	return syscall.Kill(-p.Pid, sig)
}

// describeExit says how a process ended: its status or the signal.
func describeExit(ee *exec.ExitError) string {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("was killed by signal %d (%v)", ws.Signal(), ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ee.ExitCode())
}
