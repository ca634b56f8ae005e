package sandbox

import "syscall"

// procAttr puts the child in its own process group (so it can be killed
// as a group) and asks the kernel to signal it when rein dies: SIGKILL,
// or for the supervisor a signal it catches to kill what the launch
// started first. Go's fork sets the parent-death signal before exec and
// re-checks the parent, so there is no window in which a child of a dead
// rein runs.
func procAttr(l Launch) *syscall.SysProcAttr {
	sig := syscall.SIGKILL
	if l.guard {
		sig = guardDeathSignal
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: sig}
}
