package sandbox

import (
	"os/exec"
)

// Apply makes cmd start the launch: Path, Args and ExtraFiles are set, the
// launch's environment entries are appended to cmd.Env (set the base
// environment first), and the process attributes that tie the child to
// rein's lifetime are set (on Linux: its own process group and a
// parent-death signal). Every process rein starts for a command, hook,
// MCP server, check or language server goes through Prepare and Apply, so
// that what the sandbox promises (confinement, limits, nothing outlives
// rein) holds for all of them alike.
func (l Launch) Apply(cmd *exec.Cmd) {
	cmd.Path = l.Path
	cmd.Args = l.Args
	cmd.Err = nil // exec.Command's own LookPath result no longer applies
	cmd.Env = append(cmd.Env, l.Env...)
	cmd.ExtraFiles = append(cmd.ExtraFiles, l.Files...)
	cmd.SysProcAttr = procAttr()
}
