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

// Outcomes that say what happened (issue 24, items 3 and 4), end to end
// through `rein run` against the scripted model.

// jsonOutcome decodes the --output-format json object's rein fields.
type jsonOutcome struct {
	Outcome, Error string
	NeedsApproval  []agent.ApprovalNeeded `json:"needs_approval"`
}

func decodeOutcome(t *testing.T, stdout string) jsonOutcome {
	t.Helper()
	var out jsonOutcome
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("json output: %v\n%s", err, stdout)
	}
	return out
}

// TestVerifyMissingCheckEndsAtOnce: a check whose program does not exist
// ends the gate at once, verification_unavailable (exit 4), after one
// model call; the model is not asked to fix it.
func TestVerifyMissingCheckEndsAtOnce(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, baseConfig+"[verify]\ncommands = [[\"no-such-check-xyz\", \"./...\"]]\nmax_attempts = 3\n")
	srv := modeltest.NewServer(t, writeStatus("w1", "x\n"), sse(textBody("Done.")), sse(textBody("Done again.")))
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "--output-format", "json", "-e", srv.URL, "change it")
	if res.code != 4 {
		t.Fatalf("exit %d, want 4\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	out := decodeOutcome(t, res.stdout)
	if out.Outcome != string(agent.VerificationUnavailable) || !strings.Contains(out.Error, "the check `no-such-check-xyz ./...` cannot run: command not found (exit 127)") {
		t.Errorf("outcome %q error %q", out.Outcome, out.Error)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2 (no retry after a check that cannot run)", n)
	}
}

// TestVerifyFirstTimeoutUnavailable: a check that times out on the first
// attempt cannot run as configured: verification_unavailable, and the
// stream-json verify.result says unavailable.
func TestVerifyFirstTimeoutUnavailable(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, baseConfig+"[verify]\ncommands = [[\"sleep\", \"1000\"]]\ntimeout = \"1s\"\non = \"always\"\n")
	srv := modeltest.NewServer(t, sse(textBody("Done.")), sse(textBody("Done again.")))
	start := time.Now()
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "--output-format", "stream-json", "-e", srv.URL, "hang")
	if res.code != 4 || time.Since(start) > 20*time.Second {
		t.Fatalf("exit %d after %s, want 4 soon\n%s", res.code, time.Since(start), res.stderr)
	}
	got := verifyEvents(t, res.stdout)
	if len(got) != 1 || !got[0].Unavailable || !strings.HasPrefix(got[0].Err, "timed out after 1s on the first attempt") {
		t.Errorf("verify.result = %+v", got)
	}
	if !strings.Contains(res.stdout, `"kind":"verification_unavailable"`) || len(srv.Requests()) != 1 {
		t.Errorf("%d requests; stdout:\n%s", len(srv.Requests()), res.stdout)
	}
}

// TestVerifyGoFailureSummarised: real go test output; the message that
// hands the failure back leads with the failing test and its location.
func TestVerifyGoFailureSummarised(t *testing.T) {
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
		sse(textBody("Done.")),
		sse(textBody("Still done.")),
	)
	inv := e.invoke("")
	inv.timeout = 6 * time.Minute
	res := inv.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "--output-format", "stream-json", "-e", srv.URL, "refactor Add")
	if res.code != 4 {
		t.Fatalf("exit %d, want 4\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	assertLeadsWith(t, string(reqs[2].Body), "1 failing test: TestAdd (calc_test.go:7)", "Add(2, 3) = -1, want 5")
	if got := verifyEvents(t, res.stdout); len(got) == 0 || got[0].Summary != "1 failing test: TestAdd (calc_test.go:7)" {
		t.Errorf("verify.result summary: %+v", got)
	}
}

// TestVerifyPythonFailureSummarised: real python -m unittest output (pytest
// is not installed here) summarised the same way.
func TestVerifyPythonFailureSummarised(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("SKIP: python3 is not installed: %v", err)
	}
	e := newEnv(t)
	e.writeUserConfig(t, baseConfig+"[verify]\ncommands = [[\"python3\", \"-m\", \"unittest\"]]\nmax_attempts = 2\n")
	writeFiles(t, e.workspace, map[string]string{
		"calc.py":      "def add(a, b):\n    return a + b\n",
		"test_calc.py": "import unittest\n\nfrom calc import add\n\n\nclass TestCalc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
	})
	srv := modeltest.NewServer(t,
		sse(toolBody("e1", "edit_file", `{"path":"calc.py","old_string":"return a + b","new_string":"return a - b"}`)),
		sse(textBody("Done.")),
		sse(textBody("Still done.")),
	)
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "-e", srv.URL, "refactor add")
	if res.code != 4 {
		t.Fatalf("exit %d, want 4\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	assertLeadsWith(t, string(reqs[2].Body), "1 failing test: test_calc.TestCalc.test_add (", "AssertionError: -1 != 5")
}

// assertLeadsWith checks that a request body holds summary before the
// raw output line.
func assertLeadsWith(t *testing.T, body, summary, output string) {
	t.Helper()
	var req struct {
		Messages []struct{ Content any } `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	for _, m := range req.Messages {
		s, _ := m.Content.(string)
		if i := strings.Index(s, summary); i >= 0 {
			if j := strings.Index(s, output); j < i {
				t.Errorf("summary %q does not precede %q:\n%s", summary, output, s)
			}
			return
		}
	}
	t.Errorf("no message holds %q:\n%s", summary, body)
}

// askCmd is a model turn calling run_command.
func askCmd(id, command string) modeltest.Step {
	b, _ := json.Marshal(map[string]string{"command": command})
	return sse(toolBody(id, "run_command", string(b)))
}

// TestUnansweredAskNotADenial: under --approve never, calls that need
// approval are refused but are not denials: two of them around a hard
// denial (three refusals in a row, the default denial limit) do not end
// the run blocked; it completes, and the json names the calls and how to
// allow them.
func TestUnansweredAskNotADenial(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t,
		askCmd("c1", "touch a.txt"), askCmd("c2", "git push -f origin main"), askCmd("c3", "touch b.txt"),
		sse(textBody("I could not run the commands.")),
	)
	res := e.run(t, "run", "--approve", "never", "--output-format", "json", "-e", srv.URL, "make files")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	out := decodeOutcome(t, res.stdout)
	if out.Outcome != string(agent.Complete) || len(out.NeedsApproval) != 2 ||
		out.NeedsApproval[0].CallID != "c1" || out.NeedsApproval[1].CallID != "c3" ||
		!strings.Contains(out.NeedsApproval[0].Reason, "--approve auto") {
		t.Errorf("outcome %q needs_approval %+v", out.Outcome, out.NeedsApproval)
	}
}

// TestUnansweredAsksEndNeedsApproval: a run stuck on calls no one can
// approve ends needs_approval (exit 4), naming them and the fix.
func TestUnansweredAsksEndNeedsApproval(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t,
		askCmd("c1", "touch a.txt"), askCmd("c2", "touch b.txt"), askCmd("c3", "touch c.txt"),
		sse(textBody("unreached")),
	)
	res := e.run(t, "run", "--approve", "never", "--output-format", "json", "-e", srv.URL, "make files")
	if res.code != 4 {
		t.Fatalf("exit %d, want 4\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	out := decodeOutcome(t, res.stdout)
	if out.Outcome != string(agent.NeedsApproval) || len(out.NeedsApproval) != 3 ||
		!strings.Contains(out.Error, "3 tool calls needed approval and no one could be asked (run_command)") ||
		!strings.Contains(out.Error, "--approve auto") {
		t.Errorf("outcome %q error %q needs_approval %+v", out.Outcome, out.Error, out.NeedsApproval)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

// TestContentFilterOutcome: an answer the provider's filter stopped ends
// content_filtered (exit 4) at once, with the text that arrived; the turn
// is not retried.
func TestContentFilterOutcome(t *testing.T) {
	body := deltaChunk(`{"role":"assistant","content":null}`) + deltaChunk(`{"content":"Here is how to"}`) +
		chunk(`{"finish_reason":"content_filter","index":0,"delta":{}}`) + usageChunk(20, 3) + "data: [DONE]\n\n"
	srv := modeltest.NewServer(t, sse(body), sse(textBody("unreached")))
	e := newEnv(t)
	res := e.run(t, "run", "--output-format", "stream-json", "-e", srv.URL, "tell me")
	if res.code != 4 {
		t.Fatalf("exit %d, want 4\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	var done *agent.Outcome
	for _, l := range lines(res.stdout) {
		var ev agent.Event
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Type == agent.EventSessionCompleted {
			done = ev.Outcome
		}
	}
	if done == nil || done.Kind != agent.ContentFiltered || done.Text != "Here is how to" || !strings.Contains(done.Reason, "content filter") {
		t.Errorf("outcome %+v", done)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (not retried)", n)
	}
}
