package cli_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
)

// TestDamagedStoreRefusedByEveryCommand is issue 28's store test through
// the real binary. A real `rein run` is killed with SIGKILL mid-call (its
// history is in the WAL, every commit fsynced), or finishes cleanly; then
// the store is damaged as a power cut or a bad disk leaves it. `rein
// sessions list`, `sessions show`, `run --continue` and a new `rein run`
// must all refuse with the same one-line message naming the session and
// the way out, exit 1, and leave sessions.db, its -wal and -shm byte for
// byte as they were; `rein sessions export` saves the events before the
// damage.
func TestDamagedStoreRefusedByEveryCommand(t *testing.T) {
	tests := []struct {
		name    string
		crashed bool
		damage  func(t *testing.T, db string)
	}{
		{"WAL cut in half", true, func(t *testing.T, db string) {
			mangleFile(t, db+"-wal", func(d []byte) []byte { return d[:len(d)/2] })
		}},
		{"WAL tail overwritten", true, func(t *testing.T, db string) {
			mangleFile(t, db+"-wal", func(d []byte) []byte {
				for i := len(d) - 3000; i < len(d); i++ {
					d[i] = byte(i * 31)
				}
				return d
			})
		}},
		{"a zeroed WAL frame", true, func(t *testing.T, db string) {
			mangleFile(t, db+"-wal", func(d []byte) []byte {
				off := 32 + 3*(24+4096)
				clear(d[off : off+24+4096])
				return d
			})
		}},
		{"database cut after a clean exit", false, func(t *testing.T, db string) {
			mangleFile(t, db, func(d []byte) []byte { return d[:len(d)/2/4096*4096] })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { damagedStoreRefused(t, tt.crashed, tt.damage) })
	}
}

func damagedStoreRefused(t *testing.T, crashed bool, damage func(*testing.T, string)) {
	e := newEnv(t)
	marker := filepath.Join(e.workspace, "marker")
	steps := []modeltest.Step{}
	for _, cmd := range []string{"echo one >> marker", "echo two >> marker", "echo three >> marker"} {
		steps = append(steps, sse(toolBody("call_0", "run_command", `{"command":"`+cmd+`"}`)))
	}
	if crashed {
		steps = append(steps, sse(toolBody("call_0", "run_command", `{"command":"echo slow-start >> marker; sleep 60"}`)))
	}
	steps = append(steps, sse(textBody("done")))
	srv := modeltest.NewServer(t, steps...)
	stateDir := filepath.Join(e.home, "state")
	db := filepath.Join(stateDir, session.DatabaseFile)
	args := []string{"--preset", "full", "--state-dir", stateDir, "-e", srv.URL}

	p := e.start(t, append([]string{"run"}, append(args, "run the commands")...)...)
	p.stdin.Close()
	if crashed {
		waitFor(t, "the slow command to start", 30*time.Second, func() bool {
			b, _ := os.ReadFile(marker)
			return strings.Contains(string(b), "slow-start")
		})
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait(t, 10*time.Second)
		killGroupsRunning(t, "slow-start >> marker")
	} else if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("rein run exited %d\n%s", code, p.stderr)
	}
	heads, _ := filepath.Glob(filepath.Join(stateDir, "locks", "*.head"))
	if len(heads) != 1 {
		t.Fatalf("head files %v, want one", heads)
	}
	id := strings.TrimSuffix(filepath.Base(heads[0]), ".head")
	if fi, err := os.Stat(db + "-wal"); crashed && (err != nil || fi.Size() == 0) {
		t.Fatalf("the killed run left no WAL: %v", err)
	}

	damage(t, db)
	before := storeFiles(t, db)
	var first string
	for _, cmd := range [][]string{
		{"sessions", "list", "--state-dir", stateDir},
		{"sessions", "show", id, "--state-dir", stateDir},
		append([]string{"run", "--continue"}, args...),
		append([]string{"run"}, append(args, "a new task")...),
	} {
		q := e.start(t, cmd...)
		q.stdin.Close()
		code := q.wait(t, 30*time.Second)
		msg := strings.TrimSpace(q.stderr.String())
		if code != 1 || strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "session "+id) ||
			!strings.Contains(msg, "rein sessions export ") || !strings.Contains(msg, "--state-dir") || !strings.Contains(msg, "not changed") {
			t.Errorf("rein %s: exit %d, stderr %q; want exit 1 and one line naming session %s, export and --state-dir", strings.Join(cmd, " "), code, msg, id)
		}
		if first == "" {
			t.Logf("rein %s: %s", cmd[1], msg)
			first = msg
		} else if msg != first {
			t.Errorf("rein %s says\n%s\nbut rein sessions list said\n%s", strings.Join(cmd, " "), msg, first)
		}
		if diff := before.diff(storeFiles(t, db)); diff != "" {
			t.Fatalf("rein %s refused the store but %s", strings.Join(cmd, " "), diff)
		}
	}

	x := e.start(t, "sessions", "export", id, "--state-dir", stateDir)
	x.stdin.Close()
	code := x.wait(t, 30*time.Second)
	lines := strings.Count(x.stdout.String(), "\n")
	if code != 1 || !strings.Contains(x.stderr.String(), "events before it were exported") || lines > 0 && !strings.HasPrefix(x.stdout.String(), `{"type":`) {
		t.Errorf("sessions export: exit %d, %d lines, stderr %q", code, lines, x.stderr)
	}
	t.Logf("sessions export: %d lines, %s", lines, strings.TrimSpace(x.stderr.String()))
	if diff := before.diff(storeFiles(t, db)); diff != "" {
		t.Errorf("sessions export changed the store: %s", diff)
	}
}

// storeFiles holds a database's files: the database, -wal, -shm, the
// clean-shutdown marker (nil when missing).
type storeSet map[string][]byte

func storeFiles(t *testing.T, db string) storeSet {
	t.Helper()
	set := storeSet{}
	for _, suffix := range []string{"", "-wal", "-shm", ".clean"} {
		data, err := os.ReadFile(db + suffix)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		set[suffix] = data
	}
	return set
}

func (a storeSet) diff(b storeSet) string {
	var out []string
	for k, v := range a {
		if (v == nil) != (b[k] == nil) || !bytes.Equal(v, b[k]) {
			out = append(out, "sessions.db"+k+" changed")
		}
	}
	return strings.Join(out, ", ")
}

func mangleFile(t *testing.T, path string, fn func([]byte) []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
