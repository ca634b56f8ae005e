package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// impl is one way of starting `true`.
type impl struct {
	name string
	// mode is the workspace's sandbox mode; "" starts the process directly.
	mode sandbox.Mode
	// isolation is the layers the launch must report.
	isolation string
	// noNamespaces pins the namespace probe to "unavailable" (Landlock alone).
	noNamespaces bool
}

var impls = []impl{
	{name: "rein", mode: sandbox.Required, isolation: sandbox.IsolationFull},
	{name: "landlock", mode: sandbox.Auto, isolation: sandbox.IsolationLandlock, noNamespaces: true},
	{name: "direct"},
}

// starter starts `true` one way in a fresh workspace.
type starter struct {
	im  impl
	pol sandbox.Policy
}

func newStarter(tb testing.TB, im impl) *starter {
	tb.Helper()
	s := &starter{im: im}
	if im.mode == "" {
		return s
	}
	if _, err := sandbox.Available(); err != nil {
		skipOrFail(tb, "Landlock: "+err.Error())
	}
	if !im.noNamespaces {
		if _, err := sandbox.Namespaces(); err != nil {
			skipOrFail(tb, "bubblewrap: "+err.Error())
		}
	}
	ws, err := workspace.Open(tb.TempDir(), workspace.Options{Sandbox: im.mode})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	pol, err := ws.SandboxPolicy(false, "")
	if err != nil {
		tb.Fatal(err)
	}
	if im.noNamespaces {
		pol.Namespaces = func() (string, error) { return "", errors.New("pinned off for the benchmark") }
	}
	s.pol = pol
	return s
}

// skipOrFail skips when a layer is missing, unless BENCH_REQUIRE_SANDBOX
// is set (bench/run sets it): a benchmark that silently measures less
// than it says compares nothing.
func skipOrFail(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv("BENCH_REQUIRE_SANDBOX") != "" {
		tb.Fatal(why)
	}
	tb.Skip(why)
}

// run starts `true`, waits for it and releases the launch; it returns the
// isolation the launch reported.
func (s *starter) run(tb testing.TB) string {
	tb.Helper()
	if s.im.mode == "" {
		if err := exec.Command("true").Run(); err != nil {
			tb.Fatal(err)
		}
		return sandbox.IsolationNone
	}
	l, err := sandbox.Prepare(s.pol, []string{"true"})
	if err != nil {
		tb.Fatal(err)
	}
	cmd := &exec.Cmd{Dir: s.pol.Dir, Env: os.Environ()} // Apply appends the launch's entries
	l.Apply(cmd)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	l.Release(cmd.ProcessState)
	if err != nil {
		tb.Fatalf("%s: %v: %s", s.im.name, err, stderr.String())
	}
	return l.Isolation
}

// TestCorrectSandbox checks each impl really starts `true` under the layers
// it names, so the benchmark compares what it says.
func TestCorrectSandbox(t *testing.T) {
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			s := newStarter(t, im)
			want := im.isolation
			if want == "" {
				want = sandbox.IsolationNone
			}
			if got := s.run(t); got != want {
				t.Fatalf("isolation %q, want %q", got, want)
			}
		})
	}
}

// BenchmarkSandbox reports ms/op: one start, wait and release of `true`.
func BenchmarkSandbox(b *testing.B) {
	for _, im := range impls {
		b.Run("cmd=true/impl="+im.name, func(b *testing.B) {
			s := newStarter(b, im)
			s.run(b) // warm: the probes run once per process
			start := time.Now()
			for b.Loop() {
				s.run(b)
			}
			b.ReportMetric(float64(time.Since(start))/float64(time.Millisecond)/float64(b.N), "ms/op")
		})
	}
}
