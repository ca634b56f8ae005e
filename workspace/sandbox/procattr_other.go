//go:build unix && !linux

package sandbox

import "syscall"

// procAttr puts the child in its own process group; other systems have no
// parent-death signal.
func procAttr(Launch) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
