package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/server/temporaltest"
)

// The harness: a real Temporal server (the embedded test server), the
// real rein binary as worker and client processes, and a loopback fake
// model. Every process gets its own HOME and XDG directories; nothing
// leaves 127.0.0.1 and every wait is bounded.

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// repoRoot is rein's module root, three levels up from this module.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(gomod, []byte("module github.com/reinharness/rein\n")) {
		t.Fatalf("%s is not rein's module root (go.mod: %v)", root, err)
	}
	return root
}

// reinBinary builds cmd/rein (in rein's module) and cmd/rein-temporal (in
// the module engine/temporal) side by side, once per test binary, each
// from its own go.mod rather than this module's, and returns rein's path.
// rein runs the Temporal commands by exec of the rein-temporal next to it
// (same pid), so the tests drive them through rein as a user does.
func reinBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		root := repoRoot(t)
		binDir, binErr = os.MkdirTemp("", "rein-temporal-e2e-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "rein")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		for _, b := range []struct{ dir, pkg string }{
			{root, "./cmd/rein"},
			{filepath.Join(root, "engine", "temporal"), "./cmd/rein-temporal"},
		} {
			cmd := exec.CommandContext(ctx, "go", "build", "-o", binDir+"/", b.pkg)
			cmd.Dir = b.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = fmt.Errorf("go build %s (in %s): %v\n%s", b.pkg, b.dir, err, out)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// cluster is one test's Temporal server, fake model and processes.
type cluster struct {
	t         testing.TB
	ts        *temporaltest.TestServer
	hostPort  string
	namespace string
	client    client.Client
	model     *fakeModel
	root      string
}

// newCluster starts a Temporal server for the test (stopped at its end)
// and a fake model, and builds the rein binary if it is not built yet.
func newCluster(t testing.TB) *cluster {
	t.Helper()
	reinBinary(t) // before the server: a build failure should not wait on it
	start := time.Now()
	var ts *temporaltest.TestServer
	if tt, ok := t.(*testing.T); ok {
		ts = temporaltest.NewServer(temporaltest.WithT(tt))
	} else { // a benchmark: WithT takes a *testing.T only
		ts = temporaltest.NewServer()
		t.Cleanup(ts.Stop)
	}
	c := &cluster{
		t:         t,
		ts:        ts,
		hostPort:  ts.GetFrontendHostPort(),
		namespace: ts.GetDefaultNamespace(),
		client:    ts.GetDefaultClient(),
		model:     newFakeModel(t),
		root:      t.TempDir(),
	}
	t.Logf("temporal test server at %s, namespace %s, started in %s", c.hostPort, c.namespace, time.Since(start).Round(time.Millisecond))
	return c
}

// temporalFlags are the flags every Temporal command gets.
func (c *cluster) temporalFlags() []string {
	return []string{"--temporal", c.hostPort, "--namespace", c.namespace}
}

// dir creates a directory under the test's root.
func (c *cluster) dir(name string) string {
	c.t.Helper()
	d := filepath.Join(c.root, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		c.t.Fatal(err)
	}
	return d
}

// home is a hermetic home for one process: its own HOME, XDG
// directories and user config, which points the model at the fake.
type home struct {
	dir string
	env []string
}

// fullPreset lets a worker run sessions that ask for the full preset
// (workers cap the preset a session may ask for, by default at the
// workspace's configured one).
var fullPreset = []string{"--max-preset", "full"}

// workerConfig is the [temporal] part of the configuration of the
// processes that take part in a Temporal session: a short heartbeat
// timeout, so that a killed worker is noticed quickly.
const workerConfig = "\n[temporal]\nheartbeat_timeout = \"3s\"\n"

// newHome creates a home under the test's root whose user config points
// [model] at the fake model and adds extra (more TOML).
func (c *cluster) newHome(name, extra string) *home {
	c.t.Helper()
	return makeHome(c.t, filepath.Join(c.root, "home-"+name), c.model.URL, extra)
}

func makeHome(t testing.TB, dir, modelURL, extra string) *home {
	t.Helper()
	h := &home{dir: dir}
	cfg := filepath.Join(dir, ".config", "rein", "config.toml")
	for _, d := range []string{filepath.Dir(cfg), filepath.Join(dir, ".local", "state"), filepath.Join(dir, ".cache"), filepath.Join(dir, ".local", "share")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := fmt.Sprintf("[model]\nendpoint = %q\ncontext_window = 32768\n", modelURL) + extra
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	h.env = []string{
		"HOME=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(dir, ".local", "share"),
		"PATH=" + os.Getenv("PATH"),
	}
	return h
}

// syncBuffer is a bytes.Buffer safe for a process's writes and a test's
// reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is a running rein process.
type proc struct {
	name           string
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
	exitCode       int
}

// start runs the rein binary in dir with h's environment. The process
// is killed (its whole process group) when the test ends; hardLimit
// bounds its life in any case.
func (c *cluster) start(name string, h *home, dir string, args ...string) *proc {
	c.t.Helper()
	return startProc(c.t, name, h, dir, 10*time.Minute, args...)
}

func startProc(t testing.TB, name string, h *home, dir string, hardLimit time.Duration, args ...string) *proc {
	t.Helper()
	return startProcBinary(t, name, reinBinary(t), h, dir, hardLimit, args...)
}

// startProcBinary is startProc for another binary than the one built.
func startProcBinary(t testing.TB, name, bin string, h *home, dir string, hardLimit time.Duration, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = h.env
	// Its own process group, so that the cleanup reaches the commands a
	// worker started too (a kill -9 of the worker alone leaves them).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &proc{name: name, cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			p.exitCode = ee.ExitCode()
		case err != nil:
			p.exitCode = -1
		}
		close(p.done)
	}()
	timer := time.AfterFunc(hardLimit, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	t.Cleanup(func() {
		timer.Stop()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	return p
}

// pid is the process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait returns the exit code, failing the test if the process does not
// end within d.
func (p *proc) wait(t testing.TB, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.exitCode
	case <-time.After(d):
		t.Fatalf("%s did not exit within %s\nstdout:\n%s\nstderr:\n%s", p.name, d, p.stdout, p.stderr)
	}
	return 0
}

// kill sends SIGKILL to the process alone (not its group): the crash of
// a worker, whose commands are left to die or run on as a real crash
// leaves them.
func (p *proc) kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %s: %v", p.name, err)
	}
	<-p.done
}

// run is one finished rein invocation.
type run struct {
	code           int
	stdout, stderr string
}

// rein runs the binary to completion within timeout.
func (c *cluster) rein(h *home, dir string, timeout time.Duration, args ...string) run {
	c.t.Helper()
	return reinRun(c.t, h, dir, timeout, args...)
}

func reinRun(t testing.TB, h *home, dir string, timeout time.Duration, args ...string) run {
	t.Helper()
	p := startProc(t, "rein "+strings.Join(args, " "), h, dir, timeout+5*time.Second, args...)
	code := p.wait(t, timeout)
	return run{code: code, stdout: p.stdout.String(), stderr: p.stderr.String()}
}

// worker is a `rein worker` process.
type worker struct {
	*proc
	workspace string
}

// startWorker starts `rein worker` serving workspace, with more flags,
// and waits for its ready line.
func (c *cluster) startWorker(name string, h *home, workspace string, flags ...string) *worker {
	c.t.Helper()
	args := append([]string{"worker"}, c.temporalFlags()...)
	args = append(append(args, "--workspace", workspace), flags...)
	w := &worker{proc: c.start(name, h, workspace, args...), workspace: workspace}
	w.waitReady(c.t)
	return w
}

// waitReady waits for the ready line, which follows one line per
// workspace queue; the workspace's directory must be among them.
func (w *worker) waitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if out := w.stderr.String(); strings.Contains(out, "\nrein worker: ready") || strings.HasPrefix(out, "rein worker: ready") {
			if !strings.Contains(out, "("+w.workspace+")") {
				t.Fatalf("%s is ready but names no queue for %s\nstderr:\n%s", w.name, w.workspace, out)
			}
			return
		}
		if w.exited() {
			t.Fatalf("%s exited with %d before it was ready\nstderr:\n%s", w.name, w.exitCode, w.stderr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready within 60s\nstderr:\n%s", w.name, w.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop stops the worker gracefully (SIGTERM) and checks it exits 0.
func (w *worker) stop(t testing.TB) {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM %s: %v", w.name, err)
	}
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Errorf("%s exited %d after SIGTERM, want 0\nstderr:\n%s", w.name, code, w.stderr)
	}
}

// waitFor polls cond every 20 ms until it holds, failing the test after d.
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// fileLines reads path's lines; a missing file has none.
func fileLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return lines(string(b))
}

// mkdir creates dir and its parents.
func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
