//go:build unix

package hooks

import (
	"os/exec"
	"syscall"

	"github.com/reinharness/rein/workspace/sandbox"
)

// setGroup starts cmd as the leader of a new process group.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = sandbox.ProcessAttr() // own group; on Linux it dies with rein
}

// killGroup kills cmd's process group: the command and everything it
// started that stayed in the group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
