//go:build !linux

package sandbox

import (
	"os"
	"syscall"
)

// cgroupSet exists only on Linux.
type cgroupSet struct{ v2 bool }

func (c *cgroupSet) files() []*os.File { return nil }

// planLimits: resource limits are a Linux feature (like the sandbox).
func planLimits(Limits, bool) (childLimits, *cgroupSet, string) {
	return childLimits{}, nil, ""
}

func (l Launch) withLimits(lim Limits, _ *cgroupSet, _ string) (Launch, error) {
	return l, nil
}

func (l Launch) release(*os.ProcessState) Limit { return "" }

func physicalMemory() int64 { return 0 }

func (c *cgroupSet) create() error { return nil }

func (c *cgroupSet) release() (memory, procs bool) { return false, false }

func (l Launch) intoCgroup(*syscall.SysProcAttr) {}
