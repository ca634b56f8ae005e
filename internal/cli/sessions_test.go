package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/telemetry"
)

// stEnv is a hermetic home, workspace and environment for the session
// commands, run in-process.
type stEnv struct {
	home, ws string
	vars     map[string]string
}

func newSTEnv(t *testing.T) *stEnv {
	t.Helper()
	root := t.TempDir()
	e := &stEnv{home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws"), vars: map[string]string{}}
	e.vars["HOME"] = e.home
	for _, d := range []string{e.home, e.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *stEnv) stateDir() string { return filepath.Join(e.home, ".local", "state", "rein") }

// stBuffer is a bytes.Buffer safe for concurrent writes.
type stBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *stBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *stBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (e *stEnv) app() (*App, *stBuffer, *stBuffer) {
	out, errb := &stBuffer{}, &stBuffer{}
	a := &App{
		Stdout: out, Stderr: errb,
		Getenv: func(k string) string { return e.vars[k] },
		Getwd:  func() (string, error) { return e.ws, nil },
	}
	a.defaults()
	return a, out, errb
}

// exec runs one of the commands this file's code adds (sessions, replay)
// under a root command, mapping errors to exit codes as App.Run does.
func (e *stEnv) exec(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	a, out, errb := e.app()
	root := &cobra.Command{Use: "rein", SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(NewSessionsCommand(a), NewReplayCommand(a))
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(errb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := root.ExecuteContext(ctx)
	var ee *exitError
	var ue *usageError
	switch {
	case err == nil:
		code = ExitOK
	case errors.As(err, &ee):
		code = ee.code
	case errors.As(err, &ue):
		errb.Write([]byte("rein: " + ue.msg + "\n"))
		code = ExitUsage
	default:
		errb.Write([]byte("rein: " + err.Error() + "\n"))
		code = ExitUsage
	}
	return code, out.String(), errb.String()
}

// config loads the configuration as run would, with flag settings.
func (e *stEnv) config(t *testing.T, flags config.Settings) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.LoadOptions{Workspace: e.ws, Flags: flags, Getenv: func(k string) string { return e.vars[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// record runs one headless run the way `rein run` wires a session: the
// sessionRun as the agent's journal and hook, its conversation, and the
// run's input from sr.input.
func (e *stEnv) record(t *testing.T, sf sessionFlags, prompt string, p model.Provider, cfg *config.Config) (string, *agent.Outcome, string) {
	t.Helper()
	a, _, errb := e.app()
	ctx := context.Background()
	sr, err := a.openSession(ctx, &sf, "", cfg, e.ws)
	if err != nil {
		t.Fatalf("openSession: %v", err)
	}
	defer sr.close()
	input, err := sr.input(prompt)
	if err != nil {
		t.Fatalf("input: %v", err)
	}
	h, err := a.newHarness(cfg, harnessOptions{workspace: e.ws, flags: stFlags()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	ag, err := agent.New(agent.Config{
		Provider: p, Tools: h.tools, Policy: h.engine, Approver: h.approver,
		Journal: sr, Hooks: []agent.Hook{sr}, ContextWindow: 100000,
	})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := ag.RunToEnd(ctx, sr.Conversation(), input)
	return sr.ID(), out, errb.String()
}

// stFlags are run's common flags with their defaults.
func stFlags() *commonFlags {
	var cf commonFlags
	cf.register(pflag.NewFlagSet("test", pflag.ContinueOnError))
	return &cf
}

func readCall(id, path string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path})
	return model.ToolCall{ID: id, Name: "read_file", Args: args}
}

func TestSessionsListShowRm(t *testing.T) {
	e := newSTEnv(t)
	os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("remember the milk\n"), 0o644)
	cfg := e.config(t, config.Settings{})
	p := modeltest.NewScripted(modeltest.ToolCalls(readCall("c1", "notes.txt")), modeltest.Text("You should remember the milk."))
	id, out, _ := e.record(t, sessionFlags{}, "what do my notes say?", p, cfg)
	if out == nil || out.Kind != agent.Complete {
		t.Fatalf("outcome %+v", out)
	}

	code, stdout, stderr := e.exec(t, "sessions", "list")
	if code != 0 || !strings.Contains(stdout, id) || !strings.Contains(stdout, e.ws) || !strings.Contains(stdout, "what do my notes say?") || !strings.Contains(stdout, "complete") {
		t.Errorf("sessions list: %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = e.exec(t, "sessions", "list", "--json")
	var info session.Info
	if code != 0 || json.Unmarshal([]byte(strings.TrimSpace(stdout)), &info) != nil || info.ID != id || info.Workspace != e.ws {
		t.Errorf("sessions list --json: %d %q", code, stdout)
	}
	code, stdout, _ = e.exec(t, "sessions", "list", "-C", t.TempDir())
	if code != 0 || strings.Contains(stdout, id) {
		t.Errorf("list of another workspace shows the session: %q", stdout)
	}

	code, stdout, stderr = e.exec(t, "sessions", "show", id[:6])
	for _, want := range []string{"session   " + id, "workspace " + e.ws, "> what do my notes say?", "→ read_file", "remember the milk", "You should remember the milk.", "[run complete after 2 model calls, 1 tool call]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("sessions show lacks %q (exit %d):\n%s%s", want, code, stdout, stderr)
		}
	}
	code, stdout, _ = e.exec(t, "sessions", "show", "--json", id)
	if n := len(strings.Split(strings.TrimSpace(stdout), "\n")); code != 0 || n < 8 {
		t.Errorf("show --json: exit %d, %d lines", code, n)
	}

	logPath := telemetry.LogPath(e.stateDir(), id)
	if _, err := os.Stat(logPath); err != nil {
		t.Fatalf("no event log: %v", err)
	}
	code, _, stderr = e.exec(t, "sessions", "rm", id)
	if code != 0 || !strings.Contains(stderr, "deleted session "+id) {
		t.Errorf("rm: %d %s", code, stderr)
	}
	if _, err := os.Stat(logPath); !os.IsNotExist(err) {
		t.Error("rm left the event log")
	}
	code, _, stderr = e.exec(t, "sessions", "show", id)
	if code != ExitFailed || !strings.Contains(stderr, "no session") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("show after rm: %d %q", code, stderr)
	}
}

func TestSessionsCommandsWithoutAStore(t *testing.T) {
	e := newSTEnv(t)
	code, stdout, stderr := e.exec(t, "sessions", "list")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "no sessions yet") {
		t.Errorf("list without a store: %d %q %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.stateDir(), session.DatabaseFile)); !os.IsNotExist(err) {
		t.Error("listing created a database")
	}
	for _, args := range [][]string{{"sessions", "show", "x"}, {"sessions", "rm", "x"}, {"replay", "x"}} {
		if code, _, stderr := e.exec(t, args...); code != ExitFailed || !strings.Contains(stderr, "no session") {
			t.Errorf("%v: %d %q", args, code, stderr)
		}
	}
	for _, args := range [][]string{{"sessions", "show"}, {"sessions", "rm"}, {"replay"}, {"sessions", "list", "extra"}} {
		if code, _, _ := e.exec(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestContinueResumeAndFork(t *testing.T) {
	e := newSTEnv(t)
	cfg := e.config(t, config.Settings{})
	first, _, _ := e.record(t, sessionFlags{}, "first task", modeltest.NewScripted(modeltest.Text("one")), cfg)

	// --continue picks it up; the model sees the whole history.
	p := modeltest.NewScripted(modeltest.Text("two"))
	id, out, _ := e.record(t, sessionFlags{cont: true}, "second task", p, cfg)
	if id != first || out.Kind != agent.Complete {
		t.Fatalf("--continue ran session %s (%+v), want %s", id, out, first)
	}
	msgs := p.Requests()[0].Messages
	if len(msgs) != 3 || msgs[0].Text() != "first task" || msgs[1].Text() != "one" || msgs[2].Text() != "second task" {
		t.Errorf("continued request history: %+v", msgs)
	}

	// --session ID --fork continues a copy.
	p = modeltest.NewScripted(modeltest.Text("three"))
	forked, _, _ := e.record(t, sessionFlags{id: first[:5], fork: true}, "third task", p, cfg)
	if forked == first {
		t.Fatal("--fork ran the original session")
	}
	code, stdout, _ := e.exec(t, "sessions", "show", forked)
	if code != 0 || !strings.Contains(stdout, "forked    from "+first) || !strings.Contains(stdout, "> third task") {
		t.Errorf("forked session:\n%s", stdout)
	}
	code, stdout, _ = e.exec(t, "sessions", "show", first)
	if code != 0 || strings.Contains(stdout, "third task") {
		t.Errorf("the fork wrote into the original:\n%s", stdout)
	}

	// A finished session needs a prompt to continue.
	a, _, _ := e.app()
	sr, err := a.openSession(context.Background(), &sessionFlags{id: first}, "", cfg, e.ws)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sr.input("")
	sr.close()
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "give a PROMPT") {
		t.Errorf("input(\"\") on a finished session: %v; want a usage error", err)
	}
}

func TestSessionFlagErrors(t *testing.T) {
	e := newSTEnv(t)
	cfg := e.config(t, config.Settings{})
	a, _, _ := e.app()
	ctx := context.Background()
	for _, sf := range []sessionFlags{{id: "x", cont: true}, {fork: true}} {
		_, err := a.openSession(ctx, &sf, "", cfg, e.ws)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("%+v: %v, want a usage error", sf, err)
		}
	}
	_, err := a.openSession(ctx, &sessionFlags{cont: true}, "", cfg, e.ws)
	if !errors.Is(err, session.ErrNotFound) || !strings.Contains(err.Error(), e.ws) {
		t.Errorf("--continue with no session: %v", err)
	}
	_, err = a.openSession(ctx, &sessionFlags{id: "nope"}, "", cfg, e.ws)
	if !errors.Is(err, session.ErrNotFound) {
		t.Errorf("--session nope: %v", err)
	}
}

// TestCorruptStoreIsRefusedUntouched: the sessions commands and a run
// refuse a damaged database with one line naming it and the fix, and the
// file stays as it was.
func TestCorruptStoreIsRefusedUntouched(t *testing.T) {
	e := newSTEnv(t)
	path := filepath.Join(e.stateDir(), session.DatabaseFile)
	os.MkdirAll(filepath.Dir(path), 0o700)
	garbage := []byte("this is not a database, it is a grocery list\n")
	os.WriteFile(path, garbage, 0o600)
	for _, args := range [][]string{{"sessions", "list"}, {"sessions", "show", "x"}, {"replay", "x"}} {
		code, _, stderr := e.exec(t, args...)
		if code != ExitFailed || !strings.Contains(stderr, path) || !strings.Contains(stderr, "move it aside") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	a, _, _ := e.app()
	if _, err := a.openSession(context.Background(), &sessionFlags{}, "", e.config(t, config.Settings{}), e.ws); !errors.Is(err, session.ErrCorrupt) {
		t.Errorf("openSession on a corrupt store: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, garbage) {
		t.Error("the corrupt file was modified")
	}
}

func TestReplayCommand(t *testing.T) {
	e := newSTEnv(t)
	notes := filepath.Join(e.ws, "notes.txt")
	os.WriteFile(notes, []byte("alpha\nbeta\n"), 0o644)
	cfg := e.config(t, config.Settings{})
	p := modeltest.NewScripted(
		modeltest.ToolCalls(readCall("c1", "notes.txt")),
		modeltest.ToolCalls(readCall("c2", "missing.txt")),
		modeltest.Text("done"),
	)
	id, out, _ := e.record(t, sessionFlags{}, "read", p, cfg)
	if out.Kind != agent.Complete {
		t.Fatalf("outcome %+v", out)
	}
	code, stdout, stderr := e.exec(t, "replay", id)
	if code != 0 || !strings.Contains(stdout, "2 tool results identical") {
		t.Fatalf("identical replay: exit %d\n%s%s", code, stdout, stderr)
	}
	os.WriteFile(notes, []byte("alpha\ngamma\n"), 0o644)
	code, stdout, stderr = e.exec(t, "replay", id)
	if code != ExitFailed || !strings.Contains(stdout, "call 1 (read_file, id c1) diverged") || !strings.Contains(stdout, "beta") || !strings.Contains(stdout, "gamma") {
		t.Errorf("diverging replay: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = e.exec(t, "replay", "--ignore", "beta|gamma", id)
	if code != 0 {
		t.Errorf("replay with --ignore: exit %d\n%s", code, stdout)
	}
	if got, _ := os.ReadFile(notes); string(got) != "alpha\ngamma\n" {
		t.Error("replay changed the workspace")
	}
	if code, _, _ := e.exec(t, "replay", "--ignore", "(", id); code != ExitUsage {
		t.Errorf("bad --ignore: exit %d, want 2", code)
	}
}

// TestResumeReportsInterruptedCalls resumes a session whose process died
// while a tool ran: the user is told, and the run continues with no new
// prompt.
func TestResumeReportsInterruptedCalls(t *testing.T) {
	e := newSTEnv(t)
	cfg := e.config(t, config.Settings{})
	ctx := context.Background()
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(e.stateDir(), session.DatabaseFile)})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := store.Create(ctx, session.Info{Workspace: "/elsewhere"})
	j, _ := store.Journal(ctx, info.ID)
	c := readCall("c1", "notes.txt")
	user := model.UserText("read")
	asst := model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(c)}}
	for _, ev := range []agent.Event{
		{Type: agent.EventSessionStarted},
		{Type: agent.EventMessage, Message: &user},
		{Type: agent.EventMessage, Message: &asst},
		{Type: agent.EventToolCall, ToolCall: &c},
		{Type: agent.EventToolDecision, Decision: &agent.Decision{CallID: "c1", Action: "allow"}},
	} {
		ev.RunID = info.ID
		if err := j.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	store.Close()

	a, _, errb := e.app()
	sr, err := a.openSession(ctx, &sessionFlags{id: info.ID}, "", cfg, e.ws)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.close()
	stderr := errb.String()
	for _, want := range []string{"was stopped while 1 tool call ran", "read_file (c1)", "was recorded in /elsewhere"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if in, err := sr.input(""); err != nil || in != "" {
		t.Errorf("input(\"\") = %q, %v; want to continue with no new message", in, err)
	}
	msgs := sr.Conversation().Messages()
	if last := msgs[len(msgs)-1]; last.Role != model.RoleTool || last.Parts[0].ToolResult.Content != session.InterruptedRunning {
		t.Errorf("the conversation ends with %+v; want the interrupted result", last)
	}
}
