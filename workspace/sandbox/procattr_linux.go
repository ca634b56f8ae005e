package sandbox

import "syscall"

// procAttr puts the child in its own process group (so it can be killed
// as a group) and asks the kernel to SIGKILL it when rein dies. Go's fork
// sets the parent-death signal before exec and re-checks the parent, so
// there is no window in which a child of a dead rein runs.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
