//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// selfExe re-executes the running binary even if its file was replaced or
// removed since start.
const selfExe = "/proc/self/exe"

// configs indexes go-landlock's presets by ABI version.
var configs = []landlock.Config{
	{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

func init() {
	if raw, ok := os.LookupEnv(envGuard); ok {
		runGuard(raw) // never returns
	}
	raw, ok := os.LookupEnv(envMarker)
	if !ok {
		return
	}
	runChild(raw) // never returns
}

// Available reports the kernel's Landlock ABI version, or an error wrapping
// ErrUnavailable when Landlock is missing or disabled.
func Available() (int, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0, fmt.Errorf("%w: %v (needs Linux 5.13+ with Landlock enabled at boot, lsm=landlock)", ErrUnavailable, err)
	}
	if abi < 1 {
		return 0, fmt.Errorf("%w: kernel reports Landlock ABI %d", ErrUnavailable, abi)
	}
	return abi, nil
}

// runChild applies the policy to this process and execs the command.
func runChild(raw string) {
	// The marker must not leak into the command: a nested rein would
	// otherwise treat itself as a sandbox child.
	os.Unsetenv(envMarker)
	var cfg childConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		childFail("bad %s: %v", envMarker, err)
	}
	if len(os.Args) < 3 {
		childFail("no command to run")
	}
	// First, so that nothing of the command starts outside its cgroup.
	if err := joinCgroups(cfg.CgroupFDs, cfg.CgroupJoin); err != nil {
		childFail("%v", err)
	}
	if cfg.ExeFD > 2 {
		// The descriptor bubblewrap started us through must not reach
		// the command.
		syscall.CloseOnExec(cfg.ExeFD)
	}
	// Capabilities are per thread: drop and exec on this one.
	runtime.LockOSThread()
	if err := dropPtrace(); err != nil {
		childFail("drop CAP_SYS_PTRACE: %v", err)
	}
	// Landlock sets it too; set it here for the namespace-only case: no
	// setuid binary may regain privileges inside.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		childFail("set no-new-privileges: %v", err)
	}
	if !cfg.NoLandlock { // else the parent chose namespaces alone
		if err := restrict(cfg); err != nil {
			childFail("%v", err)
		}
	}
	if err := setRlimits(cfg.Limits); err != nil {
		childFail("resource limits: %v", err)
	}
	err := syscall.Exec(os.Args[1], os.Args[2:], os.Environ())
	childFail("exec %s: %v", os.Args[1], err)
}

// restrict applies the Landlock ruleset of cfg to the calling thread,
// which must be locked to it (runtime.LockOSThread), have no-new-privileges
// set, and exec the command next.
func restrict(cfg childConfig) error {
	abi, err := Available()
	if err != nil {
		if cfg.Mode == Auto {
			return nil // the parent checked; a vanished Landlock degrades like Auto does
		}
		return err
	}
	ver := min(abi, len(configs)-1)
	base := configs[ver]
	if cfg.Mode == Auto {
		base = configs[len(configs)-1]
	}
	// Files and IPC scopes (no signals or abstract sockets to processes
	// outside); without network also TCP (ABI 4+) and UDP (ABI 10+) with
	// no port allowed. Landlock cannot restrict Multipath TCP or other
	// protocols: the network namespace is the real boundary there.
	c := landlock.Config{HandledAccessFS: base.HandledAccessFS, Scoped: base.Scoped}
	if !cfg.Network {
		c.HandledAccessNet = base.HandledAccessNet
	}
	if cfg.Mode == Auto {
		c = c.BestEffort()
	}
	read := []string{"/"}
	if !cfg.AllRead {
		read = cfg.Readable
	}
	// Missing writable entries are skipped: the workspace and the temp
	// directory exist by construction, and a configured cache directory
	// that does not exist yet must not stop every command.
	rw := landlock.RWDirs(cfg.Writable...).IgnoreIfMissing()
	if ver >= 2 || cfg.Mode == Auto {
		// Moving files between directories (mv a/x b/) needs "refer".
		rw = rw.WithRefer()
	}
	rules := []landlock.Rule{
		rw,
		// Commands write to these devices all the time (2>/dev/null).
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full").IgnoreIfMissing(),
	}
	if len(read) > 0 {
		rules = append(rules, landlock.RODirs(read...).IgnoreIfMissing())
	}
	// The ruleset is enforced on this thread alone, which runChild has
	// locked and which execs the command: execve keeps only the calling
	// thread, so the command runs in the domain, and no code but this
	// package's runs on the other threads before. Config.Restrict would
	// enforce it on every thread of the process through libpsx, which
	// signals each one and spins in sched_yield until all have answered:
	// on a loaded machine the largest part of a sandboxed command's start.
	fd, flags, err := c.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("apply Landlock ruleset (ABI %d): %w", abi, err)
	}
	if fd < 0 {
		return nil // best effort, and nothing this kernel can enforce
	}
	defer syscall.Close(fd)
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("apply Landlock ruleset (ABI %d): %w", abi, err)
	}
	return nil
}

// dropPtrace removes CAP_SYS_PTRACE from this thread's capability sets
// and bounding set. Run as root without namespaces, a command could
// otherwise read rein's memory and /proc files (environ) despite rein
// being non-dumpable. With no-new-privileges it cannot come back.
func dropPtrace() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	const idx, bit = unix.CAP_SYS_PTRACE / 32, uint32(1) << (unix.CAP_SYS_PTRACE % 32)
	if (data[idx].Permitted|data[idx].Effective|data[idx].Inheritable)&bit != 0 {
		data[idx].Permitted &^= bit
		data[idx].Effective &^= bit
		data[idx].Inheritable &^= bit
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0, 0, 0); err != nil && err != unix.EPERM && err != unix.EINVAL {
		return err
	}
	return nil
}
