// Package sandbox runs commands confined to the workspace.
//
// On Linux there are two layers. The outer one is a set of namespaces made
// by bubblewrap (bwrap): a read-only view of the root filesystem with the
// workspace, a private temporary directory and configured directories
// bound writable, protected paths inside the workspace bound read-only,
// secret stores masked, a fresh PID namespace (so no process outside is
// visible and nothing outlives the command), no network unless allowed, a
// new session (no terminal injection) and no capabilities. The inner one is
// Landlock, applied in a re-executed copy of the current binary: Prepare
// builds the ruleset (writes only to the writable directories, no TCP
// unless the network is allowed, no signals or abstract sockets to
// processes outside) and the parent starts the binary with it as a
// descriptor and an environment marker; the init function of package
// internal/child sees the marker before main runs (and before most of the
// binary's packages initialise), enforces the ruleset on the thread that
// then replaces itself (execve) with the command. Any binary that links
// this package — rein itself, or a test binary — can therefore sandbox
// commands without a helper executable.
//
// Without working namespaces the command gets the Landlock layer alone and
// the caller is warned once (see Launch.Warning); mode Required refuses.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/reinharness/rein/workspace/sandbox/internal/child"
)

// Mode chooses what happens when the kernel cannot enforce the sandbox.
type Mode string

// Modes.
const (
	// Auto sandboxes commands as well as the system allows: namespaces
	// and Landlock, else Landlock alone, else nothing — with a one-time
	// warning naming what is not confined.
	Auto Mode = "auto"
	// Required refuses to run commands unless both namespaces
	// (bubblewrap) and Landlock are available.
	Required Mode = "required"
	// Off never sandboxes.
	Off Mode = "off"
)

// ParseMode validates a mode name; "" means Auto.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Auto:
		return Auto, nil
	case Required, Off:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q: use auto, required or off", s)
}

// ErrUnavailable reports that the sandbox (Landlock or the namespaces)
// cannot be used on this system.
var ErrUnavailable = errors.New("sandbox unavailable")

// Isolation values of Launch.Isolation.
const (
	// IsolationFull is bubblewrap's namespaces with Landlock inside.
	IsolationFull = "namespaces+landlock"
	// IsolationNamespaces is bubblewrap's namespaces on a kernel without
	// Landlock.
	IsolationNamespaces = "namespaces"
	// IsolationLandlock is Landlock alone (no usable bubblewrap).
	IsolationLandlock = "landlock"
	// IsolationNone is no sandbox at all.
	IsolationNone = "none"
)

// Policy is what a sandboxed command may touch.
type Policy struct {
	// Mode says what to do when the sandbox is unavailable ("" is Auto).
	Mode Mode
	// Writable directories may be read, written and executed from; the
	// workspace and the private temporary directory belong here (first).
	// Missing entries are ignored.
	Writable []string
	// Caches are directories bound writable after the hidden masks, so
	// that they may lie inside a hidden directory: the workspace's
	// persistent tool caches under rein's state directory (see Caches).
	// Missing entries are skipped.
	Caches []string
	// Readable directories may be read and executed from (Landlock);
	// nil means the whole filesystem. Missing entries are ignored.
	Readable []string
	// Network allows network access. When false, commands get no network
	// namespace of their own (only a loopback nobody listens on) and
	// Landlock denies TCP (and UDP on ABI 10+).
	Network bool
	// Protected lists absolute paths inside writable directories (the
	// workspace's .git/config, .git/hooks, .rein, …, see
	// DefaultProtected) bound read-only, so a command can neither write,
	// replace, rename nor delete them. Paths missing when the command
	// starts are not bound, except a missing .git/hooks whose .git exists:
	// it is created empty first, so no command can add a hook; the others
	// whose parent exists are removed again if the command creates them
	// (Launch.Watch, Sweep). Their
	// ancestors inside the writable directory (.git) are pinned so they
	// cannot be renamed away. Only the namespace layer enforces this.
	Protected []string
	// Hidden lists absolute paths masked from commands: an empty
	// directory over a directory, an empty file over anything else (see
	// DefaultHidden). Missing entries, and entries that are a writable
	// directory or one of its ancestors, are skipped. Only the namespace
	// layer enforces this.
	Hidden []string
	// Visible lists directories the namespace layer's skeleton would hide
	// (its /tmp is empty) that are bound back read-only: the program and
	// files of a user's own MCP server living under /tmp. Writable
	// directories go over them. Missing entries are skipped.
	Visible []string
	// Dir is the command's working directory ("" for the caller's). It
	// must be visible inside the sandbox (inside a writable directory).
	Dir string
	// Probe reports the kernel's Landlock ABI; nil means Available. Set it
	// to pin the answer, e.g. to exercise the no-Landlock path in tests.
	Probe func() (abi int, err error)
	// Namespaces reports the path of a bubblewrap that can create the
	// sandbox's namespaces, or an error saying why there is none; nil
	// means Namespaces (found on PATH and probed once per process). Set it
	// to exercise the fallback in tests.
	Namespaces func() (bwrap string, err error)
	// Limits bounds the command's processes, memory, CPU time, file
	// sizes and open files; zero fields take DefaultLimits. They apply
	// whenever a sandbox layer does (see Limits for how).
	Limits Limits
}

// Launch says how to start a command: Path and Args for exec.Cmd, extra
// environment entries and files, and which layers apply.
type Launch struct {
	// Path is the program to execute and Args its argv (Args[0] included).
	Path string
	Args []string
	// Env holds entries the caller must append to the command's
	// environment (the marker carrying the policy to the child).
	Env []string
	// Files are open files the caller must pass as exec.Cmd.ExtraFiles,
	// in order (the binary re-executed inside the namespaces, the
	// command's cgroup, the Landlock ruleset).
	Files []*os.File
	// Watch lists protected paths that were missing when the command
	// started; the caller passes it to Sweep after the command.
	Watch []string
	// Sandboxed reports that at least one layer confines the command.
	Sandboxed bool
	// Isolation names the layers that apply: IsolationFull,
	// IsolationNamespaces, IsolationLandlock or IsolationNone.
	Isolation string
	// ABI is the kernel's Landlock ABI version (0 when unavailable).
	ABI int
	// Warning is set when the mode is Auto and the sandbox is partly or
	// wholly unavailable, or when a resource limit cannot be enforced as
	// configured; it names what is not confined. The caller shows it once.
	Warning string
	// Limits are the resource limits that apply (zero when none do).
	Limits Limits

	// guard is set on the launch Apply starts through the supervisor
	// (see guard_linux.go): its parent-death signal must be catchable.
	guard bool
	// cgroup is the command's own cgroup (nil: none); see Release. With
	// cgroup v2 the supervisor is born in it too.
	cgroup *cgroupSet
	// ruleset is the Landlock ruleset the child enforces (nil: none),
	// the last of Files; Release closes rein's copy.
	ruleset *os.File
}

// Release must be called once the command's leader has been waited for
// (st is its exec.Cmd.ProcessState), and with nil for a Launch that was
// never started: Prepare may have created the command's cgroup and holds
// descriptors for it (a Launch dropped without Release has its cgroup
// removed once it is garbage, without the report). Release names the
// resource limit that stopped or hampered the command ("" for none):
// memory (the cgroup's OOM killer struck), cpu_time or file_size (the
// leader died of SIGXCPU or SIGXFSZ, or exited with 128 plus one of them,
// as bubblewrap and shells report it), processes (a fork failed at the
// cgroup's pids.max). It also kills every process left in the command's
// cgroup and removes it, within about 2 s. Call it once per Launch (its
// copies share the cgroup); it is safe on any Launch, cgroup or not.
func (l Launch) Release(st *os.ProcessState) Limit {
	closeFile(l.ruleset)
	return l.release(st)
}

// envMarker carries the JSON child.Config to the re-executed child.
const envMarker = child.EnvMarker

// childExitCode is the child's exit status when it cannot apply the
// sandbox or start the command (126: "command cannot execute").
const childExitCode = child.ExitCode

// childConfig is the policy as Prepare works it out: the part the child
// applies (child.Config, the only part sent) and what rein itself
// enforces with it.
type childConfig struct {
	child.Config
	Mode     Mode     `json:"-"`
	Writable []string `json:"-"`
	Readable []string `json:"-"`
	AllRead  bool     `json:"-"`
	// Network allows TCP; otherwise Landlock (ABI 4+) denies it.
	Network bool `json:"-"`
	// NoLandlock says Prepare found no Landlock: the child only sets
	// no-new-privileges.
	NoLandlock bool `json:"-"`
}

// Prepare decides how to run argv (argv[0] is looked up in PATH) under p.
// With Mode Off, or Auto on a system with neither namespaces nor Landlock,
// it returns argv unchanged; with Required it fails with ErrUnavailable
// unless both layers are available.
func Prepare(p Policy, argv []string) (Launch, error) {
	if len(argv) == 0 {
		return Launch{}, errors.New("sandbox: empty command")
	}
	mode, err := ParseMode(string(p.Mode))
	if err != nil {
		return Launch{}, err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return Launch{}, err
	}
	direct := Launch{Path: path, Args: argv, Isolation: IsolationNone}
	if mode == Off {
		return direct, nil
	}
	probe := p.Probe
	if probe == nil {
		probe = Available
	}
	abi, lerr := probe()
	if lerr == nil && abi < 1 {
		lerr = fmt.Errorf("%w: kernel reports Landlock ABI %d", ErrUnavailable, abi)
	}
	if lerr != nil {
		abi = 0
	}
	nsProbe := p.Namespaces
	if nsProbe == nil {
		nsProbe = Namespaces
	}
	bwrap, nerr := nsProbe()
	if mode == Required {
		switch {
		case nerr != nil:
			return Launch{}, fmt.Errorf("%w: %v; sandbox mode is \"required\", so commands are refused: %s, or set [sandbox] mode = \"auto\" to run them less confined", ErrUnavailable, nerr, nsFix)
		case lerr != nil:
			return Launch{}, fmt.Errorf("%w (%v): sandbox mode is \"required\", so commands are refused; enable Landlock or set [sandbox] mode = \"auto\"", ErrUnavailable, lerr)
		}
	}
	if nerr != nil && lerr != nil {
		direct.Warning = fmt.Sprintf("commands run without a sandbox: %v; and %v", nerr, lerr)
		return direct, nil
	}
	cfg := childConfig{Mode: mode, AllRead: p.Readable == nil, Network: p.Network, NoLandlock: lerr != nil}
	if cfg.Writable, err = absAll("writable", p.Writable); err != nil {
		return Launch{}, err
	}
	if cfg.Readable, err = absAll("readable", p.Readable); err != nil {
		return Launch{}, err
	}
	// Landlock lets the command write the caches like any writable
	// directory; the namespace layer binds them after its masks.
	caches, err := absAll("cache", p.Caches)
	if err != nil {
		return Launch{}, err
	}
	cfg.Writable = append(cfg.Writable, caches...)
	var ruleset *os.File
	if !cfg.NoLandlock {
		if ruleset, cfg.RulesetFlags, err = newRuleset(cfg); err != nil {
			return Launch{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	cl, cg, limitWarning := planLimits(p.Limits, nerr == nil)
	cfg.Limits = cl
	// The descriptors follow Launch.Files: the binary bubblewrap starts
	// (exeFD) with namespaces, nothing before them without; then the
	// cgroup's, then the ruleset.
	next := 3
	if nerr == nil {
		next = exeFD + 1
	}
	if cg != nil {
		if err := cg.create(); err != nil {
			closeFile(ruleset)
			return Launch{}, fmt.Errorf("sandbox: %w", err)
		}
		for range cg.files() {
			cfg.CgroupFDs = append(cfg.CgroupFDs, next)
			next++
		}
		cfg.CgroupJoin = !cg.v2
	}
	if ruleset != nil {
		cfg.RulesetFD = next
	}
	var l Launch
	if nerr != nil {
		l, err = prepareLandlock(cfg, path, argv, abi, nerr)
	} else {
		l, err = prepareNamespaces(p, cfg, bwrap, path, argv, abi)
	}
	if err != nil {
		if cg != nil {
			cg.release()
		}
		closeFile(ruleset)
		return Launch{}, err
	}
	l, err = l.withLimits(p.Limits, cg, limitWarning)
	if ruleset != nil {
		l.Files = append(l.Files, ruleset)
		l.ruleset = ruleset
	}
	return l, err
}

// closeFile closes f unless it is nil.
func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// nsFix says how to get working namespaces.
const nsFix = "install bubblewrap (e.g. apt-get install bubblewrap) and allow unprivileged user namespaces"

// prepareLandlock is the fallback: Landlock alone, rein non-dumpable,
// and a warning naming what is not confined.
func prepareLandlock(cfg childConfig, path string, argv []string, abi int, nerr error) (Launch, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return Launch{}, fmt.Errorf("sandbox: %w", err)
	}
	if err := makeNonDumpable(); err != nil {
		return Launch{}, fmt.Errorf("sandbox: %w", err)
	}
	return Launch{
		Path: selfExe,
		// Args[0] names the role in ps output; the child execs Args[1]
		// with argv Args[2:].
		Args:      append([]string{"rein-sandbox", path}, argv...),
		Env:       []string{envMarker + "=" + string(b)},
		Sandboxed: true,
		Isolation: IsolationLandlock,
		ABI:       abi,
		Warning:   landlockOnlyWarning(nerr, abi, cfg.Network),
	}, nil
}

// landlockOnlyWarning names what Landlock alone leaves unconfined.
func landlockOnlyWarning(nerr error, abi int, network bool) string {
	open := "other processes (their command lines), files' metadata outside the workspace (chmod, chown, times, xattrs), the protected files inside it (.git/config, .git/hooks, .rein, …) and the hidden secret stores (~/.ssh, …)"
	if os.Geteuid() == 0 {
		open = "rein's own environment (rein runs as root), " + open
	}
	switch {
	case network:
	case abi < 4:
		open = "the network, " + open
	case abi < 10:
		open = "UDP, " + open
	}
	return fmt.Sprintf("%v: commands are confined by Landlock only (writes outside the workspace are blocked); %s are not isolated — %s", nerr, open, nsFix)
}

func absAll(what string, dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %s directory %s: %w", what, d, err)
		}
		out = append(out, abs)
	}
	return out, nil
}

// childFail reports a failure of the supervisor and exits; it never
// returns.
func childFail(format string, args ...any) { child.Fail(format, args...) }
