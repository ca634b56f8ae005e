//go:build unix

package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

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
