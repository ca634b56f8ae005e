//go:build linux

package workspace

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

// alive reports whether pid is a running (non-zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	f := bytes.Fields(b[i+1:])
	return len(f) > 0 && string(f[0]) != "Z" && string(f[0]) != "X"
}

// groupMembers returns the live pids whose process group is pgid.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		f := bytes.Fields(b[i+1:])
		if len(f) > 2 && string(f[2]) == strconv.Itoa(pgid) && string(f[0]) != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

var pidLine = regexp.MustCompile(`(?m)^pid (\w+) (\d+)$`)

// pidsIn extracts "pid NAME N" lines a test command printed.
func pidsIn(t *testing.T, out string) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, g := range pidLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(g[2])
		m[g[1]] = n
	}
	return m
}

// sleepToken returns a unique duration for `sleep`, so the test can find
// the process on the host whatever PID namespace it ran in.
func sleepToken(t *testing.T) string {
	t.Helper()
	tokenSeq++
	return strconv.Itoa(100+tokenSeq) + "." + strconv.Itoa(os.Getpid()%1000000)
}

var tokenSeq int

// sleepers returns the live host pids running `sleep token`.
func sleepers(token string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(argv) == 2 && filepath.Base(argv[0]) == "sleep" && argv[1] == token && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// waitNoSleepers polls briefly for every `sleep token` to be gone.
func waitNoSleepers(token string) []int {
	var left []int
	for i := 0; i < 100; i++ {
		if left = sleepers(token); len(left) == 0 {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return left
}

// namespaced reports that pids the command printed are in its own PID
// namespace, so they say nothing about host processes.
func namespaced(res ExecResult) bool { return strings.HasPrefix(res.Isolation, "namespaces") }

// waitDead polls briefly: a SIGKILLed process disappears asynchronously.
func waitDead(pid int) bool {
	for i := 0; i < 100; i++ {
		if !alive(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestExecTimeoutKillsTheWholeGroup(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.Auto} {
		t.Run(string(mode), func(t *testing.T) {
			ws, _ := openTemp(t, Options{Sandbox: mode})
			// A grandchild in the background, a child that itself starts a
			// background grandchild, a process that escaped the group with
			// setsid, and the leader sleeping in the foreground.
			tok := map[string]string{}
			for _, n := range []string{"bg", "grandchild", "child", "setsid", "leader"} {
				tok[n] = sleepToken(t)
			}
			cmd := `echo "pid leader $$"
sleep ` + tok["bg"] + ` & echo "pid bg $!"
bash -c 'sleep ` + tok["grandchild"] + ` & echo "pid grandchild $!"; sleep ` + tok["child"] + `' & echo "pid child $!"
setsid sleep ` + tok["setsid"] + ` & echo "pid setsid $!"
trap '' TERM
sleep ` + tok["leader"]
			start := time.Now()
			res, err := ws.Exec(context.Background(), ExecOptions{Command: cmd, Timeout: time.Second})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			// 1 s timeout + 0.5 s grace (the leader ignores SIGTERM); the
			// rest is slack for a loaded machine under -race (the guard
			// and bubblewrap start in it too).
			if elapsed > 3*time.Second {
				t.Errorf("Exec returned after %v, want within 3s", elapsed)
			}
			if !res.TimedOut {
				t.Errorf("TimedOut = false; result %+v", res)
			}
			pids := pidsIn(t, res.Output)
			if len(pids) != 5 {
				t.Fatalf("want 5 pids in output, got %v:\n%s", pids, res.Output)
			}
			for name, tk := range tok {
				if left := waitNoSleepers(tk); len(left) != 0 {
					t.Errorf("the %s sleep (host pids %v) survived the timeout", name, left)
				}
			}
			if namespaced(res) {
				return // the printed pids are the namespace's
			}
			for name, pid := range pids {
				if !waitDead(pid) {
					t.Errorf("%s (pid %d) survived the timeout", name, pid)
				}
			}
			if m := groupMembers(pids["leader"]); len(m) != 0 {
				t.Errorf("group %d still has members %v", pids["leader"], m)
			}
		})
	}
}

func TestExecSleepTimeout(t *testing.T) {
	ws, _ := openTemp(t, Options{})
	start := time.Now()
	res, err := ws.Exec(context.Background(), ExecOptions{Command: "sleep 100", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second || d < time.Second {
		t.Errorf("sleep 100 with a 1s timeout took %v", d)
	}
	if !res.TimedOut || res.ExitCode != -1 || res.Signal == "" {
		t.Errorf("result = %+v; want timed out and killed by a signal", res)
	}
}

func TestExecBackgroundJobDoesNotOutliveCommand(t *testing.T) {
	ws, _ := openTemp(t, Options{})
	tok := sleepToken(t)
	start := time.Now()
	res, err := ws.Exec(context.Background(), ExecOptions{Command: `sleep ` + tok + ` & echo "pid bg $!"; echo done`, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a background job holding stdout kept Exec waiting %v", d)
	}
	if res.TimedOut || res.ExitCode != 0 || !strings.Contains(res.Output, "done") {
		t.Errorf("result = %+v", res)
	}
	if left := waitNoSleepers(tok); len(left) != 0 {
		t.Errorf("background job (host pids %v) survived", left)
	}
	pid := pidsIn(t, res.Output)["bg"]
	if pid == 0 || (!namespaced(res) && !waitDead(pid)) {
		t.Errorf("background job %d survived", pid)
	}
}

func TestExecCancellation(t *testing.T) {
	ws, _ := openTemp(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	tok := sleepToken(t)
	start := time.Now()
	res, err := ws.Exec(ctx, ExecOptions{Command: `echo "pid leader $$"; sleep ` + tok, Timeout: time.Minute})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Exec = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	if res.TimedOut {
		t.Error("a cancellation is reported as a timeout")
	}
	if left := waitNoSleepers(tok); len(left) != 0 {
		t.Errorf("the command's sleep (host pids %v) survived cancellation", left)
	}
	if pid := pidsIn(t, res.Output)["leader"]; pid == 0 || (!namespaced(res) && !waitDead(pid)) {
		t.Errorf("leader %d survived cancellation (output %q)", pid, res.Output)
	}
}

func TestExecOutputCap(t *testing.T) {
	ws, _ := openTemp(t, Options{})
	// 10 MB: a recognisable head, a filler, a recognisable tail.
	cmd := `echo HEAD-MARK; head -c 10000000 /dev/zero | tr '\0' 'x'; echo; echo TAIL-MARK >&2`
	res, err := ws.Exec(context.Background(), ExecOptions{Command: cmd, MaxOutput: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.OutputBytes != int64(10000000+len("HEAD-MARK\n")+1+len("TAIL-MARK\n")) {
		t.Errorf("Truncated=%v OutputBytes=%d", res.Truncated, res.OutputBytes)
	}
	if len(res.Output) > 64<<10+200 {
		t.Errorf("kept %d bytes, want about 64 KiB", len(res.Output))
	}
	if !strings.HasPrefix(res.Output, "HEAD-MARK\n") || !strings.HasSuffix(res.Output, "TAIL-MARK\n") {
		t.Errorf("head or tail lost: %q ... %q", res.Output[:20], res.Output[len(res.Output)-20:])
	}
	if !strings.Contains(res.Output, "bytes of output omitted") {
		t.Error("no truncation marker")
	}
}

func TestExecExitStatusAndDir(t *testing.T) {
	ws, dir := openTemp(t, Options{})
	if err := os.MkdirAll(filepath.Join(dir, "sub/deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cmd, dir string
		code           int
		out            string
	}{
		{"exit code", "echo oops >&2; exit 3", "", 3, "oops\n"},
		{"working dir", "pwd", "sub/deeper", 0, filepath.Join(dir, "sub/deeper") + "\n"},
		{"stdin is empty", "cat; echo end", "", 0, "end\n"},
		{"interleaved", "echo 1; echo 2 >&2; echo 3", "", 0, "1\n2\n3\n"},
	}
	for _, tt := range tests {
		res, err := ws.Exec(context.Background(), ExecOptions{Command: tt.cmd, Dir: tt.dir})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if res.ExitCode != tt.code || res.Output != tt.out {
			t.Errorf("%s: exit %d output %q; want %d %q", tt.name, res.ExitCode, res.Output, tt.code, tt.out)
		}
	}
	if _, err := ws.Exec(context.Background(), ExecOptions{Command: "true", Dir: "missing"}); err == nil {
		t.Error("a missing working directory was accepted")
	}
	if _, err := ws.Exec(context.Background(), ExecOptions{Command: ""}); err == nil {
		t.Error("an empty command was accepted")
	}
}

func TestExecScrubsEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret-1")
	t.Setenv("MY_SERVICE_TOKEN", "secret-2")
	t.Setenv("DB_DSN", "postgres://u:secret-3@db/x")
	t.Setenv("HARMLESS", "visible")
	t.Setenv("ALLOWED_TOKEN", "allowed")
	ws, _ := openTemp(t, Options{EnvAllow: []string{"ALLOWED_TOKEN"}})
	res, err := ws.Exec(context.Background(), ExecOptions{Command: "env", Env: []string{"EXPLICIT=1"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"sk-secret-1", "secret-2", "secret-3"} {
		if strings.Contains(res.Output, secret) {
			t.Errorf("secret %q reached the command", secret)
		}
	}
	for _, want := range []string{"HARMLESS=visible", "ALLOWED_TOKEN=allowed", "EXPLICIT=1", "TMPDIR=", "PATH="} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("%s missing from the environment", want)
		}
	}
	if strings.Contains(res.Output, "REIN_SANDBOX_EXEC") {
		t.Error("the sandbox marker leaked into the command's environment")
	}
}

// TestExecDropsShellControl: an exported bash function in rein's own
// environment would replace the program a command names (the policy
// decided `ls`, bash would run the function), and SHELLOPTS, PS4 or
// OLDPWD would change what the command does; none reaches it.
func TestExecDropsShellControl(t *testing.T) {
	t.Setenv("BASH_FUNC_ls%%", "() {  echo PWNED-FUNC; }")
	t.Setenv("SHELLOPTS", "xtrace")
	t.Setenv("PS4", "$(echo PWNED-PS4)")
	t.Setenv("OLDPWD", "/")
	t.Setenv("LD_PRELOAD", "/nonexistent/libpwn.so")
	ws, dir := openTemp(t, Options{})
	if err := os.WriteFile(filepath.Join(dir, "marker.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ws.Exec(context.Background(), ExecOptions{Command: "ls; cd - >/dev/null 2>&1 && echo LEFT-WORKSPACE; true"})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"PWNED", "LEFT-WORKSPACE", "libpwn"} {
		if strings.Contains(res.Output, bad) {
			t.Errorf("the command saw %s:\n%s", bad, res.Output)
		}
	}
	if !strings.Contains(res.Output, "marker.txt") {
		t.Errorf("ls did not run:\n%s", res.Output)
	}
}

// TestSandboxConfinesWrites is the Landlock acceptance test: the same
// command writes inside the workspace and fails outside it.
func TestSandboxConfinesWrites(t *testing.T) {
	abi, err := sandbox.Available()
	if err != nil {
		t.Skipf("kernel lacks Landlock, the sandbox cannot be tested here: %v", err)
	}
	outside := visibleTempDir(t)
	for _, mode := range []sandbox.Mode{sandbox.Auto, sandbox.Required} {
		t.Run(string(mode), func(t *testing.T) {
			ws, dir := openTemp(t, Options{Sandbox: mode})
			write := func(target string) ExecResult {
				res, err := ws.Exec(context.Background(), ExecOptions{Command: `echo data > "` + target + `"`})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			in := write(filepath.Join(dir, "inside.txt"))
			if in.ExitCode != 0 || !in.Sandboxed {
				t.Errorf("inside write: %+v (ABI %d)", in, abi)
			}
			if got := readHost(t, filepath.Join(dir, "inside.txt")); got != "data\n" {
				t.Errorf("inside.txt = %q", got)
			}
			out := write(filepath.Join(outside, "outside.txt"))
			if out.ExitCode == 0 || !(strings.Contains(out.Output, "Permission denied") || strings.Contains(out.Output, "Read-only file system")) {
				t.Errorf("outside write was not refused: %+v", out)
			}
			if _, err := os.Stat(filepath.Join(outside, "outside.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("outside.txt exists: %v", err)
			}
			tmp := write("$TMPDIR/t")
			if tmp.ExitCode != 0 {
				t.Errorf("private temp write failed: %+v", tmp)
			}
			// Reading outside is allowed by default.
			res, err := ws.Exec(context.Background(), ExecOptions{Command: "head -c 4 /etc/hostname >/dev/null && echo read-ok"})
			if err != nil || !strings.Contains(res.Output, "read-ok") {
				t.Errorf("read outside: %+v %v", res, err)
			}
		})
	}
}

func TestSandboxReadableRestrictsReads(t *testing.T) {
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("kernel lacks Landlock: %v", err)
	}
	secretDir := t.TempDir()
	mustWrite(t, filepath.Join(secretDir, "s"), []byte("secret"))
	ws, _ := openTemp(t, Options{SandboxReadable: []string{"/usr", "/bin", "/lib", "/lib64", "/etc"}})
	res, err := ws.Exec(context.Background(), ExecOptions{Command: "cat " + filepath.Join(secretDir, "s")})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 || strings.Contains(res.Output, "secret") {
		t.Errorf("read outside the readable set succeeded: %+v", res)
	}
}

func TestSandboxUnavailable(t *testing.T) {
	missing := func() (int, error) { return 0, sandbox.ErrUnavailable }
	noNS := func() (string, error) { return "", errors.New("bubblewrap not found") }
	t.Run("auto warns once", func(t *testing.T) {
		var logged bytes.Buffer
		ws, _ := openTemp(t, Options{Sandbox: sandbox.Auto, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
		ws.probe = missing
		ws.nsProbe = noNS
		first, err := ws.Exec(context.Background(), ExecOptions{Command: "echo ran"})
		if err != nil {
			t.Fatal(err)
		}
		if first.Sandboxed || first.Output != "ran\n" || !strings.Contains(first.Warning, "without a sandbox") {
			t.Errorf("first run: %+v", first)
		}
		second, err := ws.Exec(context.Background(), ExecOptions{Command: "echo ran"})
		if err != nil {
			t.Fatal(err)
		}
		if second.Warning != "" {
			t.Errorf("warned twice: %q", second.Warning)
		}
		if n := strings.Count(logged.String(), "without a sandbox"); n != 1 {
			t.Errorf("logged the warning %d times, want once:\n%s", n, logged.String())
		}
	})
	t.Run("required refuses", func(t *testing.T) {
		ws, dir := openTemp(t, Options{Sandbox: sandbox.Required})
		ws.probe = missing
		_, err := ws.Exec(context.Background(), ExecOptions{Command: "touch ran"})
		if !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), `"required"`) {
			t.Errorf("Exec = %v; want a clear refusal", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "ran")); !errors.Is(err, os.ErrNotExist) {
			t.Error("the command ran anyway")
		}
	})
}

func TestSandboxExtraWritable(t *testing.T) {
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("kernel lacks Landlock: %v", err)
	}
	cache := t.TempDir()
	ws, _ := openTemp(t, Options{SandboxWritable: []string{cache, filepath.Join(cache, "missing-yet")}})
	res, err := ws.Exec(context.Background(), ExecOptions{Command: `echo x > "` + cache + `/c" && echo ok`})
	if err != nil || res.Output != "ok\n" || !res.Sandboxed {
		t.Errorf("write to an extra writable directory: %+v, %v", res, err)
	}
}

// TestSandboxCaches checks that under the sandbox the build caches move to
// the private temp directory, where writing is allowed, unless the user
// made the real cache writable; and that go can build there.
func TestSandboxCaches(t *testing.T) {
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("kernel lacks Landlock: %v", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("GOCACHE", "")
	show := func(ws *Workspace) (gocache, xdg string) {
		res, err := ws.Exec(context.Background(), ExecOptions{Command: `printf '%s\n%s\n' "$GOCACHE" "$XDG_CACHE_HOME"`})
		if err != nil || res.ExitCode != 0 || !res.Sandboxed {
			t.Fatalf("exec: %+v, %v", res, err)
		}
		lines := strings.Split(strings.TrimSpace(res.Output), "\n")
		if len(lines) != 2 {
			t.Fatalf("output %q", res.Output)
		}
		return lines[0], lines[1]
	}

	ws, _ := openTemp(t, Options{Sandbox: sandbox.Required})
	tmp, err := ws.TempDir()
	if err != nil {
		t.Fatal(err)
	}
	gocache, xdg := show(ws)
	if gocache != filepath.Join(tmp, "go-build") || xdg != filepath.Join(tmp, "cache") {
		t.Errorf("caches = %q, %q; want them under the private temp dir %s", gocache, xdg, tmp)
	}

	goBuild := filepath.Join(home, ".cache", "go-build")
	ws2, _ := openTemp(t, Options{Sandbox: sandbox.Required, SandboxWritable: []string{goBuild}})
	gocache, xdg = show(ws2)
	if gocache != goBuild {
		t.Errorf("GOCACHE = %q; the user made %s writable, so it stays", gocache, goBuild)
	}
	if tmp2, _ := ws2.TempDir(); xdg != filepath.Join(tmp2, "cache") {
		t.Errorf("XDG_CACHE_HOME = %q, want the private one", xdg)
	}

	if _, err := exec.LookPath("go"); err == nil {
		dir := ws.Dir()
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.22\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { println(\"built\") }\n"), 0o644)
		res, err := ws.Exec(context.Background(), ExecOptions{Command: "GOTOOLCHAIN=local GOFLAGS=-mod=mod go run .", Timeout: 2 * time.Minute})
		if err != nil || res.ExitCode != 0 || !strings.Contains(res.Output, "built") {
			t.Errorf("go run under the sandbox with no writable cache configured: %+v, %v", res, err)
		}
	}
}
