//go:build unix

package session_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used. Benchmarks report it
// per operation beside wall time, because on a shared machine the wall
// time mostly measures the other tenants.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
