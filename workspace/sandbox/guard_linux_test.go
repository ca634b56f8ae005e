package sandbox

import (
	"bytes"
	"errors"
	"fmt"
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

// envGuardTestParent makes this test binary play rein: it prepares and
// starts the command in $REIN_GUARD_TEST_CMD under the mode in
// $REIN_GUARD_TEST_PARENT, says "started" and waits to be killed.
const envGuardTestParent = "REIN_GUARD_TEST_PARENT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(envGuardTestParent); mode != "" {
		os.Exit(guardTestParent(mode, os.Getenv("REIN_GUARD_TEST_CMD")))
	}
	os.Exit(m.Run())
}

func guardTestParent(mode, script string) int {
	p, err := testPolicy(mode, os.Getenv("REIN_GUARD_TEST_DIR"))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	l, err := Prepare(p, []string{"bash", "-c", script})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	cmd := &exec.Cmd{Env: os.Environ(), Dir: p.Dir}
	l.Apply(cmd)
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("started", cmd.Process.Pid)
	err = cmd.Wait()
	fmt.Println("exited", err)
	return 0
}

// testPolicy is the policy of each mode the tests cover: the sandbox off,
// Landlock alone (bubblewrap made unavailable) and bubblewrap.
func testPolicy(mode, dir string) (Policy, error) {
	noNS := func() (string, error) { return "", errors.New("bubblewrap not found") }
	switch mode {
	case "off":
		return Policy{Mode: Off, Dir: dir}, nil
	case "landlock":
		return Policy{Mode: Auto, Writable: []string{dir}, Dir: dir, Namespaces: noNS}, nil
	case "bwrap":
		return Policy{Mode: Required, Writable: []string{dir}, Dir: dir}, nil
	}
	return Policy{}, fmt.Errorf("unknown mode %q", mode)
}

// guardModes are the modes this machine can run.
func guardModes(t *testing.T) []string {
	modes := []string{"off"}
	if _, err := Available(); err == nil {
		modes = append(modes, "landlock")
		if _, err := Namespaces(); err == nil {
			modes = append(modes, "bwrap")
		}
	}
	if len(modes) < 3 {
		msg := fmt.Sprintf("SKIPPING the sandboxed modes of the guard test: only %v work here", modes)
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatal("REIN_REQUIRE_INTEROP=1 but " + msg)
		}
		t.Log(msg)
	}
	return modes
}

// guardRounds is the number of kill rounds per mode: REIN_KILL_ROUNDS
// for a longer run, else def.
func guardRounds(t *testing.T, def int) int {
	if s := os.Getenv("REIN_KILL_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("REIN_KILL_ROUNDS=%q: want a positive number", s)
		}
		return n
	}
	return def
}

// TestGuardNothingOutlivesAKilledParent kills the parent (this test
// binary playing rein) with SIGKILL 0–5 ms after it started a command
// whose background grandchild appends to a marker after 300 ms, in every
// sandbox mode: within a second no process of the command is left, and
// the marker never appears.
func TestGuardNothingOutlivesAKilledParent(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes")
	}
	rounds := guardRounds(t, 15)
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("seed %d, %d rounds per mode", seed, rounds)
	for _, mode := range guardModes(t) {
		t.Run(mode, func(t *testing.T) {
			// Rounds run a few at a time: most of a round is waiting
			// past the grandchildren's delay.
			sem := make(chan struct{}, 4)
			var wg sync.WaitGroup
			for i := range rounds {
				delay := time.Duration(rng.IntN(5001)) * time.Microsecond
				what := fmt.Sprintf("seed %d round %d delay %v", seed, i, delay)
				sem <- struct{}{}
				wg.Go(func() {
					defer func() { <-sem }()
					if err := killRound(mode, delay); err != nil {
						t.Errorf("%s: %s: %v", mode, what, err)
					}
				})
			}
			wg.Wait()
		})
	}
}

// killRound runs one round and returns the violation it saw.
func killRound(mode string, delay time.Duration) error {
	// /tmp is private inside bubblewrap; use a directory visible to both.
	dir, err := os.MkdirTemp("/var/tmp", "rein-guard-test-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	token := fmt.Sprintf("REIN_GUARD_TOKEN=%d-%d", os.Getpid(), rand.Uint64())
	// A grandchild in the background (and one in a session of its own)
	// that write after a delay; the leader waits too.
	script := `(sleep 0.3; echo ran >> marker) & setsid sh -c 'sleep 0.3; echo setsid >> marker' & sleep 0.3; echo leader >> marker`
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envGuardTestParent+"="+mode, "REIN_GUARD_TEST_CMD="+script, "REIN_GUARD_TEST_DIR="+dir, token)
	var out lockedBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		return err
	}
	// "The command starts" is the moment the parent has a child (or says
	// it started one, in case the children file missed it).
	started := func() bool { return hasChild(cmd.Process.Pid) || strings.Contains(out.String(), "started") }
	for deadline := time.Now().Add(10 * time.Second); !started(); {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return fmt.Errorf("the parent started no command: %q", out.String())
		}
		time.Sleep(50 * time.Microsecond)
	}
	time.Sleep(delay)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	marker := filepath.Join(dir, "marker")
	before, _ := os.ReadFile(marker) // as the parent left it
	gone := time.Now()
	for {
		left := withToken(token)
		if len(left) == 0 {
			break
		}
		if time.Since(gone) > time.Second {
			for _, p := range left {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			return fmt.Errorf("processes %v of the command outlived the parent by 1s (parent output %q)", left, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(400 * time.Millisecond) // past the grandchildren's delay
	after, _ := os.ReadFile(marker)
	if !bytes.Equal(before, after) || len(after) > 0 {
		return fmt.Errorf("the marker changed after the parent died: %q then %q", before, after)
	}
	return nil
}

// TestGuardPassesStatusOn: the supervisor exits as its command would
// have without it (an exit status, a signal — bubblewrap turns signals
// into 128+n itself), prints nothing of its own, and kills the
// command's background jobs when it exits.
func TestGuardPassesStatusOn(t *testing.T) {
	for _, mode := range guardModes(t) {
		t.Run(mode, func(t *testing.T) {
			dir, err := os.MkdirTemp("/var/tmp", "rein-guard-test-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			p, err := testPolicy(mode, dir)
			if err != nil {
				t.Fatal(err)
			}
			run := func(script string, guard bool) (string, string, time.Duration) {
				noGuard = !guard
				defer func() { noGuard = false }()
				l, err := Prepare(p, []string{"bash", "-c", script})
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				cmd := &exec.Cmd{Dir: dir, Stdout: &out, Stderr: &out}
				l.Apply(cmd)
				start := time.Now()
				err = cmd.Run()
				got := "ok"
				if err != nil {
					got = err.Error()
				}
				return got, out.String(), time.Since(start)
			}
			for _, script := range []string{
				"exit 3", "echo hi; echo err >&2", "kill -TERM $$", "kill -KILL $$", "kill -INT $$",
				"kill -SEGV $$", "kill -ABRT $$", "kill -USR1 $$", "exec 1>&-; exit 7",
			} {
				want, wantOut, _ := run(script, false)
				got, gotOut, _ := run(script, true)
				if got != want || gotOut != wantOut {
					t.Errorf("%q: with the supervisor %q %q, without %q %q", script, got, gotOut, want, wantOut)
				}
			}
			got, _, took := run("sleep 30 & disown; setsid sleep 30 & true", true)
			if got != "ok" || took > 3*time.Second {
				t.Errorf("a command leaving background jobs: %q after %v", got, took)
			}
		})
	}
}

// TestGuardRejectsBadMarker: a corrupt marker starts nothing.
func TestGuardRejectsBadMarker(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "ran")
	for _, marker := range []string{"{not json", `{"parent":0}`} {
		cmd := &exec.Cmd{Path: selfExe, Args: []string{"rein-guard", "/usr/bin/touch", "touch", flag}, Env: append(os.Environ(), envGuard+"="+marker)}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != childExitCode || !strings.Contains(string(out), "bad "+envGuard) {
			t.Errorf("%s: err = %v, output %q", marker, err, out)
		}
	}
	// The wrong parent: rein is gone, nothing starts.
	cmd := &exec.Cmd{Path: selfExe, Args: []string{"rein-guard", "/usr/bin/touch", "touch", flag}, Env: append(os.Environ(), envGuard+`={"parent":1}`)}
	if err := cmd.Run(); err == nil {
		t.Error("a supervisor whose parent is not rein ran")
	}
	if _, err := os.Stat(flag); err == nil {
		t.Error("the command ran despite a bad marker")
	}
}

func hasChild(pid int) bool {
	kids, _ := childrenOf(pid)
	return len(kids) > 0
}

// withToken lists the processes whose environment holds token.
func withToken(token string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		if bytes.Contains(b, []byte(token+"\x00")) {
			// A zombie is dead: only its entry waits to be reaped.
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
				if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
					continue
				}
			}
			out = append(out, pid)
		}
	}
	return out
}

// lockedBuffer is a bytes.Buffer safe for the writer goroutine of
// exec.Cmd and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestGuardPassesFilesOn: descriptors the caller set before Apply reach
// the command through the supervisor, in order.
func TestGuardPassesFilesOn(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, err := Prepare(Policy{Mode: Off}, []string{"bash", "-c", "echo through >&3"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{ExtraFiles: []*os.File{w}}
	l.Apply(cmd)
	if cmd.Args[0] != "rein-guard" {
		t.Fatalf("not started through the supervisor: %q", cmd.Args)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	w.Close()
	b := make([]byte, 64)
	n, _ := r.Read(b)
	if got := string(b[:n]); got != "through\n" {
		t.Errorf("fd 3 carried %q", got)
	}
}
