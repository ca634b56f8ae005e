//go:build !unix

package sandbox

import "syscall"

func procAttr(Launch) *syscall.SysProcAttr { return nil }
