//go:build linux

package child

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

func init() {
	if _, ok := syscall.Getenv(EnvGuard); ok {
		return // the supervisor: the sandbox package's init runs it
	}
	raw, ok := syscall.Getenv(EnvMarker)
	if !ok {
		return
	}
	run(raw) // never returns
}

// Linux constants the syscall package lacks (the same on every
// architecture; the rlimit and syscall numbers that differ are in
// sysnum_*.go).
const (
	prCapbsetDrop   = 24
	prSetNoNewPrivs = 38
	capSysPtrace    = 19
	capSysResource  = 24
	capVersion3     = 0x20080522
)

// CPUGrace is how long after SIGXCPU (the soft limit) the kernel sends
// SIGKILL (the hard limit) to a process that ignores it.
const CPUGrace = 2 * time.Second

// run applies cfg to this process and execs the command.
func run(raw string) {
	// The marker must not leak into the command: a nested rein would
	// otherwise treat itself as a sandbox child.
	os.Unsetenv(EnvMarker)
	var cfg Config
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		Fail("bad %s: %v", EnvMarker, err)
	}
	if len(os.Args) < 3 {
		Fail("no command to run")
	}
	// Capabilities, no-new-privileges and the Landlock domain are per
	// thread: set them, and exec, on this one. execve keeps only the
	// calling thread, so the command gets all of them.
	runtime.LockOSThread()
	if err := apply(cfg); err != nil {
		Fail("%v", err)
	}
	err := syscall.Exec(os.Args[1], os.Args[2:], os.Environ())
	Fail("exec %s: %v", os.Args[1], err)
}

// apply does all of cfg but the exec, on the calling thread, which must be
// locked to it.
func apply(cfg Config) error {
	// First, so that nothing of the command starts outside its cgroup.
	if err := joinCgroups(cfg.CgroupFDs, cfg.CgroupJoin); err != nil {
		return err
	}
	for _, fd := range []int{cfg.ExeFD, cfg.RulesetFD} {
		if fd > 2 {
			// The descriptors bubblewrap started us through and the
			// ruleset must not reach the command.
			syscall.CloseOnExec(fd)
		}
	}
	if err := dropCap(capSysPtrace); err != nil {
		return fmt.Errorf("drop CAP_SYS_PTRACE: %w", err)
	}
	// Landlock requires it; it also covers the namespace-only case: no
	// setuid binary may regain privileges inside.
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return fmt.Errorf("set no-new-privileges: %w", err)
	}
	if cfg.RulesetFD > 2 {
		if _, _, e := syscall.RawSyscall(sysLandlockRestrictSelf, uintptr(cfg.RulesetFD), uintptr(cfg.RulesetFlags), 0); e != 0 {
			return fmt.Errorf("apply Landlock ruleset: landlock_restrict_self: %w", e)
		}
	}
	if err := setRlimits(cfg.Limits); err != nil {
		return fmt.Errorf("resource limits: %w", err)
	}
	return nil
}

// joinCgroups moves the calling process (all its threads) into the
// cgroups whose cgroup.procs are open as fds when join is set (v1), and
// closes the fds: the command must not hold them.
func joinCgroups(fds []int, join bool) error {
	for _, fd := range fds {
		if join {
			if _, err := syscall.Write(fd, []byte("0")); err != nil {
				return fmt.Errorf("enter the command's cgroup: %w", err)
			}
		}
		syscall.Close(fd)
	}
	return nil
}

// setRlimits applies l to the calling process and drops CAP_SYS_RESOURCE,
// so that the command cannot raise them again (bubblewrap drops every
// capability; under Landlock alone a root rein's command would keep it).
// Every limit only lowers: a value above the inherited hard limit is
// clamped to it, so an unprivileged rein never fails for asking more than
// it has.
func setRlimits(l Limits) error {
	for _, r := range []struct {
		name       string
		res        int
		soft, hard uint64
	}{
		{"RLIMIT_CPU", syscall.RLIMIT_CPU, l.CPU, uint64(CPUGrace / time.Second)},
		{"RLIMIT_FSIZE", syscall.RLIMIT_FSIZE, l.FSize, 0},
		{"RLIMIT_NOFILE", syscall.RLIMIT_NOFILE, l.NoFile, 0},
		{"RLIMIT_NPROC", rlimitNProc, l.NProc, 0},
		{"RLIMIT_DATA", syscall.RLIMIT_DATA, l.Data, 0},
	} {
		if r.soft == 0 {
			continue
		}
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(r.res, &cur); err != nil {
			return fmt.Errorf("read %s: %w", r.name, err)
		}
		lim := syscall.Rlimit{Cur: min(r.soft, cur.Max), Max: min(r.soft+r.hard, cur.Max)}
		// syscall.Setrlimit also tells exec not to restore the soft
		// RLIMIT_NOFILE Go raised at start-up.
		if err := syscall.Setrlimit(r.res, &lim); err != nil {
			return fmt.Errorf("set %s to %d: %w", r.name, r.soft, err)
		}
	}
	if err := dropCap(capSysResource); err != nil {
		return fmt.Errorf("drop CAP_SYS_RESOURCE: %w", err)
	}
	return nil
}

// capHeader and capData are the kernel's __user_cap_header_struct and
// __user_cap_data_struct (version 3: two of the latter).
type capHeader struct {
	version uint32
	pid     int32
}

type capData struct {
	effective, permitted, inheritable uint32
}

// dropCap removes a capability from this thread's sets and from the
// bounding set; with no-new-privileges it cannot come back. Run as root
// without namespaces, a command keeping CAP_SYS_PTRACE could read rein's
// memory and /proc files (environ) despite rein being non-dumpable.
func dropCap(capability int) error {
	hdr := capHeader{version: capVersion3}
	var data [2]capData
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	idx, bit := capability/32, uint32(1)<<(capability%32)
	if (data[idx].permitted|data[idx].effective|data[idx].inheritable)&bit != 0 {
		data[idx].permitted &^= bit
		data[idx].effective &^= bit
		data[idx].inheritable &^= bit
		if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
			return e
		}
	}
	if err := prctl(prCapbsetDrop, uintptr(capability)); err != nil && err != syscall.EPERM && err != syscall.EINVAL {
		return err
	}
	return nil
}

func prctl(option int, arg uintptr) error {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, uintptr(option), arg, 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}
