package approve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/policy"
)

func TestForTerminal(t *testing.T) {
	tests := []struct {
		tty  bool
		mode string
		want string
	}{
		{true, "ask", "*approve.ConsoleApprover"},
		{true, "", "*approve.ConsoleApprover"},
		{false, "ask", "policy.neverApprover"},
		{true, "never", "policy.neverApprover"},
		{false, "auto", "policy.autoApprover"},
	}
	for _, tt := range tests {
		a, err := ForTerminal(tt.tty, tt.mode, ConsoleOptions{})
		if got := fmt.Sprintf("%T", a); err != nil || got != tt.want {
			t.Errorf("ForTerminal(%v, %q) = %s, %v; want %s", tt.tty, tt.mode, got, err, tt.want)
		}
	}
	if _, err := ForTerminal(true, "yes", ConsoleOptions{}); err == nil || !strings.Contains(err.Error(), "use ask, never or auto") {
		t.Errorf("bad mode: %v", err)
	}
}

// consoleFixture is a console approver on scripted input in a real
// temporary workspace.
type consoleFixture struct {
	ws       string
	out      *bytes.Buffer
	approved *policy.MemoryApprovedStore
	console  *ConsoleApprover
	engine   *policy.Engine
}

func newConsoleFixture(t *testing.T, input string) *consoleFixture {
	t.Helper()
	f := &consoleFixture{ws: t.TempDir(), out: &bytes.Buffer{}, approved: policy.NewMemoryApprovedStore()}
	var err error
	f.engine, err = policy.NewEngine(policy.EngineConfig{Workspace: f.ws, Home: testHome})
	if err != nil {
		t.Fatal(err)
	}
	f.console = closeAtEnd(t, Console(strings.NewReader(input), f.out, ConsoleOptions{
		Workspace: f.ws, Approved: f.approved, Decider: f.engine,
		Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) },
	}))
	return f
}

func (f *consoleFixture) approve(t *testing.T, c policy.Call) policy.Decision {
	t.Helper()
	d, err := f.console.Approve(ctx, c, askDecision(t, f.engine, c))
	if err != nil {
		t.Fatalf("Approve: %v", err)
	}
	return d
}

func TestConsoleYesOnce(t *testing.T) {
	f := newConsoleFixture(t, "y\n")
	d := f.approve(t, runCall("go build ./..."))
	if d.Action != policy.Allow || d.Rule != "approver:console" {
		t.Errorf("yes: %+v", d)
	}
	out := f.out.String()
	for _, want := range []string{"rein wants to run run_command", "command: go build ./...", "why: run_command needs approval", "[y]es once, [s]ession, [a]lways for this project, [n]o"} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt %q lacks %q", out, want)
		}
	}
	// Once means once: the next identical call asks again (and the
	// input is exhausted, so it is denied).
	if d := f.approve(t, runCall("go build ./...")); d.Action != policy.Deny || !strings.Contains(d.Reason, "input closed") {
		t.Errorf("second call after yes-once: %+v", d)
	}
}

func TestConsoleSession(t *testing.T) {
	f := newConsoleFixture(t, "s\ns\n")
	if d := f.approve(t, runCall("go build ./... && go vet ./...")); d.Action != policy.Allow || d.Rule != "approver:session" {
		t.Fatalf("session: %+v", d)
	}
	prompts := strings.Count(f.out.String(), "rein wants to run")
	for _, cmd := range []string{"go vet ./...", "go build ./...", "go vet ./... ; go build ./..."} {
		if d := f.approve(t, runCall(cmd)); d.Action != policy.Allow || d.Rule != "approver:session" {
			t.Errorf("%q after session approval: %+v", cmd, d)
		}
	}
	if n := strings.Count(f.out.String(), "rein wants to run"); n != prompts {
		t.Errorf("session-approved calls prompted again (%d prompts)", n)
	}
	// A different command, or the same with other arguments, asks.
	if d := f.approve(t, runCall("go build -race ./...")); d.Rule == "approver:session" && strings.Count(f.out.String(), "rein wants to run") == prompts {
		t.Errorf("a different argv was session-approved without a prompt: %+v", d)
	}
	mcp := policy.Call{Spec: specMCP, Args: mustJSON(map[string]any{"repo": "a"})}
	f2 := newConsoleFixture(t, "s\n")
	f2.approve(t, mcp)
	if d := f2.approve(t, policy.Call{Spec: specMCP, Args: []byte(`{ "repo" : "a" }`)}); d.Rule != "approver:session" {
		t.Errorf("same tool arguments, other spacing: %+v", d)
	}
	if d := f2.approve(t, policy.Call{Spec: specMCP, Args: mustJSON(map[string]any{"repo": "b"})}); d.Action != policy.Deny {
		t.Errorf("other tool arguments were session-approved: %+v", d)
	}
}

func TestConsoleNoWithReason(t *testing.T) {
	f := newConsoleFixture(t, "n\nuse make instead\n")
	d := f.approve(t, runCall("go build ./..."))
	if d.Action != policy.Deny || d.Reason != "run_command was denied by the user: use make instead" {
		t.Errorf("no: %+v", d)
	}
	f = newConsoleFixture(t, "no\n\n")
	if d := f.approve(t, runCall("go build ./...")); d.Action != policy.Deny || d.Reason != "run_command was denied by the user" {
		t.Errorf("no without reason: %+v", d)
	}
}

func TestConsoleReprompts(t *testing.T) {
	f := newConsoleFixture(t, "maybe\n\nYES\n")
	if d := f.approve(t, runCall("go build ./...")); d.Action != policy.Allow {
		t.Errorf("after two bad answers: %+v", d)
	}
	if n := strings.Count(f.out.String(), "Allow? "); n != 3 {
		t.Errorf("%d prompts; want 3", n)
	}
	f = newConsoleFixture(t, strings.Repeat("?\n", maxPromptAttempts+1))
	if d := f.approve(t, runCall("go build ./...")); d.Action != policy.Deny || !strings.Contains(d.Reason, "no valid answer") {
		t.Errorf("after %d bad answers: %+v", maxPromptAttempts, d)
	}
}

func TestConsoleHonoursContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	f := newConsoleFixture(t, "")
	f.console = closeAtEnd(t, Console(pr, f.out, ConsoleOptions{}))
	c := runCall("go build ./...")
	d := askDecision(t, f.engine, c)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var got policy.Decision
	var err error
	go func() {
		got, err = f.console.Approve(cctx, c, d)
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Approve did not return after cancellation")
	}
	if !errors.Is(err, context.Canceled) || got.Action != policy.Deny {
		t.Errorf("cancelled: %+v, %v", got, err)
	}
	// The input typed later is not lost: the next prompt reads it.
	go pw.Write([]byte("y\n"))
	if got, err := f.console.Approve(ctx, c, d); err != nil || got.Action != policy.Allow {
		t.Errorf("after cancellation: %+v, %v", got, err)
	}
}

func TestConsoleAlwaysWritesRuleThatLoadsAndMatches(t *testing.T) {
	f := newConsoleFixture(t, "a\n")
	cfgPath := policy.ProjectConfigPath(f.ws)
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		t.Fatal(err)
	}
	existing := "# my project\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n\n[policy]\npreset = \"editor\"\n[[policy.commands]]\nprefix = [\"git\", \"push\"]\naction = \"deny\""
	if err := os.WriteFile(cfgPath, []byte(existing), 0o640); err != nil {
		t.Fatal(err)
	}
	c := runCall("cd sub && make test \"it's\"")
	d := f.approve(t, c)
	if d.Action != policy.Allow || d.Rule != "approver:always" {
		t.Fatalf("always: %+v\n%s", d, f.out)
	}
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasPrefix(text, existing+"\n") {
		t.Errorf("existing content was changed:\n%s", text)
	}
	wantRule := "[[policy.commands]]\nprefix = [\"make\", \"test\", \"it's\"]\nexact = true\naction = \"allow\"\nmatch = [\"make test \\\"it's\\\"\"]\n"
	if !strings.Contains(text, wantRule) || strings.Contains(text, `"cd"`) {
		t.Errorf("config:\n%s\nwant the exact rule for make only:\n%s", text, wantRule)
	}
	if !strings.Contains(text, "# Approved \"always for this project\" in rein on 2026-03-01.") {
		t.Errorf("no comment above the rule:\n%s", text)
	}
	if !strings.Contains(f.out.String(), "Added to "+cfgPath) || !strings.Contains(f.out.String(), wantRule) {
		t.Errorf("the rule was not shown:\n%s", f.out)
	}
	if st, _ := os.Stat(cfgPath); st.Mode().Perm() != 0o640 {
		t.Errorf("mode changed to %v", st.Mode().Perm())
	}

	// The file loads, the rule is approved, and a new engine allows the
	// call without asking — while the project's deny still holds.
	cfg, err := policy.ParseConfig(data)
	if err != nil {
		t.Fatalf("written config does not load: %v", err)
	}
	e, err := policy.NewEngine(policy.EngineConfig{Workspace: f.ws, Home: testHome, Approved: f.approved,
		Layers: []policy.Layer{{Kind: policy.LayerProject, Source: cfgPath, Config: cfg}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Decide(ctx, c); d.Action != policy.Allow {
		t.Errorf("after always: %v (%s)", d.Action, d.Reason)
	}
	if d := e.Decide(ctx, runCall("make test other")); d.Action != policy.Ask {
		t.Errorf("the rule is exact; other args: %v", d.Action)
	}
	if d := e.Decide(ctx, runCall("git push")); d.Action != policy.Deny {
		t.Errorf("project deny lost: %v", d.Action)
	}
	if len(e.Warnings()) != 0 {
		t.Errorf("warnings: %q", e.Warnings())
	}
	// And the session remembers it without asking again.
	before := f.out.Len()
	if d := f.approve(t, c); d.Action != policy.Allow || f.out.Len() != before {
		t.Errorf("same call after always: %+v, prompted=%v", d, f.out.Len() != before)
	}
}

func TestConsoleAlwaysForTool(t *testing.T) {
	f := newConsoleFixture(t, "always\n")
	c := policy.Call{Spec: specMCP, Args: mustJSON(map[string]any{"repo": "x"})}
	if d := f.approve(t, c); d.Action != policy.Allow {
		t.Fatalf("always: %+v", d)
	}
	cfg, err := os.ReadFile(policy.ProjectConfigPath(f.ws))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "[[policy.tools]]\nname = \"github__list_issues\"\naction = \"allow\"\n") {
		t.Errorf("config:\n%s", cfg)
	}
	if !f.approved.Approved(policy.CanonicalWorkspace(f.ws), policy.ToolRule{Name: "github__list_issues", Action: "allow"}.Fingerprint(f.ws)) {
		t.Error("the tool rule was not recorded as approved")
	}
}

func TestConsoleAlwaysRefusesToBreakConfig(t *testing.T) {
	for name, existing := range map[string]string{
		"inline commands": "[policy]\ncommands = [{prefix = [\"ls\"], action = \"allow\"}]\n",
		"invalid toml":    "[policy\n",
	} {
		f := newConsoleFixture(t, "a\ny\n")
		cfgPath := policy.ProjectConfigPath(f.ws)
		os.MkdirAll(filepath.Dir(cfgPath), 0o755)
		if err := os.WriteFile(cfgPath, []byte(existing), 0o644); err != nil {
			t.Fatal(err)
		}
		d := f.approve(t, runCall("make test"))
		if d.Action != policy.Allow || d.Rule != "approver:console" {
			t.Errorf("%s: after the failed always, y: %+v", name, d)
		}
		if data, _ := os.ReadFile(cfgPath); string(data) != existing {
			t.Errorf("%s: file changed to:\n%s", name, data)
		}
		if !strings.Contains(f.out.String(), "rein could not save the rule") || !strings.Contains(f.out.String(), "by hand") {
			t.Errorf("%s: output:\n%s", name, f.out)
		}
	}
}

func TestConsoleAlwaysNotOfferedForDynamicCommands(t *testing.T) {
	f := newConsoleFixture(t, "a\nn\n\n")
	d := f.approve(t, runCall("$TOOL build"))
	if d.Action != policy.Deny {
		t.Errorf("a on a dynamic command must not allow: %+v", d)
	}
	if strings.Contains(f.out.String(), "[a]lways") {
		t.Errorf("always offered for a dynamic command:\n%s", f.out)
	}
	if _, err := os.Stat(policy.ProjectConfigPath(f.ws)); err == nil {
		t.Error("a rule file was written")
	}
}

func TestConsoleAlwaysOnlyWhereARuleCanLift(t *testing.T) {
	tests := []struct {
		rule string
		want bool
	}{
		{"preset:editor", true},
		{"annotation:destructive", true},
		{"rule:user:ask git push", true},
		{"rule:user:ask tool write_file", false},
		{"rule:user:ask path secrets/** (write)", false},
		{"rule:project:ask git push", false},
		{"analysis:dynamic-command", false},
	}
	for _, tt := range tests {
		if got := AlwaysLifts(policy.Decision{Action: policy.Ask, Rule: tt.rule}); got != tt.want {
			t.Errorf("AlwaysLifts(%q) = %v", tt.rule, got)
		}
	}

	// A user's ask rule for git push is lifted by the exact rule written
	// with [a]lways.
	f := newConsoleFixture(t, "a\n")
	user := policy.Config{Commands: []policy.CommandRule{{Prefix: []string{"git", "push"}, Action: "ask"}}}
	c := runCall("git push origin main")
	d := newEngine(t, policy.PresetFull, &user, nil, nil).Decide(ctx, c)
	if got, err := f.console.Approve(ctx, c, d); err != nil || got.Rule != "approver:always" {
		t.Fatalf("always: %+v, %v", got, err)
	}
	data, err := os.ReadFile(policy.ProjectConfigPath(f.ws))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := policy.ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	e, err := policy.NewEngine(policy.EngineConfig{Workspace: f.ws, Home: testHome, Approved: f.approved, Layers: []policy.Layer{
		{Kind: policy.LayerUser, Source: "user", Config: policy.Config{Preset: "full", Commands: user.Commands}},
		{Kind: policy.LayerProject, Source: "project", Config: cfg},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Decide(ctx, c); d.Action != policy.Allow {
		t.Errorf("after always: %v (%s)", d.Action, d.Rule)
	}
	if d := e.Decide(ctx, runCall("git push origin other")); d.Action != policy.Ask {
		t.Errorf("other push after always: %v", d.Action)
	}

	// A project's ask rule cannot be lifted: [a]lways is not offered.
	f = newConsoleFixture(t, "a\nn\n\n")
	project := policy.Config{Commands: []policy.CommandRule{{Prefix: []string{"make"}, Action: "ask"}}}
	c = runCall("make")
	d = newEngine(t, policy.PresetFull, nil, &project, nil).Decide(ctx, c)
	if got, _ := f.console.Approve(ctx, c, d); got.Action != policy.Deny || strings.Contains(f.out.String(), "[a]lways") {
		t.Errorf("project ask: %+v\n%s", got, f.out)
	}
}
