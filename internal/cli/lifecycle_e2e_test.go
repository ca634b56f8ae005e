//go:build linux

package cli_test

import (
	"bytes"
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

	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/workspace/sandbox"
)

// The lifecycle tests kill the real rein binary with SIGKILL at the
// moment it starts something and check that nothing it started outlives
// it. The default run is short; REIN_KILL_ROUNDS=N runs N rounds per
// sandbox mode (e.g. REIN_KILL_ROUNDS=100 for 300 rounds in all):
//
//	REIN_KILL_ROUNDS=100 go test -run TestKilledReinLeavesNothing ./internal/cli/

// lifecycleScript is the command the model runs: a background grandchild
// and one in a session of its own append to the marker after 300 ms, as
// does the leader.
const lifecycleScript = `(sleep 0.3; echo ran >> marker) & setsid sh -c 'sleep 0.3; echo setsid >> marker' & sleep 0.3; echo leader >> marker`

// killRounds is REIN_KILL_ROUNDS, else def.
func killRounds(t *testing.T, def int) int {
	if s := os.Getenv("REIN_KILL_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("REIN_KILL_ROUNDS=%q: want a positive number", s)
		}
		return n
	}
	return def
}

// lifecycleMode configures an env for a sandbox mode: off, landlock
// (bubblewrap kept off PATH) or bwrap (required).
func lifecycleMode(t *testing.T, e *env, mode string) {
	t.Helper()
	cfg := "[model]\ncontext_window = 32768\n\n[sandbox]\n"
	switch mode {
	case "off":
		cfg += "mode = \"off\"\n"
	case "landlock":
		cfg += "mode = \"auto\"\n"
		e.vars["PATH"] = pathWithout(t, "bwrap", "bash", "sh", "sleep", "setsid", "true", "cat")
	case "bwrap":
		cfg += "mode = \"required\"\n"
	}
	e.writeUserConfig(t, cfg)
}

var (
	pathOnce sync.Once
	pathDir  string
)

// pathWithout returns a directory holding links to the named programs,
// for a PATH on which bubblewrap is missing (the first name is left out).
func pathWithout(t *testing.T, missing string, names ...string) string {
	pathOnce.Do(func() {
		dir, err := os.MkdirTemp("/var/tmp", "rein-path-")
		if err != nil {
			return
		}
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				os.Symlink(p, filepath.Join(dir, n))
			}
		}
		pathDir = dir
	})
	if pathDir == "" {
		t.Fatal("cannot make a PATH without " + missing)
	}
	return pathDir
}

// lifecycleModes lists the modes this machine can run, failing under
// REIN_REQUIRE_INTEROP=1 when one is missing.
func lifecycleModes(t *testing.T) []string {
	modes := []string{"off"}
	if _, err := sandbox.Available(); err == nil {
		modes = append(modes, "landlock")
		if _, err := sandbox.Namespaces(); err == nil {
			modes = append(modes, "bwrap")
		}
	}
	if len(modes) < 3 {
		msg := fmt.Sprintf("only the sandbox modes %v work here", modes)
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatal("REIN_REQUIRE_INTEROP=1 but " + msg)
		}
		t.Log("SKIPPING the other modes: " + msg)
	}
	return modes
}

// TestKilledReinLeavesNothing is issue 28's kill bar: rein is killed with
// SIGKILL 0–5 ms after it started a command, in every sandbox mode; once
// rein is gone, within a second no process of the command is alive, and
// the marker the command's grandchildren would write never changes
// (every third round kills later, 5–155 ms, when they surely run). In
// the last round of each mode `rein run --continue` tells the model the
// call may have run and its remaining processes were killed.
func TestKilledReinLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes")
	}
	reinBinary(t)
	rounds := killRounds(t, 6)
	seed := time.Now().UnixNano()
	t.Logf("seed %d, %d rounds per mode (REIN_KILL_ROUNDS)", seed, rounds)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	for _, mode := range lifecycleModes(t) {
		t.Run(mode, func(t *testing.T) {
			sem := make(chan struct{}, 3)
			var wg sync.WaitGroup
			for i := range rounds {
				// Mostly in the start-up window (0–5 ms); every third
				// round later, once the grandchildren surely run.
				delay := time.Duration(rng.IntN(5001)) * time.Microsecond
				if i%3 == 2 {
					delay = 5*time.Millisecond + time.Duration(rng.IntN(150))*time.Millisecond
				}
				last := i == rounds-1
				sem <- struct{}{}
				wg.Go(func() {
					defer func() { <-sem }()
					killReinRound(t, mode, delay, last, fmt.Sprintf("%s: seed %d round %d delay %v", mode, seed, i, delay))
				})
			}
			wg.Wait()
		})
	}
}

func killReinRound(t *testing.T, mode string, delay time.Duration, cont bool, what string) {
	e := newEnv(t)
	lifecycleMode(t, e, mode)
	srv := modeltest.NewServer(t,
		sse(toolBody("call_marker", "run_command", fmt.Sprintf(`{"command":%q}`, lifecycleScript))),
		sse(textBody("The command was interrupted; I checked the marker.")),
	)
	stateDir := filepath.Join(e.home, "state")
	args := []string{"run", "--preset", "full", "--state-dir", stateDir, "-e", srv.URL}
	p := e.start(t, append(args, "--output-format", "json", "append to the marker")...)
	p.stdin.Close()
	rein := p.cmd.Process.Pid
	// The command starts when rein has a child whose command line is it.
	deadline := time.Now().Add(30 * time.Second)
	for !commandChild(rein) {
		select {
		case <-p.done:
			t.Errorf("%s: rein exited before the command started\nstderr: %s", what, p.stderr)
			return
		default:
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: the command did not start\nstderr: %s", what, p.stderr)
			return
		}
		time.Sleep(100 * time.Microsecond)
	}
	time.Sleep(delay)
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	marker := filepath.Join(e.workspace, "marker")
	before, _ := os.ReadFile(marker) // as rein left it
	token := "PWD=" + e.workspace
	gone := time.Now()
	for {
		left := processesWith(token)
		if len(left) == 0 {
			break
		}
		if time.Since(gone) > time.Second {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("%s: processes %v of the command outlived rein by 1s", what, left)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(400 * time.Millisecond) // past the grandchildren's delay
	if after, _ := os.ReadFile(marker); !bytes.Equal(before, after) {
		t.Errorf("%s: the marker changed after rein was gone: %q then %q", what, before, after)
		return
	}
	if !cont {
		return
	}
	q := e.start(t, append(args, "--continue", "--output-format", "json")...)
	q.stdin.Close()
	if code := q.wait(t, 60*time.Second); code != 0 {
		t.Errorf("%s: --continue exited %d\nstderr: %s", what, code, q.stderr)
		return
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Errorf("%s: the model got %d requests, want 2", what, len(reqs))
		return
	}
	got := toolResults(t, reqs[1].Body)["call_marker"]
	if !strings.Contains(got, session.InterruptedRunning) || strings.Contains(got, "not re-run") {
		t.Errorf("%s: the model was told %q", what, got)
	}
	if errOut := q.stderr.String(); !strings.Contains(errOut, "call_marker") || strings.Contains(errOut, "not re-run") {
		t.Errorf("%s: --continue said on stderr:\n%s", what, errOut)
	}
	if entries, _ := os.ReadDir(filepath.Join(stateDir, "running")); len(entries) != 0 {
		t.Errorf("%s: records left in the process registry after --continue: %v", what, entries)
	}
}

// commandChild reports whether rein has a child running the test's
// command (through the supervisor, so its command line holds the script).
func commandChild(pid int) bool {
	for _, c := range childrenOf(pid) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(c) + "/cmdline")
		if bytes.Contains(b, []byte("echo leader")) {
			return true
		}
	}
	return false
}

func childrenOf(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, _ := os.ReadDir(dir)
	var out []int
	for _, task := range tasks {
		b, _ := os.ReadFile(filepath.Join(dir, task.Name(), "children"))
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// processesWith lists the living processes whose environment holds the
// entry token, or whose command line contains it.
func processesWith(token string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if st, err := os.ReadFile("/proc/" + ent.Name() + "/stat"); err != nil {
			continue
		} else if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			continue // dead, waiting to be reaped
		}
		env, _ := os.ReadFile("/proc/" + ent.Name() + "/environ")
		cmdline, _ := os.ReadFile("/proc/" + ent.Name() + "/cmdline")
		if bytes.Contains(append([]byte{0}, env...), []byte("\x00"+token+"\x00")) || bytes.Contains(cmdline, []byte(token)) {
			out = append(out, pid)
		}
	}
	return out
}

// TestKilledReinLeavesNoServerOrHook: an MCP stdio server that ignores
// stdin's end and a hook still running do not outlive a rein killed
// with SIGKILL.
func TestKilledReinLeavesNoServerOrHook(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes")
	}
	for _, c := range []struct{ name, config, token string }{
		{"mcp server", "[mcp_servers.deaf]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"exec sleep %s\"]\n", ""},
		{"hook", "[[hooks.UserPromptSubmit]]\nhooks = [{ type = \"command\", command = \"exec sleep %s\", timeout = 600 }]\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A unique duration names the process.
			token := fmt.Sprintf("987.%d", rand.IntN(1e9))
			e := newEnv(t)
			e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n"+fmt.Sprintf(c.config, token))
			srv := modeltest.NewServer(t, sse(textBody("done")))
			p := e.start(t, "run", "--preset", "full", "-e", srv.URL, "hi")
			p.stdin.Close()
			waitFor(t, "the "+c.name+" to start", 30*time.Second, func() bool { return len(processesWith("sleep\x00"+token)) > 0 })
			p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.done
			gone := time.Now()
			for left := processesWith("sleep\x00" + token); len(left) > 0; left = processesWith("sleep\x00" + token) {
				if time.Since(gone) > time.Second {
					for _, pid := range left {
						syscall.Kill(pid, syscall.SIGKILL)
					}
					t.Fatalf("the %s %v outlived rein by 1s", c.name, left)
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}
