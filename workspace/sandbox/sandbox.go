// Package sandbox runs commands under Linux Landlock so they can write only
// inside the workspace and a private temporary directory.
//
// Landlock restricts the calling process and everything it starts, so the
// restriction is applied in a re-executed copy of the current binary: the
// parent starts /proc/self/exe with an environment marker, this package's
// init function sees the marker before main runs, applies the ruleset and
// replaces itself (execve) with the command. Any binary that links this
// package — rein itself, or a test binary — can therefore sandbox commands
// without a helper executable.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Mode chooses what happens when the kernel cannot enforce the sandbox.
type Mode string

// Modes.
const (
	// Auto sandboxes commands when the kernel supports Landlock and runs
	// them unsandboxed (with a one-time warning) when it does not.
	Auto Mode = "auto"
	// Required refuses to run commands when Landlock is unavailable.
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

// ErrUnavailable reports that Landlock cannot be used on this system.
var ErrUnavailable = errors.New("landlock sandbox unavailable")

// Policy is what a sandboxed command may touch.
type Policy struct {
	// Mode says what to do when Landlock is unavailable ("" is Auto).
	Mode Mode
	// Writable directories may be read, written and executed from; the
	// workspace and the private temporary directory belong here.
	Writable []string
	// Readable directories may be read and executed from; nil means the
	// whole filesystem. Missing entries are ignored.
	Readable []string
	// Probe reports the kernel's Landlock ABI; nil means Available. Set it
	// to pin the answer, e.g. to exercise the no-Landlock path in tests.
	Probe func() (abi int, err error)
}

// Launch says how to start a command: Path and Args for exec.Cmd, extra
// environment entries, and whether the sandbox applies.
type Launch struct {
	// Path is the program to execute and Args its argv (Args[0] included).
	Path string
	Args []string
	// Env holds entries the caller must append to the command's
	// environment (the marker carrying the policy to the child).
	Env []string
	// Sandboxed reports that Landlock will restrict the command.
	Sandboxed bool
	// ABI is the kernel's Landlock ABI version (0 when unavailable).
	ABI int
	// Warning is set when the mode is Auto and the sandbox is unavailable;
	// the caller shows it once.
	Warning string
}

// envMarker carries the JSON childConfig to the re-executed child.
const envMarker = "REIN_SANDBOX_EXEC"

// childExitCode is the child's exit status when it cannot apply the
// sandbox or start the command (126: "command cannot execute").
const childExitCode = 126

// childConfig is the policy as the child receives it.
type childConfig struct {
	Mode     Mode     `json:"mode"`
	Writable []string `json:"rw"`
	Readable []string `json:"ro,omitempty"`
	AllRead  bool     `json:"all_read"`
}

// Prepare decides how to run argv (argv[0] is looked up in PATH) under p.
// With Mode Off, or Auto on a kernel without Landlock, it returns argv
// unchanged; with Required on such a kernel it fails with ErrUnavailable.
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
	direct := Launch{Path: path, Args: argv}
	if mode == Off {
		return direct, nil
	}
	probe := p.Probe
	if probe == nil {
		probe = Available
	}
	abi, perr := probe()
	if perr != nil || abi < 1 {
		if perr == nil {
			perr = ErrUnavailable
		}
		if mode == Required {
			return Launch{}, fmt.Errorf("%w (%v): sandbox mode is \"required\", so commands are refused; set sandbox = \"auto\" to run them unsandboxed", ErrUnavailable, perr)
		}
		direct.Warning = fmt.Sprintf("commands run without a sandbox: %v", perr)
		return direct, nil
	}
	cfg := childConfig{Mode: mode, AllRead: p.Readable == nil}
	for _, d := range p.Writable {
		abs, err := filepath.Abs(d)
		if err != nil {
			return Launch{}, fmt.Errorf("sandbox: writable directory %s: %w", d, err)
		}
		cfg.Writable = append(cfg.Writable, abs)
	}
	for _, d := range p.Readable {
		abs, err := filepath.Abs(d)
		if err != nil {
			return Launch{}, fmt.Errorf("sandbox: readable directory %s: %w", d, err)
		}
		cfg.Readable = append(cfg.Readable, abs)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return Launch{}, fmt.Errorf("sandbox: %w", err)
	}
	return Launch{
		Path: selfExe,
		// Args[0] names the role in ps output; the child execs Args[1]
		// with argv Args[2:].
		Args:      append([]string{"rein-sandbox", path}, argv...),
		Env:       []string{envMarker + "=" + string(b)},
		Sandboxed: true,
		ABI:       abi,
	}, nil
}

// childFail reports a failure in the re-executed child and exits; it
// never returns.
func childFail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rein sandbox: "+format+"\n", args...)
	os.Exit(childExitCode)
}
