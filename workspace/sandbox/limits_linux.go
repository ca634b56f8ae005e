//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// planLimits decides how lim is enforced for one command: the rlimits
// the child sets, the per-command cgroup (nil without one) and a warning
// naming what is not enforced ("" when everything is). namespaces says
// whether the command gets bubblewrap's user namespace.
func planLimits(lim Limits, namespaces bool) (childLimits, *cgroupSet, string) {
	return planLimitsWith(lim, namespaces, os.Geteuid() == 0, cgroups)
}

// planLimitsWith is planLimits with the cgroup probe and rein's
// privilege given.
func planLimitsWith(lim Limits, namespaces, root bool, probe func() (*cgroupPlan, string)) (childLimits, *cgroupSet, string) {
	lim = lim.Resolved()
	pos := func(v int64) uint64 { return uint64(max(v, 0)) }
	cl := childLimits{FSize: pos(lim.FileSize), NoFile: pos(int64(lim.OpenFiles))}
	if lim.CPUTime > 0 {
		cl.CPU = uint64((lim.CPUTime + time.Second - 1) / time.Second)
	}
	wantProcs, wantMem := lim.Processes > 0, lim.Memory > 0
	if !wantProcs && !wantMem {
		return cl, nil, ""
	}
	plan, why := probe()
	if plan != nil {
		return cl, plan.forCommand(lim), ""
	}
	cl.Data = pos(lim.Memory)
	var open []string
	if wantProcs {
		switch {
		case !namespaces:
			open = append(open, "the process limit is not enforced (no user namespace of its own)")
		case root:
			open = append(open, "the process limit is not enforced (root is exempt from RLIMIT_NPROC)")
		default:
			cl.NProc = pos(int64(lim.Processes))
		}
	}
	if wantMem {
		open = append(open, "memory is limited per process (RLIMIT_DATA), not for the command as a whole")
	}
	if len(open) == 0 {
		return cl, nil, ""
	}
	return cl, nil, fmt.Sprintf("resource limits: %s, because %s — %s", joinAnd(open), why, cgroupFix)
}

// cgroupFix says how to get a cgroup rein may use.
const cgroupFix = "run rein in a cgroup v2 delegated to it (systemd-run --user --scope -p Delegate=yes rein …), or as root"

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " and " + s[len(s)-1]
}

// limitFromStatus names the rlimit whose signal ended the command: the
// leader was killed by it, or (through bubblewrap or a shell) exited
// with 128 plus its number. A command that itself exits with 152 or 153
// is taken for one that hit the limit: nothing else tells them apart
// (bubblewrap's rusage does not include the command's CPU time).
func limitFromStatus(st *os.ProcessState, lim Limits) Limit {
	if st == nil {
		return ""
	}
	sig := syscall.Signal(0)
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig = ws.Signal()
	} else if c := st.ExitCode(); c > 128 && c < 128+65 {
		sig = syscall.Signal(c - 128)
	}
	switch {
	case sig == syscall.SIGXCPU && lim.CPUTime > 0:
		return LimitCPUTime
	case sig == syscall.SIGXFSZ && lim.FileSize > 0:
		return LimitFileSize
	}
	return ""
}

// physicalMemory is the machine's RAM in bytes (0 if unknown).
func physicalMemory() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
