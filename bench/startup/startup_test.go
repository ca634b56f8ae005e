package startup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce         sync.Once
	reinBin, helloBin string
	buildErr          error
)

// binaries returns the rein and hello binaries, built once per process
// unless bench/run passed them in.
func binaries(tb testing.TB) (string, string) {
	tb.Helper()
	buildOnce.Do(func() {
		reinBin, helloBin = os.Getenv("BENCH_REIN_BIN"), os.Getenv("BENCH_HELLO_BIN")
		dir, err := os.MkdirTemp("", "bench-startup-")
		if err != nil {
			buildErr = err
			return
		}
		build := func(out *string, name, dir0, pkg string) {
			if *out != "" || buildErr != nil {
				return
			}
			*out = filepath.Join(dir, name)
			cmd := exec.Command("go", "build", "-o", *out, pkg)
			cmd.Dir = dir0
			if msg, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
			}
		}
		build(&reinBin, "rein", "../..", "./cmd/rein")
		build(&helloBin, "hello", ".", "./testdata/hello")
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return reinBin, helloBin
}

// fakeModel is a loopback OpenAI-compatible server that notes when its
// first request arrived and answers every chat completion "done".
type fakeModel struct {
	*httptest.Server
	mu    sync.Mutex
	first time.Time
}

const answer = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"done\"},\"finish_reason\":null}]}\n\n" +
	"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
	"data: [DONE]\n\n"

func newFake(tb testing.TB) *fakeModel {
	f := &fakeModel{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		f.mu.Lock()
		if f.first.IsZero() {
			f.first = now
		}
		f.mu.Unlock()
		io.Copy(io.Discard, r.Body)
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, answer)
	}))
	tb.Cleanup(f.Close)
	return f
}

func (f *fakeModel) reset() {
	f.mu.Lock()
	f.first = time.Time{}
	f.mu.Unlock()
}

func (f *fakeModel) firstAt() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.first
}

// measured is one process run: wall time to exit, to the fake's first
// request (zero without one), peak RSS and standard output.
type measured struct {
	wall, first time.Duration
	rssMB       float64
	stdout      string
}

func runProc(tb testing.TB, fake *fakeModel, name string, args ...string) measured {
	tb.Helper()
	home := tb.TempDir()
	cmd := exec.Command(name, args...)
	cmd.Dir = home
	// A clean HOME and XDG dirs: no user configuration, state in the
	// temporary directory.
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/config", "XDG_STATE_HOME="+home+"/state",
		"REIN_API_KEY=", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if fake != nil {
		fake.reset()
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	m := measured{wall: time.Since(start), stdout: stdout.String()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rssMB = float64(ru.Maxrss) / 1024 // Linux: KiB
	}
	if fake != nil {
		if at := fake.firstAt(); !at.IsZero() {
			m.first = at.Sub(start)
		}
	}
	return m
}

// point is one row: what runs, and how to check its output.
type point struct {
	cmd, impl string
	run       func(tb testing.TB, rein, hello string, fake *fakeModel) measured
	check     func(m measured) error
}

var points = []point{
	{"version", "rein", func(tb testing.TB, rein, _ string, _ *fakeModel) measured {
		return runProc(tb, nil, rein, "version")
	}, func(m measured) error {
		if !strings.Contains(m.stdout, "rein") {
			return fmt.Errorf("rein version printed %q", m.stdout)
		}
		return nil
	}},
	{"version", "hello", func(tb testing.TB, _, hello string, _ *fakeModel) measured {
		return runProc(tb, nil, hello)
	}, helloOK},
	{"run-first-request", "rein", func(tb testing.TB, rein, _ string, fake *fakeModel) measured {
		return runProc(tb, fake, rein, "run", "-e", fake.URL, "-m", "bench", "--approve", "never",
			"--output-format", "json", "--max-steps", "2", "go")
	}, func(m measured) error {
		var out struct {
			Outcome, Text string
		}
		if err := json.Unmarshal([]byte(m.stdout), &out); err != nil || out.Text != "done" || out.Outcome != "complete" {
			return fmt.Errorf("rein run printed %q (%v)", m.stdout, err)
		}
		if m.first <= 0 {
			return fmt.Errorf("the fake model saw no request")
		}
		return nil
	}},
	{"run-first-request", "hello", func(tb testing.TB, _, hello string, fake *fakeModel) measured {
		return runProc(tb, fake, hello, fake.URL+"/v1/chat/completions")
	}, func(m measured) error {
		if m.first <= 0 {
			return fmt.Errorf("the fake model saw no request")
		}
		return helloOK(m)
	}},
}

func helloOK(m measured) error {
	if m.stdout != "hello, world\n" {
		return fmt.Errorf("hello printed %q", m.stdout)
	}
	return nil
}

// TestCorrectStartup checks each process did its work: rein version
// names rein, rein run completed with the fake's answer after a request
// reached it, the floor printed its line.
func TestCorrectStartup(t *testing.T) {
	rein, hello := binaries(t)
	fake := newFake(t)
	for _, p := range points {
		t.Run(p.cmd+"/"+p.impl, func(t *testing.T) {
			if err := p.check(p.run(t, rein, hello, fake)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// BenchmarkStartup reports ms/op (start to exit), ms/first-request
// (start to the fake's first request) and peak-RSS-MB (the largest of
// the op's processes).
func BenchmarkStartup(b *testing.B) {
	rein, hello := binaries(b)
	fake := newFake(b)
	for _, p := range points {
		b.Run("cmd="+p.cmd+"/impl="+p.impl, func(b *testing.B) {
			var wall, first time.Duration
			rss := 0.0
			for b.Loop() {
				m := p.run(b, rein, hello, fake)
				if err := p.check(m); err != nil {
					b.Fatal(err)
				}
				wall += m.wall
				first += m.first
				rss = max(rss, m.rssMB)
			}
			n := float64(b.N)
			b.ReportMetric(float64(wall)/float64(time.Millisecond)/n, "ms/op")
			if first > 0 {
				b.ReportMetric(float64(first)/float64(time.Millisecond)/n, "ms/first-request")
			}
			b.ReportMetric(rss, "peak-RSS-MB")
		})
	}
}
