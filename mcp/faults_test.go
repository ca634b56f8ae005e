package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinharness/rein/tool"
)

// problems collects reported problems.
type problems struct {
	mu   sync.Mutex
	list []Problem
}

func (p *problems) add(pr Problem) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, pr)
}

func (p *problems) all() []Problem {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.list)
}

// newManager builds a Manager for the configs and closes it at cleanup.
func newManager(t testing.TB, cfg Config) (*Manager, *problems) {
	t.Helper()
	var pr problems
	if cfg.OnProblem == nil {
		cfg.OnProblem = pr.add
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, &pr
}

// toolByName finds a tool by its exposed name.
func toolByName(t testing.TB, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Spec().Name == name {
			return tl
		}
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Spec().Name)
	}
	t.Fatalf("no tool %q among %v", name, names)
	return nil
}

func call(t testing.TB, ctx context.Context, tl tool.Tool, args string) *tool.Result {
	t.Helper()
	return tool.Invoke(ctx, tl, json.RawMessage(args), tool.InvokeOptions{Timeout: 20 * time.Second})
}

// TestSilentDiscoverFallsBack: a legacy server that never answers
// server/discover is probed for at most the probe bound, then spoken to
// with initialize, and its tools are listed within the default bound.
func TestSilentDiscoverFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name  string
		probe time.Duration
		limit time.Duration
	}{
		{"default probe", 0, 5 * time.Second},
		{"configured probe", 500 * time.Millisecond, 2500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, log := fixture(t, "silent", map[string]string{"FIXTURE_SILENT_DISCOVER": "1"})
			sc.ProbeTimeout = tc.probe
			m, pr := newManager(t, Config{Servers: []ServerConfig{sc}})
			ctx := testCtx(t, 30*time.Second)
			start := time.Now()
			tools, err := m.Tools(ctx)
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) != 9 {
				t.Errorf("got %d tools, want the fixture's 9", len(tools))
			}
			if elapsed > tc.limit {
				t.Errorf("listing took %v, want under %v", elapsed, tc.limit)
			}
			st := m.Status(ctx)[0]
			if st.Era != Protocol251125 || st.State != StateConnected {
				t.Errorf("status = %+v, want connected in the 2025-11-25 era", st)
			}
			got := fixtureLog(t, log)
			// The cancellation is sent asynchronously and may follow initialize.
			if len(got) < 3 || got[0] != "server/discover" || !slices.Contains(got, "initialize") || !slices.Contains(got, "notifications/cancelled#1") {
				t.Errorf("messages = %v, want discover, then initialize and the probe's cancellation", got)
			}
			if p := pr.all(); len(p) != 0 {
				t.Errorf("problems = %v, want none", p)
			}
			t.Logf("tools listed after %v", elapsed)

			// The era is remembered: a restart skips the probe.
			res := call(t, ctx, toolByName(t, tools, "silent__crash"), `{}`)
			if !res.IsError {
				t.Fatalf("crash result = %+v", res)
			}
			if res := call(t, ctx, toolByName(t, tools, "silent__echo"), `{"text":"again"}`); res.IsError || res.Content != "echo: again" {
				t.Errorf("after restart: %+v", res)
			}
			got = fixtureLog(t, log)
			if n := strings.Count(strings.Join(got, " "), "server/discover"); n != 1 {
				t.Errorf("server/discover sent %d times, want once (the era is remembered): %v", n, got)
			}
		})
	}
}

// TestCrashMidCall: the call that sees a crash fails with the exit status
// and stderr and is not replayed; the next call restarts the server.
func TestCrashMidCall(t *testing.T) {
	sc, log := fixture(t, "crashy", nil)
	m, pr := newManager(t, Config{Servers: []ServerConfig{sc}})
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	who := toolByName(t, tools, "crashy__whoami")
	before := call(t, ctx, who, `{}`).Content

	res := call(t, ctx, toolByName(t, tools, "crashy__crash"), `{}`)
	if !res.IsError {
		t.Fatalf("crash call = %+v, want an error result", res)
	}
	for _, want := range []string{`mcp server "crashy"`, "exited with status 3", "simulated crash in the crash tool", "not retried", "restarts the server"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("crash result %q lacks %q", res.Content, want)
		}
	}
	after := call(t, ctx, who, `{}`)
	if after.IsError || after.Content == before || !strings.HasSuffix(after.Content, "call 1") {
		t.Errorf("after the crash: %+v (before: %q), want a fresh process answering", after, before)
	}
	if n := strings.Count(strings.Join(fixtureLog(t, log), " "), `tools/call`); n != 3 {
		t.Errorf("tools/call sent %d times, want 3 (the crashed call is never replayed)", n)
	}
	// The crash is reported once, in the background.
	deadline := time.Now().Add(5 * time.Second)
	for len(pr.all()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if p := pr.all(); len(p) != 1 || !strings.Contains(p[0].Err.Error(), "exited with status 3") {
		t.Errorf("problems = %v, want the crash once", p)
	}
}

// TestGarbageOnStdout: a server that writes garbage fails clearly and
// fast, at startup and mid-call.
func TestGarbageOnStdout(t *testing.T) {
	t.Run("startup", func(t *testing.T) {
		sc, _ := fixture(t, "junk", map[string]string{"FIXTURE_GARBAGE": "1"})
		sc.Required = true
		sc.StartupTimeout = 20 * time.Second
		m, pr := newManager(t, Config{Servers: []ServerConfig{sc}})
		start := time.Now()
		_, err := m.Tools(testCtx(t, 30*time.Second))
		if err == nil || !errors.Is(err, ErrRequiredServer) {
			t.Fatalf("err = %v, want ErrRequiredServer", err)
		}
		for _, want := range []string{"not JSON-RPC to stdout", `first "this is not JSON-RPC at all"`, "logs to stderr", "about to print garbage"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %v: garbage must fail fast, not at the startup timeout", d)
		}
		if p := pr.all(); len(p) != 1 {
			t.Errorf("problems = %v, want exactly one", p)
		}
	})
	t.Run("mid-call", func(t *testing.T) {
		sc, _ := fixture(t, "junk", nil)
		m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
		ctx := testCtx(t, 30*time.Second)
		tools, err := m.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res := call(t, ctx, toolByName(t, tools, "junk__garbage"), `{}`)
		if !res.IsError || !strings.Contains(res.Content, "not JSON-RPC") {
			t.Errorf("result = %+v, want a clear garbage error", res)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v, want a fast failure", d)
		}
		if res := call(t, ctx, toolByName(t, tools, "junk__echo"), `{"text":"ok"}`); res.IsError {
			t.Errorf("next call after restart: %+v", res)
		}
	})
	t.Run("banner tolerated", func(t *testing.T) {
		sc, _ := fixture(t, "chatty", map[string]string{"FIXTURE_BANNER": "1"})
		m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
		tools, err := m.Tools(testCtx(t, 30*time.Second))
		if err != nil || len(tools) == 0 {
			t.Errorf("tools = %d, err = %v; a banner line must not break the server", len(tools), err)
		}
	})
}

// TestLargeResult: a 20 MB result is received, capped for the model, and
// costs bounded memory; one over the message limit fails that call only.
func TestLargeResult(t *testing.T) {
	sc, _ := fixture(t, "big", nil)
	m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
	ctx := testCtx(t, 120*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	big := toolByName(t, tools, "big__big")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// Generous: under -race, decoding 20 MB of JSON takes a while.
	res := tool.Invoke(ctx, big, json.RawMessage(`{"bytes":20000000}`), tool.InvokeOptions{Timeout: 50 * time.Second})
	runtime.ReadMemStats(&after)
	if res.IsError || !res.Truncated || len(res.Content) > tool.DefaultMaxResultBytes+200 {
		t.Fatalf("result: error=%v truncated=%v len=%d (%.200q), want a capped success", res.IsError, res.Truncated, len(res.Content), res.Content)
	}
	if !strings.Contains(res.Content, "[truncated: 20000000 bytes total") {
		t.Errorf("no truncation marker in %q…", res.Content[len(res.Content)-300:])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 400<<20 {
		t.Errorf("a 20 MB result allocated %d MiB", alloc>>20)
	}

	small, _ := fixture(t, "limited", nil)
	m2, _ := newManager(t, Config{Servers: []ServerConfig{small}, MaxMessageBytes: 1 << 20})
	tools2, err := m2.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res = call(t, ctx, toolByName(t, tools2, "limited__big"), `{"bytes":3000000}`)
	if !res.IsError || !strings.Contains(res.Content, "more than rein's limit of 1.0 MiB") {
		t.Errorf("over-limit result = %.300q, want a clear limit error", res.Content)
	}
	if res := call(t, ctx, toolByName(t, tools2, "limited__echo"), `{"text":"still here"}`); res.IsError || res.Content != "echo: still here" {
		t.Errorf("the connection did not survive: %+v", res)
	}
}

// TestCancelSendsNotification: cancelling a call returns at once and tells
// a stdio server with notifications/cancelled.
func TestCancelSendsNotification(t *testing.T) {
	sc, log := fixture(t, "slowpoke", nil)
	m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err = toolByName(t, tools, "slowpoke__slow").Call(cctx, json.RawMessage(`{}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	re := regexp.MustCompile(`^notifications/cancelled#\d+$`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		msgs := fixtureLog(t, log)
		if slices.ContainsFunc(msgs, re.MatchString) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no notifications/cancelled reached the server: %v", msgs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The session is still usable.
	if res := call(t, ctx, toolByName(t, tools, "slowpoke__echo"), `{"text":"x"}`); res.IsError {
		t.Errorf("after cancel: %+v", res)
	}
}

// TestProgress: progress notifications reach OnProgress with the call's
// idempotency key and call id.
func TestProgress(t *testing.T) {
	sc, log := fixture(t, "prog", nil)
	var (
		mu  sync.Mutex
		got []Progress
	)
	m, _ := newManager(t, Config{Servers: []ServerConfig{sc}, OnProgress: func(_ context.Context, p Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}})
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, tool.WithCallID(tool.WithIdempotencyKey(ctx, "key-1"), "call-1"), toolByName(t, tools, "prog__progress"), `{}`)
	if res.IsError {
		t.Fatal(res.Content)
	}
	time.Sleep(progressGrace + 100*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	want := []Progress{
		{Server: "prog", Tool: "prog__progress", IdempotencyKey: "key-1", CallID: "call-1", Progress: 1, Total: 2, Message: "step 1"},
		{Server: "prog", Tool: "prog__progress", IdempotencyKey: "key-1", CallID: "call-1", Progress: 2, Total: 2, Message: "step 2"},
	}
	if !slices.Equal(want, got) {
		t.Errorf("progress = %+v\nwant %+v", got, want)
	}
	if !strings.Contains(readFile(t, log), `"`+MetaIdempotencyKey+`":"key-1"`) {
		t.Error("the call did not carry its idempotency key in _meta")
	}
}

// answering is an Interaction that accepts elicitations and answers
// sampling with fixed text.
type answering struct{}

func (answering) Elicit(_ context.Context, e *Elicitation) (*ElicitationResponse, error) {
	if e.Server != "ask" || e.Message != "Continue?" || !strings.Contains(string(e.Schema), `"ok"`) {
		return nil, errors.New("unexpected elicitation")
	}
	return &ElicitationResponse{Action: "accept", Content: map[string]any{"ok": true}}, nil
}

func (answering) Sample(_ context.Context, r *SamplingRequest) (*SamplingResponse, error) {
	if len(r.Messages) != 1 || r.Messages[0].Text != "say hi" {
		return nil, errors.New("unexpected sampling request")
	}
	return &SamplingResponse{Model: "m", Text: "hi"}, nil
}

// TestInteraction: elicitation and sampling requests reach the
// Interaction; Decline declines them.
func TestInteraction(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         Interaction
		elicit     string
		sample     string
		advertised bool
	}{
		{"decline", Decline{}, `"action":"decline"`, `"code":-1`, true},
		{"answer", answering{}, `"content":{"ok":true}`, `"text":"hi"`, true},
		{"none", nil, `"error"`, `"error"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, log := fixture(t, "ask", nil)
			m, _ := newManager(t, Config{Servers: []ServerConfig{sc}, Interaction: tc.in})
			ctx := testCtx(t, 30*time.Second)
			tools, err := m.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res := call(t, ctx, toolByName(t, tools, "ask__elicit"), `{}`); !strings.Contains(res.Content, tc.elicit) {
				t.Errorf("elicit → %q, want %q", res.Content, tc.elicit)
			}
			if res := call(t, ctx, toolByName(t, tools, "ask__sample"), `{}`); !strings.Contains(res.Content, tc.sample) {
				t.Errorf("sample → %q, want %q", res.Content, tc.sample)
			}
			caps := initializeCapabilities(t, log)
			if _, ok := caps["elicitation"]; ok != tc.advertised {
				t.Errorf("elicitation advertised = %v, want %v (%v)", ok, tc.advertised, caps)
			}
		})
	}
}

// initializeCapabilities returns the capabilities rein sent in initialize.
func initializeCapabilities(t testing.TB, log string) map[string]json.RawMessage {
	t.Helper()
	data := readFile(t, log)
	for _, line := range strings.Split(data, "\n") {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method == "initialize" {
			return m.Params.Capabilities
		}
	}
	t.Fatal("no initialize in the log")
	return nil
}

// TestCapabilities: no roots unless configured; the 2026-07-28 tasks
// extension declared only where that era's requests carry capabilities
// (the server/discover probe), never in an older era's initialize, and
// nowhere with tasks = "never".
func TestCapabilities(t *testing.T) {
	sc, log := fixture(t, "caps", nil)
	m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
	if _, err := m.Tools(testCtx(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	caps := initializeCapabilities(t, log)
	if len(caps) != 0 {
		t.Errorf("capabilities = %v, want none (no roots, no tasks, no elicitation without an Interaction)", caps)
	}
	probe := ""
	for _, line := range strings.Split(readFile(t, log), "\n") {
		if strings.Contains(line, `"method":"`+methodDiscover+`"`) {
			probe = line
		}
	}
	if !strings.Contains(probe, `"extensions":{"`+TasksExtension+`":{}}`) {
		t.Errorf("the discover probe %q does not declare the tasks extension", probe)
	}
	sc2, log2 := fixture(t, "roots", nil)
	sc2.Tasks = TasksNever
	m2, _ := newManager(t, Config{Servers: []ServerConfig{sc2}, Roots: []string{"/work/project"}})
	if _, err := m2.Tools(testCtx(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	caps = initializeCapabilities(t, log2)
	if _, ok := caps["roots"]; !ok || len(caps) != 1 {
		t.Errorf("capabilities = %v, want roots only", caps)
	}
	if strings.Contains(readFile(t, log2), "tasks") {
		t.Error(`rein mentioned tasks to a server with tasks = "never"`)
	}
}

// TestStartupTimeout: a server that never answers delays Tools by at most
// its startup timeout, is reported once with its stderr, and is left out.
func TestStartupTimeout(t *testing.T) {
	hung, _ := fixture(t, "hung", map[string]string{"FIXTURE_HANG": "1"})
	hung.StartupTimeout = 1500 * time.Millisecond
	hung.ProbeTimeout = 500 * time.Millisecond
	ok, _ := fixture(t, "ok", nil)
	m, pr := newManager(t, Config{Servers: []ServerConfig{hung, ok}})
	ctx := testCtx(t, 30*time.Second)
	start := time.Now()
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > hung.StartupTimeout+time.Second {
		t.Errorf("Tools took %v with a 1.5s startup timeout", d)
	}
	for _, tl := range tools {
		if strings.HasPrefix(tl.Spec().Name, "hung__") {
			t.Errorf("tool %s of the hung server offered", tl.Spec().Name)
		}
	}
	if len(tools) != 9 {
		t.Errorf("got %d tools, want the healthy server's 9", len(tools))
	}
	if _, err := m.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	p := pr.all()
	if len(p) != 1 || p[0].Server != "hung" || !strings.Contains(p[0].Err.Error(), "within 1.5s") || !strings.Contains(p[0].Err.Error(), "fixture: starting") {
		t.Errorf("problems = %v, want one for hung naming the timeout and its stderr", p)
	}
}

// TestRequiredServerMissing: a required server whose command does not
// exist fails Tools with a clear error.
func TestRequiredServerMissing(t *testing.T) {
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "ghost", Command: "no-such-mcp-server-binary", Required: true}}})
	_, err := m.Tools(testCtx(t, 30*time.Second))
	if !errors.Is(err, ErrRequiredServer) || !strings.Contains(err.Error(), `command "no-such-mcp-server-binary" was not found in PATH`) {
		t.Errorf("err = %v", err)
	}
}

// TestSecretsNotInErrors: env values a server echoes to stderr are
// scrubbed from the errors rein reports.
func TestSecretsNotInErrors(t *testing.T) {
	const secret = "sk-test-0123456789abcdef"
	exe := "/bin/sh"
	sc := ServerConfig{Name: "leaky", Command: exe, Args: []string{"-c", `echo "token is $API_TOKEN" >&2; exit 1`}, Env: Secrets{"API_TOKEN": secret}}
	m, pr := newManager(t, Config{Servers: []ServerConfig{sc}})
	if _, err := m.Tools(testCtx(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	p := pr.all()
	if len(p) != 1 {
		t.Fatalf("problems = %v", p)
	}
	if msg := p[0].Err.Error(); strings.Contains(msg, secret) || !strings.Contains(msg, "token is [redacted]") {
		t.Errorf("problem = %q, want the secret scrubbed", msg)
	}
}

// TestToolTimeout: a server's tool_timeout bounds its calls (the tool
// reports it to tool.Invoke), and the server is told to stop.
func TestToolTimeout(t *testing.T) {
	sc, log := fixture(t, "slowpoke", nil)
	sc.ToolTimeout = 300 * time.Millisecond
	m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := tool.Invoke(ctx, toolByName(t, tools, "slowpoke__slow"), json.RawMessage(`{}`), tool.InvokeOptions{Timeout: time.Minute})
	if d := time.Since(start); !res.IsError || !strings.Contains(res.Content, "timed out after 300ms") || d > 5*time.Second {
		t.Errorf("after %v: %+v, want a timeout at 300ms", d, res)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(strings.Join(fixtureLog(t, log), " "), "notifications/cancelled") {
		if time.Now().After(deadline) {
			t.Fatal("the server was not told the call was cancelled")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSlowModernServer: a modern stdio server that starts slower than the
// probe bound binds its connection to the era of the probe and refuses the
// initialize fallback; rein then starts it afresh and probes without a
// bound, ending up in the 2026-07-28 era.
func TestSlowModernServer(t *testing.T) {
	sc, log := fixture(t, "slow", map[string]string{"FIXTURE_MODERN": "1", "FIXTURE_SLOW_START": "800ms"})
	sc.ProbeTimeout = 300 * time.Millisecond
	m, pr := newManager(t, Config{Servers: []ServerConfig{sc}})
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil || len(tools) != 9 {
		t.Fatalf("tools = %d, err = %v; problems %v", len(tools), err, pr.all())
	}
	if st := m.Status(ctx)[0]; st.Era != ProtocolModern {
		t.Errorf("era = %q, want %s", st.Era, ProtocolModern)
	}
	wantContent(t, call(t, ctx, toolByName(t, tools, "slow__echo"), `{"text":"modern"}`), "echo: modern")
	if got := strings.Count(strings.Join(fixtureLog(t, log), " "), "server/discover"); got != 2 {
		t.Errorf("server/discover sent %d times, want 2 (bounded probe, then a fresh unbounded one)", got)
	}
}

// TestClosedManager: a closed Manager refuses work at once.
func TestClosedManager(t *testing.T) {
	sc, _ := fixture(t, "gone", nil)
	m, err := New(Config{Servers: []ServerConfig{sc}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := m.Tools(ctx); !errors.Is(err, errClosed) {
		t.Errorf("Tools after Close: %v", err)
	}
	if res := call(t, ctx, tools[0], `{}`); !res.IsError || !strings.Contains(res.Content, "closed") {
		t.Errorf("call after Close: %+v", res)
	}
	never, err := New(Config{Servers: []ServerConfig{sc}})
	if err != nil {
		t.Fatal(err)
	}
	never.Close()
	if _, err := never.Tools(ctx); !errors.Is(err, errClosed) {
		t.Errorf("Tools on a Manager closed before starting: %v", err)
	}
}
