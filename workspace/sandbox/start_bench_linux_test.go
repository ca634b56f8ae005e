package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The start-up benchmarks: a sandboxed `true` against an unsandboxed one,
// both through Prepare and Apply as rein starts every command (the
// supervisor included), with a workspace policy as rein builds it (the
// default protected and hidden paths, a private temporary directory, the
// default limits). Each reports, besides wall time, the CPU time the
// launched processes used (cpu-ms/op), which a loaded machine inflates
// less than wall time. Compare the two in one run:
//
//	go test -run '^$' -bench 'SandboxedTrue|UnsandboxedTrue|StartParts|ServerStart' -count 5 ./workspace/sandbox/
//
// Hooks and checks start exactly as these commands do (Prepare, Apply,
// Run); MCP and language servers through StartPiped (BenchmarkServerStart).

func BenchmarkUnsandboxedTrue(b *testing.B) {
	p := benchPolicy(b)
	p.Mode = Off
	benchTrue(b, p)
}

func BenchmarkSandboxedTrue(b *testing.B) {
	p := benchPolicy(b)
	if _, err := Namespaces(); err != nil {
		b.Skipf("no namespaces here: %v", err)
	}
	benchTrue(b, p)
}

// BenchmarkStartParts breaks the sandboxed start down: rein's
// preparation alone (Prepare and Release of a launch never started, the
// per-command cgroup included), and bubblewrap with the same flags
// starting `true` directly (no supervisor, no re-executed child).
func BenchmarkStartParts(b *testing.B) {
	p := benchPolicy(b)
	bwrap, err := Namespaces()
	if err != nil {
		b.Skipf("no namespaces here: %v", err)
	}
	b.Run("prepare", func(b *testing.B) {
		for b.Loop() {
			l, err := Prepare(p, []string{"true"})
			if err != nil {
				b.Fatal(err)
			}
			l.Release(nil)
		}
	})
	b.Run("prepare-limits-off", func(b *testing.B) {
		q := p
		q.Limits = limitsOff
		for b.Loop() {
			l, err := Prepare(q, []string{"true"})
			if err != nil {
				b.Fatal(err)
			}
			l.Release(nil)
		}
	})
	b.Run("sandboxed-limits-off", func(b *testing.B) {
		q := p
		q.Limits = limitsOff
		benchTrue(b, q)
	})
	b.Run("sandboxed-unguarded", func(b *testing.B) {
		noGuard = true
		defer func() { noGuard = false }()
		benchTrue(b, p)
	})
	b.Run("bwrap-alone", func(b *testing.B) {
		truePath, err := exec.LookPath("true")
		if err != nil {
			b.Skip(err)
		}
		args, _ := bwrapArgs(p, p.Writable)
		argv := append(append([]string{bwrap}, args...), "--", truePath)
		runBench(b, func() (*exec.Cmd, func(*os.ProcessState)) {
			return &exec.Cmd{Path: bwrap, Args: argv, Dir: p.Dir}, func(*os.ProcessState) {}
		})
	})
}

// limitsOff turns every limit off: no cgroup, no rlimits.
var limitsOff = Limits{Processes: Unlimited, Memory: Unlimited, CPUTime: Unlimited, FileSize: Unlimited, OpenFiles: Unlimited}

// BenchmarkServerStart is a stdio server's start, sandboxed or not:
// StartPiped of a program that answers the first line it reads (head -n1,
// as a server answers initialize), the round trip of that line, and the
// end once stdin closes.
func BenchmarkServerStart(b *testing.B) {
	for _, mode := range []Mode{Off, Required} {
		b.Run(string(mode), func(b *testing.B) {
			p := benchPolicy(b)
			p.Mode = mode
			if _, err := Namespaces(); err != nil && mode == Required {
				b.Skipf("no namespaces here: %v", err)
			}
			line := []byte("ping\n")
			got := make([]byte, len(line))
			for b.Loop() {
				l, err := Prepare(p, []string{"head", "-n1"})
				if err != nil {
					b.Fatal(err)
				}
				cmd := &exec.Cmd{Dir: p.Dir, Env: []string{"PATH=/usr/bin:/bin"}}
				pipes, err := l.StartPiped(cmd)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := pipes.Stdin.Write(line); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(pipes.Stdout, got); err != nil || string(got) != string(line) {
					b.Fatalf("answer %q, %v", got, err)
				}
				closeFiles(pipes.Stdin, pipes.Stdout, pipes.Stderr)
				err = cmd.Wait()
				l.Release(cmd.ProcessState)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchTrue(b *testing.B, p Policy) {
	runBench(b, func() (*exec.Cmd, func(*os.ProcessState)) {
		l, err := Prepare(p, []string{"true"})
		if err != nil {
			b.Fatal(err)
		}
		cmd := &exec.Cmd{Dir: p.Dir, Env: []string{"PATH=/usr/bin:/bin"}}
		l.Apply(cmd)
		return cmd, func(st *os.ProcessState) { l.Release(st) }
	})
}

// runBench runs the commands mk makes, one at a time, releasing each
// after it ends, and reports the CPU time they used per run.
func runBench(b *testing.B, mk func() (*exec.Cmd, func(*os.ProcessState))) {
	var cpu time.Duration
	for b.Loop() {
		cmd, release := mk()
		err := cmd.Run()
		release(cmd.ProcessState)
		if err != nil {
			b.Fatal(err)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// benchPolicy is a workspace policy as rein builds it: a git checkout as
// the workspace, a private temporary directory, the default protected
// and hidden paths and the default limits.
func benchPolicy(b *testing.B) Policy {
	if _, err := Available(); err != nil {
		b.Skipf("no Landlock here: %v", err)
	}
	dir := b.TempDir()
	ws, tmp := filepath.Join(dir, "ws"), filepath.Join(dir, "tmp")
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".git", "config"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	return Policy{
		Mode:      Required,
		Writable:  []string{ws, tmp},
		Protected: DefaultProtected(ws),
		Hidden:    DefaultHidden(home, "", ""),
		Dir:       ws,
	}
}
