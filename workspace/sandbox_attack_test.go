//go:build linux

package workspace

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
	"golang.org/x/sys/unix"
)

// These tests attack the sandbox from inside a sandboxed bash, with real
// processes and a real bubblewrap, and judge by what happened on the host.

// TestSandboxAttackOutsideFiles: a file outside the workspace keeps its
// contents, mode, owner, times and extended attributes whatever a command
// tries, and its directory gains and loses nothing.
func TestSandboxAttackOutsideFiles(t *testing.T) {
	requireNamespaces(t)
	outside := visibleTempDir(t)
	sentinel := filepath.Join(outside, "sentinel")
	mustWrite(t, sentinel, []byte("original\n"))
	if err := unix.Setxattr(sentinel, "user.rein", []byte("orig"), 0); err != nil {
		t.Logf("no user xattrs on %s (%v): only their absence is compared", outside, err)
	}
	before, listing := stateOf(t, sentinel), dirNames(t, outside)
	ws, dir := openTemp(t, Options{Sandbox: sandbox.Required})
	s := strconv.Quote(sentinel)
	attacks := []string{
		"chmod 777 " + s,
		"chown 1:1 " + s,
		"chown 65534 " + s,
		"touch -d 2000-01-01 " + s,
		"touch " + s,
		"echo x > " + s,
		"echo x >> " + s,
		"truncate -s 0 " + s,
		"mv " + s + " " + s + ".moved",
		"mv " + s + " " + strconv.Quote(dir) + "/stolen",
		"rm -f " + s,
		"ln -s /etc/passwd " + strconv.Quote(filepath.Join(outside, "link")),
		"ln " + s + " " + strconv.Quote(filepath.Join(outside, "hard")),
		"mkdir " + strconv.Quote(filepath.Join(outside, "newdir")),
	}
	if _, err := exec.LookPath("python3"); err == nil {
		attacks = append(attacks,
			`python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.rein", b"evil")' `+s,
			`python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.new", b"evil")' `+s,
			`python3 -c 'import os,sys; os.removexattr(sys.argv[1], "user.rein")' `+s,
			`python3 -c 'import os,sys; os.utime(sys.argv[1], (0, 0))' `+s,
		)
	} else {
		t.Log("python3 not installed: setxattr attacks not run")
	}
	for _, a := range attacks {
		res := run(t, ws, a)
		if res.ExitCode == 0 {
			t.Errorf("%s: succeeded inside the sandbox (output %q)", a, res.Output)
		}
		if !res.Sandboxed || res.Isolation != sandbox.IsolationFull {
			t.Fatalf("%s: isolation %q, want %q", a, res.Isolation, sandbox.IsolationFull)
		}
	}
	if after := stateOf(t, sentinel); after != before {
		t.Errorf("the sentinel changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if got := dirNames(t, outside); got != listing {
		t.Errorf("the outside directory changed: %q, was %q", got, listing)
	}
}

// TestSandboxAttackNetwork: with the network off nothing reaches a
// loopback listener on the host; with it on, the same command does.
func TestSandboxAttackNetwork(t *testing.T) {
	requireNamespaces(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Write([]byte("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"))
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	attacks := []string{"echo hi > /dev/tcp/127.0.0.1/" + port}
	if _, err := exec.LookPath("curl"); err == nil {
		attacks = append(attacks, "curl -sS -m 5 http://127.0.0.1:"+port+"/")
	} else {
		t.Log("curl not installed: only bash's /dev/tcp is tried")
	}
	if _, err := exec.LookPath("python3"); err == nil {
		attacks = append(attacks, `python3 -c 'import socket; socket.create_connection(("127.0.0.1", `+port+`), 5)'`)
	}
	off, _ := openTemp(t, Options{Sandbox: sandbox.Required})
	for _, a := range attacks {
		if res := run(t, off, a); res.ExitCode == 0 {
			t.Errorf("%s: succeeded with the network off (output %q)", a, res.Output)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the listener saw %d connections with the network off", n)
	}
	on, _ := openTemp(t, Options{Sandbox: sandbox.Required, SandboxNetwork: true})
	for _, a := range attacks {
		if res := run(t, on, a); res.ExitCode != 0 {
			t.Errorf("%s: failed with the network on: %+v", a, res)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for accepted.Load() < int64(len(attacks)) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := accepted.Load(); n != int64(len(attacks)) {
		t.Errorf("the listener saw %d connections with the network on, want %d", n, len(attacks))
	}
}

// TestSandboxAttackUnixSockets: with the network off, a host daemon's
// Unix socket under /run is out of reach; with it on, it is reachable
// (the documented trade).
func TestSandboxAttackUnixSockets(t *testing.T) {
	requireNamespaces(t)
	dir, err := os.MkdirTemp("/run", "rein-sock-test-")
	if err != nil {
		t.Skipf("SKIP: cannot create a socket under /run (needs root): %v", err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "daemon.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("SKIP: python3 is needed to connect to a Unix socket: %v", err)
	}
	attack := `python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("` + sock + `")'`
	off, _ := openTemp(t, Options{Sandbox: sandbox.Required})
	if res := run(t, off, attack); res.ExitCode == 0 {
		t.Errorf("connected to a host Unix socket with the network off (output %q)", res.Output)
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the daemon saw %d connections with the network off", n)
	}
	on, _ := openTemp(t, Options{Sandbox: sandbox.Required, SandboxNetwork: true})
	if res := run(t, on, attack); res.ExitCode != 0 {
		t.Errorf("the socket is unreachable with the network on: %+v", res)
	}
}

// TestSandboxAttackProcesses: rein's process (here the test binary, with a
// secret in its environment and command line) is invisible, nothing
// started inside outlives the call, and the command is in a session of
// its own with no-new-privileges and no capabilities.
func TestSandboxAttackProcesses(t *testing.T) {
	requireNamespaces(t)
	t.Setenv("REIN_TEST_PARENT_SECRET", "sk-parent-secret-42")
	ws, dir := openTemp(t, Options{Sandbox: sandbox.Required})
	for _, a := range []string{
		"cat /proc/$PPID/environ",
		"cat /proc/1/environ",
		"cat /proc/" + strconv.Itoa(os.Getpid()) + "/environ",
		"cat /proc/" + strconv.Itoa(os.Getpid()) + "/cmdline",
		"kill -0 " + strconv.Itoa(os.Getpid()),
	} {
		res := run(t, ws, a)
		if res.ExitCode == 0 || strings.Contains(res.Output, "sk-parent-secret-42") || strings.Contains(res.Output, filepath.Base(os.Args[0])) {
			t.Errorf("%s: reached the parent: %+v", a, res)
		}
	}
	res := run(t, ws, `for p in /proc/[0-9]*; do echo "${p#/proc/} $(tr '\0' ' ' < $p/cmdline)"; done`)
	if strings.Contains(res.Output, filepath.Base(os.Args[0])) || strings.Contains(res.Output, "sk-parent-secret") {
		t.Errorf("a process outside the sandbox is visible:\n%s", res.Output)
	}
	if n := strings.Count(res.Output, "\n"); n > 5 {
		t.Errorf("%d processes visible, want only the sandbox's own:\n%s", n, res.Output)
	}

	// A detached survivor would write the marker after a second.
	tok := sleepToken(t)
	marker := filepath.Join(dir, "survived")
	res = run(t, ws, `setsid -f bash -c 'sleep 1; echo alive > `+marker+`'; setsid -f sleep `+tok+`; (nohup sleep `+tok+` >/dev/null 2>&1 &); echo started`)
	if res.ExitCode != 0 || !strings.Contains(res.Output, "started") {
		t.Fatalf("starting the survivors: %+v", res)
	}
	if left := waitNoSleepers(tok); len(left) != 0 {
		t.Errorf("detached sleeps (host pids %v) outlived the call", left)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Error("a setsid -f process outlived the call and wrote its marker")
	}

	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	res = run(t, ws, `read -r stat < /proc/self/stat; rest=${stat##*) }; set -- $rest; echo "sid $4"; grep -E '^(NoNewPrivs|CapEff|CapPrm|CapBnd):' /proc/self/status`)
	inner := 0
	for _, line := range strings.Split(res.Output, "\n") {
		if v, ok := strings.CutPrefix(line, "sid "); ok {
			inner, _ = strconv.Atoi(v)
		}
	}
	// Outside the new session the parent's session shows as 0 in the
	// PID namespace; a session of its own has a leader inside.
	if inner == 0 || inner == sid {
		t.Errorf("the command shares a session with rein (sid inside %d, rein's %d): TIOCSTI would reach the terminal\n%s", inner, sid, res.Output)
	}
	for _, want := range []string{"NoNewPrivs:\t1", "CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapBnd:\t0000000000000000"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("status lacks %q:\n%s", want, res.Output)
		}
	}
}

// TestSandboxAttackControlFiles: git's config and hooks, rein's project
// configuration and .mcp.json stay as they were, whether written
// directly, through a symlink, replaced by mv or removed, and .git cannot
// be renamed away to escape the protection.
func TestSandboxAttackControlFiles(t *testing.T) {
	requireNamespaces(t)
	for _, hooks := range []bool{true, false} {
		t.Run("hooks dir "+map[bool]string{true: "exists", false: "missing"}[hooks], func(t *testing.T) {
			ws, dir := openTemp(t, Options{Sandbox: sandbox.Required})
			files := map[string]string{
				".git/config":       "[core]\n\tbare = false\n",
				".rein/config.toml": "[policy]\npreset = \"editor\"\n",
				".mcp.json":         "{}\n",
			}
			if hooks {
				files[".git/hooks/pre-commit"] = "#!/bin/sh\nexit 0\n"
			}
			states := map[string]fileState{}
			for rel, body := range files {
				p := filepath.Join(dir, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				mustWrite(t, p, []byte(body))
			}
			for rel := range files {
				states[rel] = stateOf(t, filepath.Join(dir, rel))
			}
			attacks := []string{
				"echo '[core] fsmonitor = evil' >> .git/config",
				"echo evil > .git/config",
				"ln -s .git/config cfg && echo '[core] pager = evil' >> cfg",
				"echo evil > new && mv -f new .git/config",
				"rm -f .git/config",
				"chmod 666 .git/config",
				"echo 'evil' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
				"echo 'evil' > .git/hooks/post-checkout",
				"rm -rf .git/hooks",
				"mv .git/hooks .git/hooks.old",
				"mv .git .git.old",
				"rm -rf .git",
				"echo evil > .rein/config.toml",
				"echo evil > .rein/other.toml",
				"mv .rein .rein.old",
				"echo evil > .mcp.json",
				"echo evil > new2 && mv -f new2 .mcp.json",
				"ln -sf /etc/passwd .mcp.json",
				"ln -s .mcp.json m && echo evil > m",
			}
			for _, a := range attacks {
				if res := run(t, ws, a); res.ExitCode == 0 {
					t.Errorf("%s: succeeded (output %q)", a, res.Output)
				}
			}
			for rel, st := range states {
				if got := stateOf(t, filepath.Join(dir, rel)); got != st {
					t.Errorf("%s changed:\nbefore %+v\nafter  %+v", rel, st, got)
				}
			}
			if got := dirNames(t, filepath.Join(dir, ".git", "hooks")); got != map[bool]string{true: "pre-commit", false: ""}[hooks] {
				t.Errorf(".git/hooks holds %q", got)
			}
			for _, gone := range []string{".git.old", ".rein.old", ".git/hooks.old", ".rein/other.toml"} {
				if _, err := os.Lstat(filepath.Join(dir, gone)); err == nil {
					t.Errorf("%s exists", gone)
				}
			}
		})
	}
}

// TestSandboxAttackSecrets: the hidden paths (a fake HOME's ~/.ssh, rein's
// configuration) cannot be read, also when the workspace is the home
// directory itself, which stays usable.
func TestSandboxAttackSecrets(t *testing.T) {
	requireNamespaces(t)
	home := visibleTempDir(t)
	secrets := map[string]string{
		".ssh/id_rsa":              "SSH-SECRET-KEY",
		".config/rein/config.toml": "api_key = \"REIN-SECRET\"",
		".aws/credentials":         "AWS-SECRET",
		".netrc":                   "machine x password NETRC-SECRET",
	}
	for rel, body := range secrets {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		mustWrite(t, p, []byte(body))
	}
	hidden := sandbox.DefaultHidden(home, "", filepath.Join(home, ".local/state/rein"))
	check := func(t *testing.T, ws *Workspace) {
		for rel := range secrets {
			p := filepath.Join(home, rel)
			res := run(t, ws, "cat "+strconv.Quote(p))
			if res.ExitCode == 0 || strings.Contains(res.Output, "SECRET") {
				t.Errorf("read %s: %+v", rel, res)
			}
		}
		res := run(t, ws, "grep -r SECRET "+strconv.Quote(home)+" 2>/dev/null; ls -A "+strconv.Quote(filepath.Join(home, ".ssh")))
		if strings.Contains(res.Output, "SECRET") || strings.Contains(res.Output, "id_rsa") {
			t.Errorf("secrets found by a search: %q", res.Output)
		}
		if res := run(t, ws, "echo fine > "+strconv.Quote(filepath.Join(ws.Dir(), "ok"))+" && cat "+strconv.Quote(filepath.Join(ws.Dir(), "ok"))); res.Output != "fine\n" {
			t.Errorf("the workspace is not usable: %+v", res)
		}
	}
	t.Run("workspace elsewhere", func(t *testing.T) {
		ws, _ := openTemp(t, Options{Sandbox: sandbox.Required, SandboxHidden: hidden})
		check(t, ws)
	})
	t.Run("workspace is home", func(t *testing.T) {
		ws, err := Open(home, Options{Sandbox: sandbox.Required, SandboxHidden: append(hidden, home, filepath.Dir(home))})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		check(t, ws)
		if got := readHost(t, filepath.Join(home, ".ssh/id_rsa")); got != "SSH-SECRET-KEY" {
			t.Errorf("the hidden key changed on the host: %q", got)
		}
	})
}

// TestSandboxCreatedProtectedPathsRemoved: protected paths missing when a
// command starts are removed again if it creates them; git would otherwise
// read the config of the directory a new .git/commondir names.
func TestSandboxCreatedProtectedPathsRemoved(t *testing.T) {
	requireNamespaces(t)
	ws, dir := openTemp(t, Options{Sandbox: sandbox.Required})
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, ".git", "config"), []byte("[core]\n"))
	res := run(t, ws, `mkdir -p evil && printf '[core]\n\tfsmonitor = touch pwned\n' > evil/config && echo ../evil > .git/commondir && echo '{}' > .mcp.json && mkdir .rein && echo x > .rein/config.toml && echo done`)
	if res.ExitCode != 0 || !strings.Contains(res.Output, "done") {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(res.Output, "rein: removed") || !strings.Contains(res.Output, ".git/commondir") {
		t.Errorf("output does not say what was removed: %q", res.Output)
	}
	for _, p := range []string{".git/commondir", ".mcp.json", ".rein"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s created by a command survived", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "evil", "config")); err != nil {
		t.Errorf("an ordinary file was removed: %v", err)
	}
}
