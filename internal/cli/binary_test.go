package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinharness/rein/internal/cli"
	"github.com/reinharness/rein/model/modeltest"
)

// The binary is built once per test process, on first use.
var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	if os.Getenv(scriptedBrowserEnv) == "1" { // rein started us as its browser
		os.Exit(scriptedBrowser())
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// reinBinary builds cmd/rein with a link-time version and returns its path.
func reinBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "rein-cli-test-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "rein")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build",
			"-ldflags", "-X github.com/reinharness/rein/internal/cli.version=v9.9.9-test",
			"-o", binPath, "github.com/reinharness/rein/cmd/rein")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// process is a running rein binary.
type process struct {
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr *syncBuffer
	done           chan struct{}
}

// start runs the binary with a hermetic environment.
func (e *env) start(t testing.TB, args ...string) *process {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, reinBinary(t), args...)
	cmd.Dir = e.workspace
	cmd.Env = []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &process{cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait returns the exit code, failing the test if the process does not
// exit within d.
func (p *process) wait(t testing.TB, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("rein did not exit within %s\nstdout: %s\nstderr: %s", d, p.stdout, p.stderr)
	}
	var ee *exec.ExitError
	if err := p.cmd.Wait(); errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return p.cmd.ProcessState.ExitCode()
}

func TestBinaryVersionAndUsage(t *testing.T) {
	e := newEnv(t)
	p := e.start(t, "version")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 0 || !strings.HasPrefix(p.stdout.String(), "rein v9.9.9-test (go1.") {
		t.Errorf("version: exit %d stdout %q", code, p.stdout)
	}
	p = e.start(t, "run", "--no-such-flag", "hi")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 2 || lines(p.stderr.String())[0] != "rein: unknown flag: --no-such-flag; see 'rein run --help'" {
		t.Errorf("bad flag: exit %d stderr %q", code, p.stderr)
	}
}

func TestBinaryConnectionRefused(t *testing.T) {
	endpoint := closedPort(t)
	e := newEnv(t)
	p := e.start(t, "run", "-e", endpoint, "hi")
	p.stdin.Close()
	code := p.wait(t, 30*time.Second)
	want := fmt.Sprintf("rein: cannot reach the model server at %s (connection refused): start llama-server or pass --endpoint\n", endpoint)
	if code != 1 || p.stderr.String() != want {
		t.Errorf("exit %d stderr %q, want 1 and %q", code, p.stderr, want)
	}
}

// TestBinaryRunSIGINT sends a real SIGINT while the model's stream stalls.
func TestBinaryRunSIGINT(t *testing.T) {
	body := textBody("partial", " never finished")
	srv := modeltest.NewServer(t, modeltest.Stall(body, len(body)/2, 30*time.Second))
	e := newEnv(t)
	p := e.start(t, "run", "-e", srv.URL, "hi")
	p.stdin.Close()
	waitFor(t, "the model request", 20*time.Second, func() bool { return len(srv.Requests()) == 1 })
	waitFor(t, "streamed text", 10*time.Second, func() bool { return strings.Contains(p.stdout.String(), "partial") })
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 10*time.Second); code != 130 {
		t.Errorf("exit %d, want 130; stderr:\n%s", code, p.stderr)
	}
	if got := p.stderr.String(); got != "rein: interrupted\n" {
		t.Errorf("stderr = %q, want one line saying rein was interrupted", got)
	}
}

// TestBinaryChatSIGINT cancels a stalled turn with a real SIGINT: the REPL
// goes on, answers the next line with the history intact, and exits 0 at
// EOF.
func TestBinaryChatSIGINT(t *testing.T) {
	stalled := textBody("stuck")
	srv := modeltest.NewServer(t,
		modeltest.Stall(stalled, len(stalled)/3, 30*time.Second),
		sse(textBody("back again")),
	)
	e := newEnv(t)
	p := e.start(t, "chat", "-e", srv.URL)
	io.WriteString(p.stdin, "first\n")
	waitFor(t, "the first request", 20*time.Second, func() bool { return len(srv.Requests()) == 1 })
	time.Sleep(100 * time.Millisecond)
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the turn to be cancelled", 10*time.Second, func() bool { return strings.Contains(p.stderr.String(), "^C turn cancelled") })
	io.WriteString(p.stdin, "second\n")
	waitFor(t, "the second answer", 10*time.Second, func() bool { return strings.Contains(p.stdout.String(), "back again") })
	p.stdin.Close()
	if code := p.wait(t, 10*time.Second); code != 0 {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, p.stderr)
	}
	if got := p.stdout.String(); got != "back again\n" {
		t.Errorf("stdout = %q", got)
	}
	msgs := messageTexts(t, srv.Requests()[1].Body)
	// The cancelled answer is in the history, noted as cut off: the
	// second prompt does not follow the first as if it went unanswered.
	if !bytes.Contains([]byte(strings.Join(msgs, "|")), []byte("user:first|assistant:[rein: answer interrupted: run cancelled]|user:second")) {
		t.Errorf("second request messages = %q, want the history kept, with the cut answer noted", msgs)
	}
}

// TestMainReadsProcessEnvironment runs cli.Main, the entry point, which
// reads the real environment and installs signal handlers.
func TestMainReadsProcessEnvironment(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("from Main")))
	e := newEnv(t)
	t.Setenv("HOME", e.home)
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, k := range []string{"REIN_API_KEY", "OPENAI_API_KEY", "REIN_MODEL", "REIN_PROVIDER"} {
		t.Setenv(k, "")
	}
	t.Setenv("REIN_ENDPOINT", srv.URL)
	var stdout, stderr bytes.Buffer
	code := cli.Main(t.Context(), []string{"run", "-C", e.workspace, "hi"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 || stdout.String() != "from Main\n" {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestBinaryChatWithDevNullStdin: stdin redirected from /dev/null (a
// character device, not a terminal) gets no banner and no prompt.
func TestBinaryChatWithDevNullStdin(t *testing.T) {
	e := newEnv(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, reinBinary(t), "chat", "-e", closedPort(t))
	cmd.Dir = e.workspace
	cmd.Env = []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("rein chat < /dev/null: %v\nstderr: %s", err, stderr.String())
	}
	if stdout.Len() != 0 || strings.Contains(stderr.String(), "›") || strings.Contains(stderr.String(), "rein chat:") {
		t.Errorf("stdout %q stderr %q, want no banner or prompt", stdout.String(), stderr.String())
	}
}
