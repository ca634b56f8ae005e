//go:build !unix

package mcp

import (
	"fmt"
	"os"
	"os/exec"
)

type signal int

const (
	sigTerm signal = iota
	sigKill
)

// signalGroup kills the process itself; there is no polite signal.
func signalGroup(p *os.Process, _ signal) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}

// describeExit says how a process ended.
func describeExit(ee *exec.ExitError) string {
	return fmt.Sprintf("exited with status %d", ee.ExitCode())
}
