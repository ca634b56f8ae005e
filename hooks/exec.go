package hooks

import (
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

// DefaultMaxOutput caps what rein keeps of a hook's stdout and of its
// stderr; the rest is read and dropped, so a chatty hook never blocks.
const DefaultMaxOutput = 64 << 10

// drainGrace is how long rein waits, after a hook's process group is
// gone, for its output pipes to close: a process that left the group
// may hold them open, and is then cut off.
const drainGrace = 500 * time.Millisecond

// execResult is how one hook command ended.
type execResult struct {
	exitCode        int // -1 when it did not exit normally
	stdout, stderr  string
	stdoutTruncated bool
	timedOut        bool
	// startErr is set when the command could not be started.
	startErr error
	duration time.Duration
}

// execSpec is one hook command to run.
type execSpec struct {
	// launch is what sandbox.Prepare decided for shell -c command.
	launch    sandbox.Launch
	dir       string
	env       []string
	stdin     []byte
	timeout   time.Duration
	maxOutput int
}

// runHook starts s.launch (the hook's shell -c command, confined as
// sandbox.Prepare decided) in its own process group, feeds
// it s.stdin, and kills the whole group when the timeout passes, when ctx
// ends, and after the command exits, so nothing it started outlives it.
func runHook(ctx context.Context, s execSpec) execResult {
	start := time.Now()
	outR, outW, err := os.Pipe()
	if err != nil {
		return execResult{exitCode: -1, startErr: err}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return execResult{exitCode: -1, startErr: err}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return execResult{exitCode: -1, startErr: err}
	}
	cmd := &exec.Cmd{Dir: s.dir, Env: s.env}
	// Apply sets the process group and the parent-death signal.
	s.launch.Apply(cmd)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The child holds its copies; EOF comes when they are all closed.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		inW.Close()
		return execResult{exitCode: -1, startErr: err}
	}

	stdout, stderr := newCapped(s.maxOutput), newCapped(s.maxOutput)
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); _, _ = io.Copy(stdout, outR) }()
	go func() { defer readers.Done(); _, _ = io.Copy(stderr, errR) }()
	go func() {
		// A hook that never reads its input gets EPIPE here, not a hang.
		_, _ = inW.Write(s.stdin)
		inW.Close()
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	res := execResult{exitCode: -1}
	select {
	case <-waited:
	case <-timer.C:
		res.timedOut = true
		killGroup(cmd)
		<-waited
	case <-ctx.Done():
		killGroup(cmd)
		<-waited
	}
	// The leader is gone; whatever is left of its group was started by
	// the hook and goes with it.
	killGroup(cmd)
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainGrace):
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()

	if st := cmd.ProcessState; st != nil && !res.timedOut {
		res.exitCode = st.ExitCode()
	}
	res.stdout, res.stdoutTruncated = stdout.result()
	res.stderr, _ = stderr.result()
	res.duration = time.Since(start)
	return res
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	mu    sync.Mutex
	buf   []byte
	max   int
	total int
}

func newCapped(max int) *capped { return &capped{max: max} }

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += len(p)
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *capped) result() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf), c.total > len(c.buf)
}
