package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/workspace/sandbox"
)

// TestBinaryResourceLimits: a hostile model, through the real `rein run`
// binary, floods the sandbox with 1,500 sleepers (from a script it wrote,
// past the analyzer's fork-loop denial), allocates 1 GiB under
// a 256 MiB cap, writes 4 MiB under a 1 MiB file cap and spins under a
// 1 s CPU cap. The flood stops at the default cap of 1,024 processes and
// the others are killed; each tool result names
// the limit and how to raise it; rein's next command still runs; and
// nothing the attacks started is left on the host.
func TestBinaryResourceLimits(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the resource limits are a Linux feature")
	}
	if _, err := sandbox.Namespaces(); err != nil {
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatalf("REIN_REQUIRE_INTEROP=1 but %v", err)
		}
		t.Skipf("SKIPPING: %v", err)
	}
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[sandbox]\nmode = \"required\"\nlimits = { memory = \"256MiB\", file_size = \"1MiB\", cpu_time = \"1s\" }\n")
	token := "rein-e2e-flood-" + strconv.Itoa(os.Getpid())
	limit := sandbox.DefaultLimits().Processes // 1,024 but on machines with more than 8 CPUs
	// The policy hard-denies an inline fork loop, so the model writes it
	// to a file first: the sandbox, not the analyzer, is the boundary.
	flood := `$0 = "` + token + `"; my $n = 0; ` +
		`for (1..` + strconv.Itoa(max(1500, limit+500)) + `) { my $p = fork; last unless defined $p; if ($p == 0) { sleep 120; exit 0 } $n++ } print "spawned $n\n";`
	hog := `perl -e '$0 = "` + token + `"; $x = "a" x (1024 << 20); print "survived\n"'`
	srv := modeltest.NewServer(t,
		sse(toolBody("c0", "write_file", mustJSONString(t, map[string]string{"path": "flood.pl", "content": flood}))),
		sse(toolBody("c1", "run_command", mustJSONString(t, map[string]string{"command": "perl flood.pl"}))),
		sse(toolBody("c2", "run_command", mustJSONString(t, map[string]string{"command": "echo still-alive"}))),
		sse(toolBody("c3", "run_command", mustJSONString(t, map[string]string{"command": hog}))),
		sse(toolBody("c4", "run_command", mustJSONString(t, map[string]string{"command": "head -c 4194304 /dev/zero > big"}))),
		sse(toolBody("c5", "run_command", mustJSONString(t, map[string]string{"command": "while :; do :; done"}))),
		sse(textBody("done")),
	)
	p := e.start(t, "run", "--preset", "full", "--approve", "auto", "-e", srv.URL, "attack")
	p.stdin.Close()
	if code := p.wait(t, 50*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
	}
	if strings.Contains(p.stderr.String(), "not enforced") || strings.Contains(p.stderr.String(), "per process") {
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatalf("REIN_REQUIRE_INTEROP=1 but the limits are degraded here: %s", p.stderr)
		}
		t.Skipf("SKIPPING: the limits are degraded here: %s", p.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("the model got %d requests, want 7\nstderr: %s", len(reqs), p.stderr)
	}
	results := toolResults(t, reqs[6].Body)
	m := regexp.MustCompile(`spawned (\d+)`).FindStringSubmatch(results["c1"])
	if m == nil {
		t.Fatalf("flood result has no count: %q", results["c1"])
	}
	if n, _ := strconv.Atoi(m[1]); n >= limit || n < limit-24 {
		t.Errorf("the flood spawned %d sleepers; want it stopped just below %d", n, limit)
	}
	for id, want := range map[string]string{
		"c1": "a process could not start: hit the sandbox's process limit (" + sandbox.DefaultLimits().Value(sandbox.LimitProcesses) + "); raise [sandbox] limits.processes",
		"c2": "still-alive",
		"c3": "stopped: hit the sandbox's memory limit (256 MiB); raise [sandbox] limits.memory",
		"c4": "stopped: hit the sandbox's file size limit (1 MiB); raise [sandbox] limits.file_size",
		"c5": "stopped: hit the sandbox's per-process CPU time limit (1s); raise [sandbox] limits.cpu_time",
	} {
		if !strings.Contains(results[id], want) {
			t.Errorf("%s: result %q does not say %q", id, results[id], want)
		}
	}
	if strings.Contains(results["c3"], "survived") {
		t.Errorf("the allocation survived: %q", results["c3"])
	}
	if fi, err := os.Stat(filepath.Join(e.workspace, "big")); err != nil || fi.Size() > 1<<20 {
		t.Errorf("big: %v, %v; want at most 1 MiB written", fi, err)
	}
	// rein has exited: nothing the attacks started may be left.
	entries, _ := os.ReadDir("/proc")
	left := 0
	for _, de := range entries {
		if b, err := os.ReadFile(filepath.Join("/proc", de.Name(), "cmdline")); err == nil && bytes.Contains(b, []byte(token)) {
			left++
		}
	}
	if left > 0 {
		t.Errorf("%d processes of the attacks outlived rein", left)
	}
}
