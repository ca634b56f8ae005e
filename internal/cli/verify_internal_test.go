package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/workspace"
)

// loadLayers loads a user file and a project file (either may be "").
func loadVerifyLayers(t *testing.T, user, project string) (*config.Config, error) {
	t.Helper()
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	write := func(p, s string) {
		if s == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(home, ".config", "rein", "config.toml"), user)
	write(filepath.Join(ws, ".rein", "config.toml"), project)
	return config.Load(config.LoadOptions{Workspace: ws, Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
}

func checkNames(cs []host.VerifyCheck) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name+"@"+c.Timeout.String())
	}
	return out
}

// TestLoadVerifyLayers: the project adds checks but cannot remove the
// user's (commands = [] or a list without them), its on = "always" wins,
// it may lower max_attempts but not raise it, and each layer's timeout
// applies to its own checks. Argv words are quoted for bash.
func TestLoadVerifyLayers(t *testing.T) {
	user := `[verify]
commands = [["go", "test", "./..."], ["echo", "it's"], "make lint && echo ok"]
timeout = "2m"
max_attempts = 2
`
	for _, tc := range []struct {
		name, project string
		want          []string
		always        bool
		attempts      int
		warn          string
	}{
		{name: "user only", want: []string{"go test ./...@2m0s", `echo 'it'\''s'@2m0s`, "make lint && echo ok@2m0s"}, attempts: 2},
		{name: "project adds", project: "[verify]\ncommands = [[\"test\", \"-f\", \"ok\"]]\ntimeout = \"5s\"\n",
			want: []string{"go test ./...@2m0s", `echo 'it'\''s'@2m0s`, "make lint && echo ok@2m0s", "test -f ok@5s"}, attempts: 2},
		{name: "project empties", project: "[verify]\ncommands = []\non = \"always\"\nmax_attempts = 1\n",
			want: []string{"go test ./...@2m0s", `echo 'it'\''s'@2m0s`, "make lint && echo ok@2m0s"}, always: true, attempts: 1},
		{name: "project raises", project: "[verify]\nmax_attempts = 9\n",
			want: []string{"go test ./...@2m0s", `echo 'it'\''s'@2m0s`, "make lint && echo ok@2m0s"}, attempts: 2, warn: "a project can only lower it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadVerifyLayers(t, user, tc.project)
			if err != nil {
				t.Fatal(err)
			}
			s, err := host.LoadVerify(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, checkNames(s.Checks)); diff != "" {
				t.Errorf("checks (-want +got):\n%s", diff)
			}
			if s.Always != tc.always || s.MaxAttempts != tc.attempts {
				t.Errorf("always %v max_attempts %d, want %v %d", s.Always, s.MaxAttempts, tc.always, tc.attempts)
			}
			if got := strings.Join(s.Warnings, "\n"); !strings.Contains(got, tc.warn) || (tc.warn == "" && got != "") {
				t.Errorf("warnings %q, want %q", got, tc.warn)
			}
		})
	}
}

// TestLoadVerifyErrors: bad values and unknown keys are errors naming the
// file and line; a misspelt key gets a suggestion.
func TestLoadVerifyErrors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"[verify]\ncomands = [\"x\"]\n", `unknown key "verify.comands" in [verify] (did you mean "commands"?)`},
		{"[verify]\nmax_attempt = 2\n", `(did you mean "max_attempts"?)`},
		{"[verify]\non = \"sometimes\"\n", `verify.on "sometimes" must be "changes" or "always"`},
		{"[verify]\ntimeout = \"soon\"\n", `verify.timeout "soon" must be a duration`},
		{"[verify]\nmax_attempts = 0\n", "between 1 and 20"},
		{"[verify]\ncommands = [[\"go\", 1]]\n", "must hold only strings"},
		{"[verify]\ncommands = [[]]\n", "is empty"},
		{"[verify]\ncommands = [\"  \"]\n", "is empty"},
		{"[verify]\ncommands = [3]\n", "must be an argv array"},
		{"verify = 3\n", "verify must be a table"},
	} {
		cfg, err := loadVerifyLayers(t, tc.file, "")
		if err == nil {
			_, err = host.LoadVerify(cfg)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.file, err, tc.want)
		}
	}
}

func openTestWS(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(t.TempDir(), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// TestVerifierOnChanges: with on = "changes" nothing runs until the run
// changes a file or calls run_command; a new run starts from nothing
// again; on = "always" always runs.
func TestVerifierOnChanges(t *testing.T) {
	ctx := context.Background()
	ws := openTestWS(t)
	s := host.VerifySettings{Checks: []host.VerifyCheck{{Name: "true", Script: "true", Timeout: time.Minute}}}
	v := newVerifier(ws, s, func(s string) string { return s })
	if cs := v.Checks(ctx, 1); len(cs) != 0 {
		t.Fatalf("no change: %d checks, want 0", len(cs))
	}
	if _, err := ws.WriteFile(ctx, "x.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if cs := v.Checks(ctx, 1); len(cs) != 1 || cs[0].Name != "true" {
		t.Fatalf("after a change: %v, want the check", cs)
	}
	v.OnEvent(ctx, agent.Event{Type: agent.EventSessionStarted})
	if cs := v.Checks(ctx, 1); len(cs) != 0 {
		t.Fatalf("a new run with no change: %d checks", len(cs))
	}
	v.OnEvent(ctx, agent.Event{Type: agent.EventToolCall, ToolCall: toolCall("run_command")})
	if cs := v.Checks(ctx, 1); len(cs) != 1 {
		t.Fatalf("after run_command: %d checks, want 1", len(cs))
	}
	s.Always = true
	va := newVerifier(ws, s, func(s string) string { return s })
	if cs := va.Checks(ctx, 1); len(cs) != 1 {
		t.Fatalf("on = always: %d checks", len(cs))
	}
	if newVerifier(ws, host.VerifySettings{}, nil) != nil {
		t.Error("no checks should give no verifier")
	}
}

// TestVerifierRun: a check's exit code, output (head and tail capped,
// secrets redacted) and a hang killed with its process group at the
// timeout, counted as a failure.
func TestVerifierRun(t *testing.T) {
	ctx := context.Background()
	ws := openTestWS(t)
	ex := newExplainer(config.ModelConfig{APIKey: "sk-verify-secret-1234567"})
	v := &verifier{ws: ws, scrub: ex.scrub}
	run := func(script string, timeout time.Duration) (agent.CheckResult, time.Duration) {
		start := time.Now()
		r := v.run(ctx, host.VerifyCheck{Name: script, Script: script, Timeout: timeout})
		return r, time.Since(start)
	}
	if r, _ := run("echo fine", time.Minute); !r.Passed() || strings.TrimSpace(r.Output) != "fine" {
		t.Errorf("passing check = %+v", r)
	}
	if r, _ := run("echo FAIL: TestX; echo key sk-verify-secret-1234567; exit 3", time.Minute); r.Passed() || r.ExitCode != 3 || r.Err != "" ||
		!strings.Contains(r.Output, "FAIL: TestX") || strings.Contains(r.Output, "sk-verify-secret") {
		t.Errorf("failing check = %+v", r)
	}
	r, _ := run(`head -c 200000 /dev/zero | tr '\0' a; echo; echo THE-END`, time.Minute)
	if !strings.Contains(r.Output, "bytes of output omitted") || !strings.HasSuffix(strings.TrimSpace(r.Output), "THE-END") || len(r.Output) > verifyOutputBytes+300 {
		t.Errorf("capped output: %d bytes, ends %q", len(r.Output), r.Output[max(0, len(r.Output)-40):])
	}
	r, took := run("echo started; sleep 1000 & sleep 1000", time.Second)
	if r.Passed() || r.ExitCode != -1 || r.Err != "timed out after 1s" || took > 15*time.Second {
		t.Errorf("hanging check = %+v after %s, want killed at 1s", r, took)
	}
	if !strings.Contains(r.Output, "started") {
		t.Errorf("a killed check's output is lost: %q", r.Output)
	}
}

func toolCall(name string) *model.ToolCall {
	return &model.ToolCall{ID: "c1", Name: name, Args: []byte("{}")}
}

// FuzzLoadVerify: any [verify] table either loads into checks with a
// command and a timeout of at least a second, or is an error — never a
// panic; an argv check re-parses as bash words equal to the argv.
func FuzzLoadVerify(f *testing.F) {
	f.Add("commands = [[\"go\", \"test\", \"./...\"], \"make lint\"]\ntimeout = \"2m\"\non = \"always\"\nmax_attempts = 2\n")
	f.Add("commands = [[\"a'b\", \"$(x)\", \"\"]]\n")
	f.Add("commands = [[1], {a = 1}]\n")
	f.Add("on = 3\n")
	dir := f.TempDir()
	path := filepath.Join(dir, "config.toml")
	f.Fuzz(func(t *testing.T, table string) {
		if err := os.WriteFile(path, []byte("[verify]\n"+table), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(config.LoadOptions{File: path, Getenv: func(string) string { return "" }})
		if err != nil {
			return
		}
		s, err := host.LoadVerify(cfg)
		if err != nil {
			return
		}
		if s.MaxAttempts < 1 || s.MaxAttempts > host.MaxVerifyAttempts {
			t.Errorf("max_attempts %d accepted", s.MaxAttempts)
		}
		for _, c := range s.Checks {
			if strings.TrimSpace(c.Script) == "" || c.Timeout < time.Second {
				t.Errorf("check %+v accepted", c)
			}
		}
	})
}

// TestShellJoinRoundTrips: bash sees exactly the argv words.
func TestShellJoinRoundTrips(t *testing.T) {
	ctx := context.Background()
	ws := openTestWS(t)
	argv := []string{"printf", "%s|", "a b", "it's", "$(echo pwned)", "*", "FOO=bar", "", "semi;colon"}
	res, err := ws.Exec(ctx, workspace.ExecOptions{Command: host.ShellJoin(argv), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a b|it's|$(echo pwned)|*|FOO=bar||semi;colon|"; res.Output != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
	res, err = ws.Exec(ctx, workspace.ExecOptions{Command: host.ShellJoin([]string{"A=1", "true"}), Timeout: time.Minute})
	if err != nil || res.ExitCode != 127 {
		t.Errorf("a first word NAME=value ran as an assignment: %+v %v", res, err)
	}
}
