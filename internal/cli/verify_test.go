package cli_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model/modeltest"
)

// The verification gate end to end: `rein run` against a scripted model in
// a workspace whose check is a shell command, `grep -q good status.txt`.

const verifyCheck = "grep -q good status.txt"

func verifyConfig(extra string) string {
	return baseConfig + "[verify]\ncommands = [\"" + verifyCheck + "\"]\n" + extra
}

// writeStatus is a model turn writing status.txt.
func writeStatus(id, content string) modeltest.Step {
	b, _ := json.Marshal(map[string]string{"path": "status.txt", "content": content})
	return sse(toolBody(id, "write_file", string(b)))
}

// verifyEvents decodes the verify.result events of stream-json output.
func verifyEvents(t *testing.T, stdout string) []agent.VerifyInfo {
	t.Helper()
	var out []agent.VerifyInfo
	for _, l := range lines(stdout) {
		var ev agent.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("stream-json line is not JSON: %v\n%s", err, l)
		}
		if ev.Type == agent.EventVerifyResult && ev.Verify != nil {
			out = append(out, *ev.Verify)
		}
	}
	return out
}

func newVerifyEnv(t *testing.T, extra string) *env {
	t.Helper()
	e := newEnv(t)
	e.writeUserConfig(t, verifyConfig(extra))
	writeFiles(t, e.workspace, map[string]string{"status.txt": "good\n"})
	return e
}

// TestVerifyFalseDoneEndsExit4: the model breaks the code and claims
// success every time; the gate fails max_attempts times and the run ends
// verification_failed, exit 4, with the check's output shown.
func TestVerifyFalseDoneEndsExit4(t *testing.T) {
	e := newVerifyEnv(t, "max_attempts = 2\n")
	srv := modeltest.NewServer(t,
		writeStatus("w1", "broken\n"),
		sse(textBody("Done: all tests pass.")),
		sse(textBody("I checked again: all tests pass.")),
	)
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "-e", srv.URL, "fix the status")
	t.Logf("rein run exit %d\n--- stdout ---\n%s--- stderr ---\n%s", res.code, res.stdout, res.stderr)
	if res.code != 4 {
		t.Fatalf("exit %d, want 4", res.code)
	}
	if n := strings.Count(res.stderr, "verify: "+verifyCheck+" … failed (exit 1)"); n != 2 {
		t.Errorf("stderr shows %d failed checks, want 2:\n%s", n, res.stderr)
	}
	if !strings.Contains(res.stderr, "verification failed") {
		t.Errorf("stderr does not say the verification failed:\n%s", res.stderr)
	}
	// The model was handed the failure after the first false "done".
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	if body := string(reqs[2].Body); !strings.Contains(body, verifyCheck) {
		t.Errorf("the model was not told which check failed: %s", body)
	}
}

// TestVerifyFixedAfterOneFailure: the model's first "done" fails the
// gate; it fixes the file and the second verification passes: exit 0,
// two verify.result events in stream-json.
func TestVerifyFixedAfterOneFailure(t *testing.T) {
	e := newVerifyEnv(t, "")
	srv := modeltest.NewServer(t,
		writeStatus("w1", "broken\n"),
		sse(textBody("Done.")),
		writeStatus("w2", "good again\n"),
		sse(textBody("Fixed.")),
	)
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "--output-format", "stream-json", "-e", srv.URL, "fix the status")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	got := verifyEvents(t, res.stdout)
	if len(got) != 2 || got[0].Passed || got[0].ExitCode != 1 || got[0].Attempt != 1 ||
		!got[1].Passed || got[1].Attempt != 2 || got[1].Check != verifyCheck {
		t.Errorf("verify.result events = %+v; want a failure (attempt 1) then a pass (attempt 2)", got)
	}
}

// TestVerifyHangKilledAtTimeout: a check that hangs after the model's
// change is killed at its timeout and counts as a failure. (One that
// hangs on the first attempt cannot run as configured:
// TestVerifyFirstTimeoutUnavailable.)
func TestVerifyHangKilledAtTimeout(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, baseConfig+"[verify]\ncommands = [\"if grep -q hang status.txt; then sleep 1000; fi; grep -q good status.txt\"]\ntimeout = \"1s\"\nmax_attempts = 2\n")
	writeFiles(t, e.workspace, map[string]string{"status.txt": "good\n"})
	srv := modeltest.NewServer(t, writeStatus("w1", "broken\n"), sse(textBody("Done.")), writeStatus("w2", "hang\n"), sse(textBody("Done.")))
	start := time.Now()
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "--output-format", "stream-json", "-e", srv.URL, "hang")
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the run took %s; the check was not killed at its 1s timeout", took)
	}
	if res.code != 4 {
		t.Fatalf("exit %d, want 4\n%s", res.code, res.stderr)
	}
	got := verifyEvents(t, res.stdout)
	if len(got) != 2 || got[1].Passed || got[1].Unavailable || got[1].ExitCode != -1 || got[1].Err != "timed out after 1s" || got[1].Duration > 10*time.Second {
		t.Errorf("verify.result = %+v, want a failure then a timed-out failure", got)
	}
	if !strings.Contains(res.stdout, `"kind":"verification_failed"`) {
		t.Errorf("not verification_failed:\n%s", res.stdout)
	}
}

// TestVerifyOnChangesSkipsUnchangedRun: with on = "changes" (the default)
// a run that changed nothing is not verified, though the check would fail.
func TestVerifyOnChangesSkipsUnchangedRun(t *testing.T) {
	e := newVerifyEnv(t, "")
	writeFiles(t, e.workspace, map[string]string{"status.txt": "broken\n"})
	srv := modeltest.NewServer(t, sse(textBody("Nothing to do.")))
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "--output-format", "stream-json", "-e", srv.URL, "look")
	if res.code != 0 || strings.Contains(res.stdout, "verify.") {
		t.Errorf("exit %d; verify events in the output of an unchanged run:\n%s", res.code, res.stdout)
	}
}

// TestVerifyNoVerifyFlag: --no-verify skips the gate.
func TestVerifyNoVerifyFlag(t *testing.T) {
	e := newVerifyEnv(t, "")
	srv := modeltest.NewServer(t, writeStatus("w1", "broken\n"), sse(textBody("Done.")))
	res := e.run(t, "run", "--no-verify", "--state-dir", filepath.Join(e.home, "state"), "--output-format", "stream-json", "-e", srv.URL, "break it")
	if res.code != 0 || strings.Contains(res.stdout, "verify.") {
		t.Errorf("--no-verify: exit %d, output:\n%s", res.code, res.stdout)
	}
}

// TestVerifyProjectAddsNeverRemoves: a project layer adds its check and
// its commands list cannot drop the user's: both run.
func TestVerifyProjectAddsNeverRemoves(t *testing.T) {
	e := newVerifyEnv(t, "")
	writeFiles(t, e.workspace, map[string]string{
		".rein/config.toml": "[verify]\ncommands = [[\"test\", \"-f\", \"project-ok\"]]\n",
		"project-ok":        "",
	})
	state := filepath.Join(e.home, "state")
	run := func(content string) []string {
		t.Helper()
		srv := modeltest.NewServer(t, writeStatus("w1", content), sse(textBody("Done.")))
		res := e.run(t, "run", "--state-dir", state, "--preset", "full", "--output-format", "stream-json", "-e", srv.URL, "touch it")
		if res.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		var names []string
		for _, v := range verifyEvents(t, res.stdout) {
			names = append(names, v.Check)
		}
		return names
	}
	// Untrusted, the repository's check does not run at all.
	if names := run("good still\n"); strings.Join(names, ",") != verifyCheck {
		t.Errorf("checks run before trust = %v, want only the user's", names)
	}
	if res := e.run(t, "hooks", "trust", "--state-dir", state); res.code != 0 || !strings.Contains(res.stdout, "runs test -f project-ok") {
		t.Fatalf("hooks trust: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if names := run("good again\n"); strings.Join(names, ",") != verifyCheck+",test -f project-ok" {
		t.Errorf("checks run = %v, want the user's then the project's", names)
	}
}

// TestVerifyGoProject: a real Go module checked with go test. The model
// breaks Add and claims the tests pass; go test fails twice and the run
// ends exit 4 with the failing test's output on stderr and in the error.
func TestVerifyGoProject(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("SKIP: go is not installed: %v", err)
	}
	e := newEnv(t)
	e.writeUserConfig(t, baseConfig+"[verify]\ncommands = [[\"go\", \"test\", \"./...\"]]\ntimeout = \"3m\"\nmax_attempts = 2\n")
	writeFiles(t, e.workspace, map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	})
	srv := modeltest.NewServer(t,
		sse(toolBody("e1", "edit_file", `{"path":"calc.go","old_string":"return a + b","new_string":"return a - b"}`)),
		sse(textBody("Refactored Add. All tests pass.")),
		sse(textBody("I am confident: all tests pass.")),
	)
	// go test builds the standard library's test dependencies into an
	// empty cache inside the sandbox first: on a loaded machine that
	// alone can take a minute.
	inv := e.invoke("")
	inv.timeout = 6 * time.Minute
	res := inv.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "-e", srv.URL, "refactor Add")
	t.Logf("rein run exit %d\n--- stdout ---\n%s--- stderr ---\n%s", res.code, res.stdout, res.stderr)
	if res.code != 4 {
		t.Fatalf("exit %d, want 4", res.code)
	}
	for _, want := range []string{"verify: go test ./... … failed (exit 1)", "Add(2, 3) = -1, want 5", "verification failed"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
}

// TestVerifyJSONErrorCarriesOutput: with --output-format json the error of
// a verification_failed run holds the last check's output.
func TestVerifyJSONErrorCarriesOutput(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, baseConfig+"[verify]\ncommands = [\"echo status is $(cat status.txt); grep -q good status.txt\"]\nmax_attempts = 1\n")
	writeFiles(t, e.workspace, map[string]string{"status.txt": "good\n"})
	srv := modeltest.NewServer(t, writeStatus("w1", "broken\n"), sse(textBody("Done.")))
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "--output-format", "json", "-e", srv.URL, "break it")
	if res.code != 4 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	var out struct{ Outcome, Error string }
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	if out.Outcome != string(agent.VerificationFailed) || !strings.Contains(out.Error, "status is broken") {
		t.Errorf("json outcome %q error %q; want verification_failed with the check's output", out.Outcome, out.Error)
	}
}

// TestChatShowsPlanAndChecks: in chat the model's todo_write plan is shown
// as a checklist and each check of the gate as it runs.
func TestChatShowsPlanAndChecks(t *testing.T) {
	e := newVerifyEnv(t, "max_attempts = 1\n")
	plan := `{"todos":[{"content":"Break the status","status":"completed"},{"content":"Claim success","activeForm":"Claiming success","status":"in_progress"},{"content":"Go home","status":"pending"}]}`
	srv := modeltest.NewServer(t,
		sse(toolBody("p1", "todo_write", plan)),
		writeStatus("w1", "broken\n"),
		sse(textBody("Done.")),
	)
	res := e.invoke("break it\n").run(t, "chat", "--state-dir", filepath.Join(e.home, "state"), "-e", srv.URL)
	if res.code != 4 {
		t.Fatalf("exit %d, want 4 (the last turn failed verification)\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"plan:\n  [x] Break the status\n  [>] Claiming success\n  [ ] Go home\n",
		"verify: " + verifyCheck + " … failed (exit 1)",
		"verification failed",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("chat stderr lacks %q:\n%s", want, res.stderr)
		}
	}
}
