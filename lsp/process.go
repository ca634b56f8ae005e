package lsp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

// stderrTailBytes is how much of a server's stderr is kept for messages;
// the rest is dropped so a chatty server costs no memory.
const stderrTailBytes = 8 << 10

// processGrace is how long a server gets to exit after the exit
// notification, and again after its stdin closes, before it is killed.
var processGrace = 2 * time.Second

// Confinement is how a server runs: under Policy (Mode Off for no
// sandbox), with Env added to its environment. It mirrors
// mcp.Confinement, so one project policy confines both.
type Confinement struct {
	Policy sandbox.Policy
	Env    []string
}

// process is a running language server. Like mcp's stdio servers it goes
// through sandbox.Prepare and Launch.Apply, so it is confined, limited and
// dies with rein exactly as commands do.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *tail

	exited  chan struct{}
	waitErr error
	once    sync.Once
}

func startProcess(cfg Config, dir string, environ []string, conf Confinement) (*process, error) {
	conf.Policy.Dir = dir
	launch, err := sandbox.Prepare(conf.Policy, append([]string{cfg.Command}, cfg.Args...))
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("language server %q was not found in PATH: install it or set [lsp.%s] command", cfg.Command, cfg.Name)
		}
		return nil, fmt.Errorf("cannot start language server %q: %w", cfg.Command, err)
	}
	env := append(append([]string{}, environ...), conf.Env...)
	for _, k := range sortedKeys(cfg.Env) {
		env = append(env, k+"="+cfg.Env[k])
	}
	cmd := &exec.Cmd{Dir: dir, Env: env}
	pipes, err := launch.StartPiped(cmd)
	if err != nil {
		return nil, fmt.Errorf("cannot start language server %q: %w", cfg.Command, err)
	}
	p := &process{cmd: cmd, stdin: pipes.Stdin, stdout: pipes.Stdout, stderr: &tail{max: stderrTailBytes}, exited: make(chan struct{})}
	go func() {
		_, _ = io.Copy(p.stderr, pipes.Stderr)
		pipes.Stderr.Close()
	}()
	go func() {
		p.waitErr = cmd.Wait()
		launch.Release(cmd.ProcessState)
		sandbox.Sweep(launch.Watch)
		close(p.exited)
	}()
	return p, nil
}

// stop ends the process: close stdin, wait, kill. The supervisor that
// Apply starts kills whatever the server itself started.
func (p *process) stop() {
	p.once.Do(func() {
		p.stdin.Close()
		if !p.wait(processGrace) {
			_ = p.cmd.Process.Kill()
			p.wait(processGrace)
		}
		p.stdout.Close()
	})
}

func (p *process) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
