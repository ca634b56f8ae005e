package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

// stderrTailBytes is how much of a server's stderr is kept for messages.
const stderrTailBytes = 8 << 10

// processGrace is how long a server gets to exit after its stdin closes,
// and again after SIGTERM, before it is killed (the shutdown sequence of
// the MCP stdio transport).
var processGrace = 2 * time.Second

// baseEnvNames are the variables a stdio server inherits from rein's
// environment without being named in env_vars: enough to find programs
// and run them, never credentials. (Codex CLI passes a similar set.)
var baseEnvNames = []string{
	"HOME", "LOGNAME", "USER", "USERNAME", "PATH", "SHELL", "TERM", "TMPDIR", "TZ", "LANG", "LANGUAGE",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "SYSTEMROOT", "COMSPEC", "PATHEXT", "APPDATA", "LOCALAPPDATA",
}

// baseEnvPrefixes are inherited like baseEnvNames.
var baseEnvPrefixes = []string{"LC_", "XDG_"}

// childEnv builds a stdio server's environment from rein's: the base
// variables, those named in EnvVars, the confinement's extra entries,
// then Env on top.
func childEnv(sc ServerConfig, environ, extra []string) []string {
	keep := func(name string) bool {
		if slices.Contains(baseEnvNames, name) || slices.Contains(sc.EnvVars, name) {
			return true
		}
		for _, p := range baseEnvPrefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	var env []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && keep(name) {
			if _, set := sc.Env[name]; !set {
				env = append(env, kv)
			}
		}
	}
	for _, kv := range extra {
		if name, _, _ := strings.Cut(kv, "="); !hasKey(sc.Env, name) {
			env = append(env, kv)
		}
	}
	for _, k := range sc.Env.names() {
		env = append(env, k+"="+sc.Env[k])
	}
	return env
}

func hasKey(m Secrets, k string) bool { _, ok := m[k]; return ok }

// Confinement is how one stdio server runs: under Policy (sandbox mode
// Off for none), with Env added to its environment (see Config.Confine).
type Confinement struct {
	Policy sandbox.Policy
	Env    []string
}

// process is a running stdio server. Its stdio are plain pipes that rein
// owns (not exec's copying goroutines), so that a grandchild holding a
// pipe open can never block Wait, and reading stdout never races Wait.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end
	stdout *os.File // read end
	stderr *tailBuffer

	exited     chan struct{}
	waitErr    error         // valid after exited is closed
	stderrDone chan struct{} // closed when stderr reached EOF

	stopOnce sync.Once
}

// startProcess starts sc's command, confined as confine says (nil: no
// sandbox), in its own process group that dies with rein.
func startProcess(sc ServerConfig, environ []string, workDir string, confine func(ServerConfig) (Confinement, error)) (*process, error) {
	dir := sc.Cwd
	if dir == "" {
		dir = workDir
	} else if !filepath.IsAbs(dir) && workDir != "" {
		dir = filepath.Join(workDir, dir)
	}
	conf := Confinement{Policy: sandbox.Policy{Mode: sandbox.Off}}
	if confine != nil {
		var err error
		if conf, err = confine(sc); err != nil {
			return nil, fmt.Errorf("cannot start %q: %w", clip(sc.Command, 200), err)
		}
	}
	conf.Policy.Dir = dir
	prog := sc.Command
	if strings.ContainsRune(prog, filepath.Separator) && !filepath.IsAbs(prog) && dir != "" {
		prog = filepath.Join(dir, prog) // as the child, which starts in dir, would find it
	}
	launch, err := sandbox.Prepare(conf.Policy, append([]string{prog}, sc.Args...))
	if err != nil {
		return nil, startError(sc, dir, err)
	}
	cmd := &exec.Cmd{Dir: dir, Env: childEnv(sc, environ, conf.Env)}
	pipes, err := launch.StartPiped(cmd)
	if err != nil {
		return nil, startError(sc, dir, err)
	}
	p := &process{cmd: cmd, stdin: pipes.Stdin, stdout: pipes.Stdout, stderr: newTail(stderrTailBytes), exited: make(chan struct{}), stderrDone: make(chan struct{})}
	go func() {
		_, _ = io.Copy(p.stderr, pipes.Stderr)
		pipes.Stderr.Close()
		close(p.stderrDone)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		// What the server left in its cgroup goes with it, and the
		// cgroup too (see sandbox.Launch.Release).
		launch.Release(cmd.ProcessState)
		// A protected path the server created while it ran (.rein/, a
		// git hook) goes with it, as after a command.
		sandbox.Sweep(launch.Watch)
		close(p.exited)
	}()
	return p, nil
}

// startError explains why a command did not start.
func startError(sc ServerConfig, dir string, err error) error {
	var pe *os.PathError
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("command %q was not found in PATH: install it or give its full path", clip(sc.Command, 200))
	case errors.As(err, &pe) && pe.Path == dir && dir != "":
		return fmt.Errorf("cannot start %q in %s: %v; fix cwd", clip(sc.Command, 200), dir, pe.Err)
	case errors.As(err, &pe):
		return fmt.Errorf("cannot start %q: %v", clip(sc.Command, 200), pe.Err)
	}
	return fmt.Errorf("cannot start %q: %v", clip(sc.Command, 200), err)
}

// stop shuts the server down as the stdio transport prescribes: close its
// stdin, wait, SIGTERM the process group, wait, SIGKILL it. It then closes
// rein's end of stdout so that a reader blocked on a grandchild's copy of
// the pipe returns. stop is idempotent and returns when the process has
// exited or been killed.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		if !p.waitExit(processGrace) {
			_ = signalGroup(p.cmd.Process, sigTerm)
			if !p.waitExit(processGrace) {
				_ = signalGroup(p.cmd.Process, sigKill)
				p.waitExit(processGrace)
			}
		}
		// Grandchildren left in the group would keep stdout open.
		_ = signalGroup(p.cmd.Process, sigKill)
		p.stdout.Close()
	})
}

// waitExit waits up to d for the process to exit.
func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// settle waits up to d for the process to exit and its stderr to drain,
// so that a message about its end can quote its last words.
func (p *process) settle(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, ch := range []chan struct{}{p.exited, p.stderrDone} {
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}

// exitSummary describes how the process ended, or "" while it runs.
func (p *process) exitSummary() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	var ee *exec.ExitError
	switch {
	case p.waitErr == nil:
		return "exited with status 0"
	case errors.As(p.waitErr, &ee):
		return describeExit(ee)
	}
	return p.waitErr.Error()
}
