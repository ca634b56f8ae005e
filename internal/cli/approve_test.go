package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/internal/cli"
	"github.com/reinharness/rein/model/modeltest"
)

// runOnTerminal runs the command line as if stdin were a terminal that
// types input.
func (e *env) runOnTerminal(t *testing.T, input string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	app := &cli.App{
		Stdin:      strings.NewReader(input),
		Stdout:     stdout,
		Stderr:     stderr,
		Getenv:     func(k string) string { return e.vars[k] },
		Getwd:      func() (string, error) { return e.workspace, nil },
		IsTerminal: func() bool { return true },
	}
	code := app.Run(ctx, args)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestConsoleApprovalSharesChatInput: on a terminal, a call that needs
// approval is asked about on stderr and answered from the same input as
// the chat's messages: the answer is not sent to the model as a message,
// and the next line still is.
func TestConsoleApprovalSharesChatInput(t *testing.T) {
	tests := []struct {
		name, answers string
		wantFile      bool
		wantResult    string
	}{
		{"yes", "y\n", true, "exit code 0"},
		{"no with a reason", "n\nuse the Makefile\n", false, "tool call denied: run_command was denied by the user: use the Makefile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "run_command", `{"command":"touch made.txt"}`)),
				sse(textBody("done")),
				sse(textBody("you're welcome")),
			)
			e := newEnv(t)
			res := e.runOnTerminal(t, "make the file\n"+tt.answers+"thanks\n", "chat", "-e", srv.URL)
			if res.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
			}
			for _, want := range []string{"rein wants to run run_command", "command: touch made.txt", "Allow? [y]es once, [s]ession, [a]lways for this project, [n]o"} {
				if !strings.Contains(res.stderr, want) {
					t.Errorf("stderr lacks the prompt's %q:\n%s", want, res.stderr)
				}
			}
			_, err := os.Stat(filepath.Join(e.workspace, "made.txt"))
			if (err == nil) != tt.wantFile {
				t.Errorf("made.txt exists = %v, want %v", err == nil, tt.wantFile)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("the model got %d requests, want 3", len(reqs))
			}
			if got := toolResults(t, reqs[1].Body)["c1"]; !strings.Contains(got, tt.wantResult) {
				t.Errorf("tool result = %q, want %q", got, tt.wantResult)
			}
			var users []string
			for _, m := range historyTexts(t, reqs[2].Body) {
				if strings.HasPrefix(m, "user:") {
					users = append(users, m)
				}
			}
			if strings.Join(users, "|") != "user:make the file|user:thanks" {
				t.Errorf("user messages = %q, want the two chat lines and no approval answer", users)
			}
		})
	}
}

// TestConsoleApprovalInRun: rein run on a terminal prompts too; the
// answer comes from stdin.
func TestConsoleApprovalInRun(t *testing.T) {
	srv := modeltest.NewServer(t, sse(toolBody("c1", "run_command", `{"command":"touch made.txt"}`)), sse(textBody("done")))
	e := newEnv(t)
	res := e.runOnTerminal(t, "s\n", "run", "-e", srv.URL, "make the file")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "made.txt")); err != nil {
		t.Errorf("made.txt was not made after approval: %v\nstderr:\n%s", err, res.stderr)
	}
	if !strings.Contains(res.stderr, "rein wants to run run_command") {
		t.Errorf("no approval prompt on stderr:\n%s", res.stderr)
	}
}

// TestApproveAndPresetFlagsAreValidated: bad values are usage errors.
func TestApproveAndPresetFlagsAreValidated(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"run", "--approve", "always", "hi"},
		{"run", "--preset", "yolo", "hi"},
		{"run", "--preset", "", "hi"},
		{"chat", "--approve", "maybe"},
	} {
		res := e.run(t, args...)
		if res.code != cli.ExitUsage || !strings.Contains(res.stderr, "must be") {
			t.Errorf("%q: exit %d stderr %q, want a usage error", args, res.code, res.stderr)
		}
	}
}

// TestAlwaysApprovalPersists: [a]lways writes the exact rule to the
// project's .rein/config.toml and records its approval in the state
// directory, so a later headless run allows the same command without
// asking — and a fresh state directory does not (a cloned repository
// cannot approve its own rules).
func TestAlwaysApprovalPersists(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"touch made.txt"}`)), sse(textBody("done")),
		sse(toolBody("c2", "run_command", `{"command":"touch made.txt"}`)), sse(textBody("done")),
		sse(toolBody("c3", "run_command", `{"command":"touch made.txt"}`)), sse(textBody("done")),
	)
	e := newEnv(t)
	res := e.runOnTerminal(t, "a\n", "run", "-e", srv.URL, "make the file")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	rules, err := os.ReadFile(filepath.Join(e.workspace, ".rein", "config.toml"))
	if err != nil || !strings.Contains(string(rules), `prefix = ["touch", "made.txt"]`) {
		t.Fatalf(".rein/config.toml = %q, %v; want the exact rule", rules, err)
	}
	store := filepath.Join(e.home, ".local", "state", "rein", "approved-rules.json")
	if _, err := os.Stat(store); err != nil {
		t.Fatalf("the approval was not recorded in the state directory: %v", err)
	}

	res = e.run(t, "run", "--approve", "never", "-e", srv.URL, "make the file again")
	if got := toolResults(t, srv.Requests()[3].Body)["c2"]; res.code != 0 || !strings.HasPrefix(got, "exit code 0") {
		t.Errorf("second run: exit %d, result %q; want the approved rule to allow it\nstderr:\n%s", res.code, got, res.stderr)
	}

	res = e.run(t, "run", "--approve", "never", "--state-dir", t.TempDir(), "-e", srv.URL, "and again")
	if got := toolResults(t, srv.Requests()[5].Body)["c3"]; !strings.Contains(got, "needs approval") || !strings.Contains(res.stderr, "a project can only tighten the policy") {
		t.Errorf("with another state dir: result %q, stderr %q; want the project's allow rule ignored with a warning", got, res.stderr)
	}
}

// TestDefaultSystemPrompt: without a configured prompt the model is told
// what rein is, the workspace root, its tools and that denials are to be
// adapted to; agent.system_prompt replaces it.
func TestDefaultSystemPrompt(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("ok")), sse(textBody("ok")))
	e := newEnv(t)
	if res := e.run(t, "run", "-e", srv.URL, "--preset", "full", "hi"); res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	system := messageTexts(t, srv.Requests()[0].Body)[0]
	ws, err := filepath.EvalSymlinks(e.workspace)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"system:You are a coding agent run by rein", "workspace " + ws + ":", "apply_patch, run_command", "(preset full)", "Do not repeat a denied call"} {
		if !strings.Contains(system, want) {
			t.Errorf("default system prompt lacks %q:\n%s", want, system)
		}
	}
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[agent]\nsystem_prompt = \"You review code.\"\n")
	if res := e.run(t, "run", "-e", srv.URL, "hi"); res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if got := messageTexts(t, srv.Requests()[1].Body)[0]; got != "system:You review code." {
		t.Errorf("configured system prompt = %q, want it to replace the default", got)
	}
}
