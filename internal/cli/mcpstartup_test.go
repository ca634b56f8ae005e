package cli_test

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// firstRequestModel is a loopback fake model that notes when its first
// request arrives and answers every request from answers in order (the
// last one repeats); delay holds back the answer to the first request.
type firstRequestModel struct {
	URL     string
	mu      sync.Mutex
	first   time.Time
	bodies  []string
	answers []string
	delay   time.Duration
}

func newFirstRequestModel(t testing.TB, delay time.Duration, answers ...string) *firstRequestModel {
	t.Helper()
	m := &firstRequestModel{answers: answers, delay: delay}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(m.serve), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	m.URL = "http://" + ln.Addr().String()
	return m
}

func (m *firstRequestModel) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	var body strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Body.Read(buf)
		body.Write(buf[:n])
		if err != nil {
			break
		}
	}
	m.mu.Lock()
	if m.first.IsZero() {
		m.first = now
	}
	n := len(m.bodies)
	m.bodies = append(m.bodies, body.String())
	answer := m.answers[min(n, len(m.answers)-1)]
	m.mu.Unlock()
	if n == 0 && m.delay > 0 {
		time.Sleep(m.delay)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, answer)
}

func (m *firstRequestModel) firstAt() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.first
}

func (m *firstRequestModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.bodies...)
}

// hungServerConfig is a user config with one MCP server that never
// answers (sleep 1000) and a long startup timeout, so that waiting for it
// would show.
func hungServerConfig(grace string) string {
	c := "[model]\ncontext_window = 32768\n\n[mcp_servers.hung]\ncommand = \"sleep\"\nargs = [\"1000\"]\nstartup_timeout = \"30s\"\n"
	if grace != "" {
		c += "\n[mcp]\nstartup_grace = " + fmt.Sprintf("%q", grace) + "\n"
	}
	return c
}

// timeToFirstRequest runs the real binary with one hung MCP server and
// returns how long after the process started the model's first request
// arrived.
func timeToFirstRequest(t testing.TB, grace string) time.Duration {
	t.Helper()
	e := newEnv(t)
	e.writeUserConfig(t, hungServerConfig(grace))
	m := newFirstRequestModel(t, 0, textBody("hello"))
	reinBinary(t) // built before the clock starts
	start := time.Now()
	p := e.start(t, "run", "--output-format", "json", "-e", m.URL, "say hello")
	p.stdin.Close()
	code := p.wait(t, 40*time.Second)
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, p.stdout, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "MCP server hung had not connected when the run ended") {
		t.Errorf("the hung server was not reported at the end of the run:\n%s", p.stderr)
	}
	if n := strings.Count(p.stderr.String(), "hung"); n != 1 {
		t.Errorf("the hung server was reported %d times, want once:\n%s", n, p.stderr)
	}
	first := m.firstAt()
	if first.IsZero() {
		t.Fatal("the model got no request")
	}
	return first.Sub(start)
}

// TestStartupDoesNotWaitForHungServer: with a server that never answers
// (startup_timeout 30s), the first model request goes out after the
// startup grace, not the timeout, and the server is reported once. The
// bounds are generous (the figures are BenchmarkFirstModelRequest's);
// before the grace existed this took the whole 30 s.
func TestStartupDoesNotWaitForHungServer(t *testing.T) {
	for _, tc := range []struct {
		grace string
		max   time.Duration
	}{
		{"", 6 * time.Second},   // default 1s
		{"0s", 5 * time.Second}, // no wait at all
	} {
		t.Run("grace="+tc.grace, func(t *testing.T) {
			d := timeToFirstRequest(t, tc.grace)
			t.Logf("first model request %v after start (startup_grace %q)", d.Round(time.Millisecond), tc.grace)
			if d > tc.max {
				t.Errorf("first model request %v after start, want at most %v", d, tc.max)
			}
		})
	}
}

// BenchmarkFirstModelRequest measures, through the real binary with a
// loopback fake model and one hung MCP server (sleep 1000), the time from
// the process's start to the model's first request (ms-to-first-request):
// issue 12 asks for at most 1.2 s with the default grace and 100 ms with
// startup_grace = "0s". Run it with -benchtime=5x: each op is one rein run.
func BenchmarkFirstModelRequest(b *testing.B) {
	for _, grace := range []string{"default", "0s"} {
		b.Run("grace="+grace, func(b *testing.B) {
			g := grace
			if g == "default" {
				g = ""
			}
			reinBinary(b)
			var total, worst time.Duration
			for b.Loop() {
				d := timeToFirstRequest(b, g)
				total += d
				worst = max(worst, d)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-first-request")
			b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
		})
	}
}

// TestLateServerJoinsNextModelCall: a server that connects after the
// startup grace is not offered in the first model request, its tools join
// from the next one, and stream-json says so once in an mcp.connected
// line.
func TestLateServerJoinsNextModelCall(t *testing.T) {
	bin := reinBinary(t)
	e := newEnv(t)
	e.writeUserConfig(t, fmt.Sprintf("[model]\ncontext_window = 32768\n\n[mcp]\nstartup_grace = \"200ms\"\n\n"+
		// The rein binary lives in the test's build directory under /tmp,
		// which the sandbox's empty /tmp hides: run the server as the
		// user's own, outside the sandbox (its files are outside the
		// workspace).
		"[mcp_servers.late]\ncommand = \"sh\"\nargs = [\"-c\", %q]\nstartup_timeout = \"20s\"\nsandbox = false\n",
		"sleep 1; exec "+bin+" mcp serve --tools read_file"))
	// The first answer is held back until the server is surely up.
	m := newFirstRequestModel(t, 3*time.Second, toolBody("c1", "read_file", `{"path":"missing.txt"}`), textBody("done"))
	p := e.start(t, "run", "--output-format", "stream-json", "-e", m.URL, "read missing.txt")
	p.stdin.Close()
	if code := p.wait(t, 40*time.Second); code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, p.stdout, p.stderr)
	}
	reqs := m.requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	if strings.Contains(reqs[0], "late__read_file") {
		t.Errorf("the first request offers the late server's tool")
	}
	if !strings.Contains(reqs[1], `"late__read_file"`) {
		t.Errorf("the second request does not offer the late server's tool:\n%.2000s", reqs[1])
	}
	var notes []string
	for _, l := range lines(p.stdout.String()) {
		if strings.Contains(l, `"type":"mcp.connected"`) {
			notes = append(notes, l)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `"server":"late"`) || !strings.Contains(notes[0], `"late__read_file"`) || !strings.Contains(notes[0], `"session_id":"`) {
		t.Errorf("mcp.connected lines: %q\nstdout: %s", notes, p.stdout)
	}
	if strings.Contains(p.stderr.String(), "late") {
		t.Errorf("a server that connected was reported as a problem:\n%s", p.stderr)
	}
}

// TestStartupGraceConfigErrors: a bad [mcp] table fails the run with one
// line naming the key and the fix.
func TestStartupGraceConfigErrors(t *testing.T) {
	for _, tc := range []struct{ table, want string }{
		{"startup_grace = \"soon\"\n", `mcp.startup_grace: "soon" is not a duration`},
		{"startup_grace = \"-1s\"\n", `mcp.startup_grace: "-1s" is not a duration`},
		{"grace = \"1s\"\n", `unknown key "mcp.grace"`},
	} {
		e := newEnv(t)
		e.writeUserConfig(t, hungServerConfig("")+"\n[mcp]\n"+tc.table)
		res := e.run(t, "run", "-e", "http://127.0.0.1:1", "hi")
		if res.code == 0 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tc.table, res.code, res.stderr, tc.want)
		}
	}
}
