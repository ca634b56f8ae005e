//go:build linux

package sandbox

import (
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
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
	// The sandbox child (envMarker) runs in package child's init, before
	// this one; the supervisor runs here.
	if raw, ok := os.LookupEnv(envGuard); ok {
		runGuard(raw) // never returns
	}
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

// newRuleset builds the Landlock ruleset of cfg for the child, which
// enforces it on the thread that execs the command (see package child):
// the file, nil when this kernel has nothing to enforce (Auto without
// Landlock), and the flags for landlock_restrict_self. The rules name
// directories as rein sees them; Landlock ties each rule to the inode, so
// it holds inside bubblewrap's mount namespace, where the same
// directories are bound at the same paths (a path masked there resolves
// to the mask, which no rule names). Enforcing on one thread spares the
// child go-landlock's all-thread path (libpsx signals every thread and
// spins in sched_yield until each has answered) and the library itself.
func newRuleset(cfg childConfig) (*os.File, uint32, error) {
	abi, err := Available()
	if err != nil {
		if cfg.Mode == Auto {
			return nil, 0, nil // probed before; a vanished Landlock degrades like Auto does
		}
		return nil, 0, err
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
	fd, flags, err := c.NewRulesetFD(rules...)
	if err != nil {
		return nil, 0, fmt.Errorf("build the Landlock ruleset (ABI %d): %w", abi, err)
	}
	if fd < 0 {
		return nil, 0, nil
	}
	return os.NewFile(uintptr(fd), "landlock-ruleset"), flags, nil
}
