package sandbox

import (
	"os/exec"
	"syscall"
)

// Apply makes cmd start the launch: Path, Args and ExtraFiles are set, the
// launch's environment entries are appended to cmd.Env (set the base
// environment first), and the process attributes that tie the child to
// rein's lifetime are set. Every process rein starts for a command, hook,
// MCP server, check or language server goes through Prepare and Apply, so
// that what the sandbox promises (confinement, limits, nothing outlives
// rein) holds for all of them alike.
//
// On Linux the launch starts through a supervisor (rein re-executed, see
// guard_linux.go) in a process group of its own: it dies with rein from
// its first instant, and when rein dies — or the launch's leader exits —
// it kills every process the launch started, wherever they moved (a new
// process group or session, a double fork, bubblewrap's PID namespace).
// The supervisor passes the leader's exit status or signal on as its own.
func (l Launch) Apply(cmd *exec.Cmd) {
	l = l.guarded(len(cmd.ExtraFiles) + len(l.Files))
	cmd.Path = l.Path
	cmd.Args = l.Args
	cmd.Err = nil // exec.Command's own LookPath result no longer applies
	cmd.Env = append(cmd.Env, l.Env...)
	cmd.ExtraFiles = append(cmd.ExtraFiles, l.Files...)
	cmd.SysProcAttr = procAttr(l)
	l.intoCgroup(cmd.SysProcAttr) // a cgroup v2 of its own: born inside it
}

// ProcessAttr returns the attributes Apply gives a launch's supervisor,
// for a process started without Prepare: its own process group and, on
// Linux, SIGKILL when rein dies (set before exec, the parent re-checked).
// Only the process itself is covered, not what it starts; Apply covers
// both.
func ProcessAttr() *syscall.SysProcAttr { return procAttr(Launch{}) }
