// Package chaos_test is rein's randomized fault suite. It drives the real
// rein binary against a loopback fake model and injects faults — kill -9
// at random event boundaries and in the spawn window of a command, model
// server faults, damage to the session store — and judges each round by
// properties, never by a script of expected outputs:
//
//   - every step's effect lands exactly once;
//   - a stored history is never silently shorter than what was acknowledged;
//   - no process of a round outlives the rein that started it;
//   - a damaged store is refused with a clear error and left untouched;
//   - no error shows a Go type name, a panic or a stack.
//
// Every round draws from one seed, printed on failure. The default is a
// short run for ./scripts/test; REIN_CHAOS_ROUNDS and REIN_CHAOS_SEED run
// it longer or replay a failure:
//
//	REIN_CHAOS_ROUNDS=200 go test -run TestChaos -timeout 60m ./internal/chaos
package chaos_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// reinBinary builds cmd/rein once per test binary.
func reinBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rein-chaos-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "rein")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "go", "build", "-o", binPath, "github.com/reinharness/rein/cmd/rein").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// config returns the suite's seed and round count.
func config(t *testing.T, defaultRounds int) (seed uint64, rounds int) {
	seed = uint64(time.Now().UnixNano())
	if s := os.Getenv("REIN_CHAOS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("REIN_CHAOS_SEED=%q: %v", s, err)
		}
		seed = v
	}
	rounds = defaultRounds
	if s := os.Getenv("REIN_CHAOS_ROUNDS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("REIN_CHAOS_ROUNDS=%q: want a positive number", s)
		}
		rounds = v
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay with: REIN_CHAOS_SEED=%d REIN_CHAOS_ROUNDS=%d go test -run '%s' ./internal/chaos", seed, rounds, t.Name())
		}
	})
	return seed, rounds
}

// sandboxModes are the ways a command can be confined here: bubblewrap
// with Landlock, Landlock alone (bubblewrap hidden from PATH), none.
var sandboxModes = []string{"bwrap", "landlock", "off"}

// home is the hermetic environment of one round.
type home struct {
	dir, ws, state string
	path           string // PATH for rein
	mode           string
}

func newHome(t *testing.T, mode string) *home {
	root := t.TempDir()
	h := &home{dir: filepath.Join(root, "home"), ws: filepath.Join(root, "ws"), state: filepath.Join(root, "state"), mode: mode}
	for _, d := range []string{h.dir, h.ws, h.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "[model]\ncontext_window = 32768\n"
	h.path = os.Getenv("PATH")
	switch mode {
	case "off":
		cfg += "[sandbox]\nmode = \"off\"\n"
	case "landlock":
		h.path = pathWithoutBwrap(t)
	}
	writeFile(t, filepath.Join(h.dir, ".config", "rein", "config.toml"), cfg)
	return h
}

var (
	noBwrapOnce sync.Once
	noBwrapDir  string
)

// pathWithoutBwrap is a PATH of one directory linking every program of
// PATH except bwrap, so rein falls back to Landlock alone.
func pathWithoutBwrap(t *testing.T) string {
	noBwrapOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rein-chaos-path-")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range filepath.SplitList(os.Getenv("PATH")) {
			ents, _ := os.ReadDir(d)
			for _, e := range ents {
				if e.Name() == "bwrap" {
					continue
				}
				_ = os.Symlink(filepath.Join(d, e.Name()), filepath.Join(dir, e.Name()))
			}
		}
		noBwrapDir = dir
	})
	return noBwrapDir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// proc is one running rein.
type proc struct {
	cmd    *exec.Cmd
	stdout *lineBuffer
	stderr bytes.Buffer
	done   chan struct{}
	code   int
}

// lineBuffer collects stdout and counts its lines (stream-json events).
type lineBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines int
	seen  chan struct{} // gets a value for every complete line
}

func (b *lineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	for range bytes.Count(p, []byte("\n")) {
		b.lines++
		select {
		case b.seen <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

func (b *lineBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lineBuffer) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lines
}

func (h *home) start(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(reinBinary(t), args...)
	cmd.Dir = h.ws
	cmd.Env = []string{"HOME=" + h.dir, "PATH=" + h.path}
	p := &proc{cmd: cmd, stdout: &lineBuffer{seen: make(chan struct{}, 1)}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, &p.stderr
	cmd.Stdin = nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			p.code = -2
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(d):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("rein did not exit within %s\nstdout: %s\nstderr: %s", d, p.stdout, p.stderr.String())
		return -1
	}
}

// survivors lists processes whose command line carries token.
func survivors(token string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		line := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(line, token) {
			out = append(out, e.Name()+": "+line)
		}
	}
	return out
}

// killSurvivors ends what a failed round left, so one failure does not
// cascade into the next rounds.
func killSurvivors(token string) {
	for _, s := range survivors(token) {
		pid, _ := strconv.Atoi(strings.SplitN(s, ":", 2)[0])
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// storedEvents returns the number of events `rein sessions show --json`
// prints for the session, or an error with rein's output.
func (h *home) storedEvents(t *testing.T, id string) (int, string, error) {
	p := h.start(t, "sessions", "show", "--json", "--state-dir", h.state, id)
	code := p.wait(t, 60*time.Second)
	out := p.stdout.String()
	if code != 0 {
		return 0, p.stderr.String(), fmt.Errorf("rein sessions show exited %d", code)
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	return n, "", nil
}

// hasPrompt reports whether the stored session holds a user message.
func (h *home) hasPrompt(t *testing.T, id string) bool {
	p := h.start(t, "sessions", "show", "--json", "--state-dir", h.state, id)
	p.wait(t, 60*time.Second)
	return strings.Contains(p.stdout.String(), `"role":"user"`)
}

// answered reports whether the stored conversation ends with an answer
// of the model that asks for no tool.
func (h *home) answered(t *testing.T, id string) bool {
	p := h.start(t, "sessions", "show", "--json", "--state-dir", h.state, id)
	p.wait(t, 60*time.Second)
	var last *struct {
		Role  string `json:"role"`
		Parts []struct {
			Kind string `json:"kind"`
		} `json:"parts"`
	}
	for line := range strings.SplitSeq(p.stdout.String(), "\n") {
		var ev struct {
			Type    string `json:"type"`
			Message *struct {
				Role  string `json:"role"`
				Parts []struct {
					Kind string `json:"kind"`
				} `json:"parts"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "message" && ev.Message != nil {
			last = ev.Message
		}
	}
	if last == nil || last.Role != "assistant" {
		return false
	}
	for _, part := range last.Parts {
		if part.Kind != "text" && part.Kind != "reasoning" {
			return false
		}
	}
	return true
}

// sessionID reads the session id from stream-json output.
func sessionID(out string) string {
	for line := range strings.SplitSeq(out, "\n") {
		var ev struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.SessionID != "" {
			return ev.SessionID
		}
	}
	return ""
}

// badError reports what in an error text is not for users.
func badError(s string) string {
	for _, bad := range []string{"goroutine ", "panic:", "runtime error", "*json.", "json: cannot unmarshal", "Go struct field", "*errors.", "*url.Error", "*net.OpError", "<nil>", "%!"} {
		if strings.Contains(s, bad) {
			return bad
		}
	}
	return ""
}

// pick returns a random element.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// readAll returns a file's content, "" when missing.
func readAll(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

var _ = io.Discard
