//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// exeFD is the descriptor number the re-executed binary has in bubblewrap
// (the first of exec.Cmd.ExtraFiles).
const exeFD = 3

// Namespaces reports the path of a bubblewrap found on PATH that can
// create the sandbox's namespaces here. Both the lookup and a probe run
// (the full flag set around `true`) happen once per process; later calls
// return the cached answer.
func Namespaces() (string, error) {
	nsOnce.Do(func() { nsPath, nsErr = probeBwrap() })
	return nsPath, nsErr
}

var (
	nsOnce sync.Once
	nsPath string
	nsErr  error
)

func probeBwrap() (string, error) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fmt.Errorf("bubblewrap not found")
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		return "", fmt.Errorf("bubblewrap probe: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := append(baseArgs(false), "--", truePath)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bwrap)
	cmd.Stdout, cmd.Stderr = &out, &out
	// The probe dies with rein like any command.
	Launch{Path: bwrap, Args: append([]string{bwrap}, args...)}.Apply(cmd)
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("bubblewrap cannot create namespaces here (%s)", msg)
	}
	return bwrap, nil
}

// baseArgs are the namespace flags and the filesystem skeleton: a
// read-only root, fresh /dev, /proc of the new PID namespace, empty /tmp.
func baseArgs(network bool) []string {
	args := []string{
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
	}
	if !network {
		args = append(args, "--unshare-net")
	}
	args = append(args,
		"--uid", strconv.Itoa(os.Getuid()), "--gid", strconv.Itoa(os.Getgid()),
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
	)
	return args
}

// bwrapArgs builds bubblewrap's command line up to (not including) the
// program. Later mounts go over earlier ones, so the order is: skeleton,
// directories made visible again, writable directories, pinned ancestors of protected paths, protected
// paths, hidden paths.
func bwrapArgs(p Policy, writable []string) (args, watch []string) {
	args = baseArgs(p.Network)
	for _, v := range p.Visible {
		args = append(args, "--ro-bind-try", v, v)
	}
	for _, w := range writable {
		// Missing entries are skipped, as Landlock skips them.
		args = append(args, "--bind-try", w, w)
	}
	mounts, watch := protectedMounts(p.Protected, writable)
	for _, m := range mounts {
		switch m.kind {
		case "pin":
			args = append(args, "--bind", m.path, m.path)
		case "ro":
			args = append(args, "--ro-bind-try", m.path, m.path)
		}
	}
	masks := hiddenMountsVisible(p.Hidden, writable, p.Visible)
	if !p.Network {
		// Without the network, a Unix socket of a host daemon (a database,
		// D-Bus, containerd) is the way out that remains: mask them.
		masks = append(socketMasks(socketRoots, writable), masks...)
	}
	for _, m := range masks {
		switch m.kind {
		case "tmpfs":
			args = append(args, "--tmpfs", m.path)
		case "null":
			args = append(args, "--ro-bind", "/dev/null", m.path)
		}
	}
	for _, c := range p.Caches {
		// Over the masks: the caches live in rein's hidden state
		// directory, whose other files stay masked. bubblewrap creates
		// the mount point in the mask's empty tmpfs.
		c, _ = filepath.Abs(c)
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			args = append(args, "--bind", c, c)
		}
	}
	if p.Dir != "" {
		args = append(args, "--chdir", p.Dir)
	}
	return args, watch
}

// prepareNamespaces runs the command as bwrap → re-executed binary
// (Landlock) → command. The binary is handed over as an open descriptor:
// its path may be hidden inside (a test binary under /tmp) or replaced.
func prepareNamespaces(p Policy, cfg childConfig, bwrap, path string, argv []string, abi int) (Launch, error) {
	exe, err := selfFile()
	if err != nil {
		return Launch{}, err
	}
	cfg.ExeFD = exeFD
	b, err := json.Marshal(cfg)
	if err != nil {
		return Launch{}, fmt.Errorf("sandbox: %w", err)
	}
	// cfg.Writable ends with the caches, which bwrapArgs binds on its own.
	bargs, watch := bwrapArgs(p, cfg.Writable[:len(cfg.Writable)-len(p.Caches)])
	args := append([]string{bwrap}, bargs...)
	args = append(args, "--", "/proc/self/fd/"+strconv.Itoa(exeFD), path)
	args = append(args, argv...)
	isolation := IsolationFull
	if cfg.NoLandlock {
		isolation = IsolationNamespaces
	}
	return Launch{
		Path:      bwrap,
		Args:      args,
		Env:       []string{envMarker + "=" + string(b)},
		Files:     []*os.File{exe},
		Watch:     watch,
		Sandboxed: true,
		Isolation: isolation,
		ABI:       abi,
	}, nil
}

var (
	selfOnce sync.Once
	selfF    *os.File
	selfErr  error
)

// selfFile opens the running binary once; the descriptor stays open for
// the life of the process.
func selfFile() (*os.File, error) {
	selfOnce.Do(func() {
		selfF, selfErr = os.Open(selfExe)
		if selfErr != nil {
			selfErr = fmt.Errorf("sandbox: open the running binary: %w", selfErr)
		}
	})
	return selfF, selfErr
}

var dumpOnce sync.Once

// makeNonDumpable stops processes of the same user (a command that
// escaped Landlock's ptrace rules, say) from reading rein's memory and its
// /proc files (environ, fds, maps). Done once, before the first command.
func makeNonDumpable() error {
	var err error
	dumpOnce.Do(func() {
		if e := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); e != nil {
			err = fmt.Errorf("make the process non-dumpable: %w", e)
		}
	})
	return err
}
