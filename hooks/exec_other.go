//go:build !unix

package hooks

import "os/exec"

// killGroup kills the command; processes it started may survive where
// process groups are not available.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
