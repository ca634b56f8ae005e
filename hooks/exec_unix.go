//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// killGroup kills cmd's process group: the command and everything it
// started that stayed in the group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
