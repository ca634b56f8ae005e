//go:build linux

package workspace

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

// unprivEnv marks the copy of the test binary that runs as nobody.
const unprivEnv = "REIN_LIMITS_UNPRIVILEGED"

// TestLimitsForkFloodUnprivileged: without a cgroup, an unprivileged
// rein bounds a fork flood with RLIMIT_NPROC in the sandbox's own user
// namespace, where only the sandbox's processes count. Run as root (as
// CI is), the test re-runs itself as nobody, where no cgroup is
// available to it.
func TestLimitsForkFloodUnprivileged(t *testing.T) {
	requireNamespaces(t)
	if os.Geteuid() == 0 {
		if os.Getenv(unprivEnv) != "" {
			t.Fatal("still root after dropping privileges")
		}
		asNobody(t)
		return
	}
	dir, err := os.MkdirTemp(os.Getenv("TMPDIR"), "rein-unpriv-ws-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ws, err := Open(dir, Options{Sandbox: sandbox.Required, SandboxLimits: sandbox.Limits{Processes: 64}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	token := "rein-unpriv-flood-" + strconv.Itoa(os.Getpid())
	script := `$0 = "` + token + `"; my $n = 0; for (1..300) { my $p = fork; last unless defined $p; if ($p == 0) { sleep 60; exit 0 } $n++ } print "spawned $n\n";`
	res, err := ws.Exec(context.Background(), ExecOptions{Command: "perl -e '" + script + "'", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Warning == "" || strings.Contains(res.Warning, "process limit is not enforced") {
		t.Errorf("warning %q: want one saying memory is per process, and the process limit enforced", res.Warning)
	}
	m := regexp.MustCompile(`spawned (\d+)`).FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatalf("no count in %q", res.Output)
	}
	if n, _ := strconv.Atoi(m[1]); n >= 64 || n < 50 {
		t.Errorf("spawned %d sleepers; want the flood stopped just below 64", n)
	}
	checkHealthy(t, ws, token)
}

// asNobody runs this test in a copy of the test binary as uid 65534.
func asNobody(t *testing.T) {
	tmp, err := os.MkdirTemp("", "rein-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	bin := filepath.Join(tmp, "workspace.test")
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^TestLimitsForkFloodUnprivileged$", "-test.count=1", "-test.v")
	cmd.Dir = tmp
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "TMPDIR=" + tmp, unprivEnv + "=1",
		"REIN_REQUIRE_INTEROP=" + os.Getenv("REIN_REQUIRE_INTEROP")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "SKIPPING"):
		t.Skipf("as nobody: %s", out)
	case err != nil:
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody:\n%s", out)
}

func copyExecutable(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
