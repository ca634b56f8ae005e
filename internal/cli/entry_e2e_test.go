package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// binary runs the rein binary to its end with stdin closed.
func (e *env) binary(t *testing.T, args ...string) result {
	t.Helper()
	code, stdout, stderr := e.runBinary(t, args...)
	return result{code: code, stdout: stdout, stderr: stderr}
}

// userMessages are the texts of the user messages of a chat request.
func userMessages(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	msgs, _ := requestJSON(t, body)["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] != "user" {
			continue
		}
		switch c := mm["content"].(type) {
		case string:
			out = append(out, c)
		case []any:
			var b strings.Builder
			for _, p := range c {
				pm, _ := p.(map[string]any)
				s, _ := pm["text"].(string)
				b.WriteString(s)
			}
			out = append(out, b.String())
		}
	}
	return out
}

// jsonSession runs rein with args (which ask for --output-format json)
// and returns the session it recorded into.
func (e *env) jsonSession(t *testing.T, args ...string) string {
	t.Helper()
	res := e.binary(t, args...)
	var out struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); res.code != 0 || err != nil || out.SessionID == "" {
		t.Fatalf("rein %q: exit %d (%v)\nstdout: %s\nstderr: %s", args, res.code, err, res.stdout, res.stderr)
	}
	return out.SessionID
}

// TestBinaryPrintIsRun: rein -p PROMPT --output-format json prints what
// rein run PROMPT --output-format json prints (but for the session id, the
// durations and the result's uuid) and sends the model the same request.
func TestBinaryPrintIsRun(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("The answer is 4.")), sse(textBody("The answer is 4.")))
	e := newEnv(t)
	decode := func(args ...string) map[string]any {
		res := e.binary(t, args...)
		if res.code != 0 {
			t.Fatalf("rein %q: exit %d; stderr:\n%s", args, res.code, res.stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(res.stdout), &m); err != nil {
			t.Fatalf("rein %q: %v\n%s", args, err, res.stdout)
		}
		if m["session_id"] == "" || m["session_id"] == nil {
			t.Errorf("rein %q: no session_id in %s", args, res.stdout)
		}
		for _, volatile := range []string{"session_id", "duration_ms", "duration_api_ms", "uuid"} {
			delete(m, volatile)
		}
		return m
	}
	run := decode("run", "--output-format", "json", "-e", srv.URL, "what is 2+2")
	print := decode("-p", "--output-format", "json", "-e", srv.URL, "what is 2+2")
	if diff := cmp.Diff(run, print); diff != "" {
		t.Errorf("rein -p differs from rein run (-run +print):\n%s", diff)
	}
	if run["text"] != "The answer is 4." {
		t.Errorf("text = %v", run["text"])
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	if diff := cmp.Diff(requestJSON(t, reqs[0].Body), requestJSON(t, reqs[1].Body)); diff != "" {
		t.Errorf("the model requests differ (-run +print):\n%s", diff)
	}
	res := e.binary(t, "--print", "-e", srv.URL, "--max-steps", "0", "hi")
	if res.code != 2 || !strings.Contains(res.stderr, "--max-steps must be between") {
		t.Errorf("rein --print takes run's flags: exit %d stderr %q", res.code, res.stderr)
	}
}

// TestBinaryContinueAndResume: -c continues the workspace's latest
// session and -r ID a given one, on rein -p, rein run and rein chat; the
// model sees the earlier messages of that session and no other's.
// Without a terminal, -r alone is refused with the recent sessions listed.
func TestBinaryContinueAndResume(t *testing.T) {
	var steps []modeltest.Step
	for range 6 {
		steps = append(steps, sse(textBody("noted")))
	}
	srv := modeltest.NewServer(t, steps...)
	e := newEnv(t)
	alpha := e.jsonSession(t, "run", "--output-format", "json", "-e", srv.URL, "alpha task")
	beta := e.jsonSession(t, "run", "--output-format", "json", "-e", srv.URL, "beta task")
	last := func() []string { r := srv.Requests(); return userMessages(t, r[len(r)-1].Body) }

	if got := e.jsonSession(t, "-c", "-p", "--output-format", "json", "-e", srv.URL, "next"); got != beta {
		t.Errorf("rein -c -p recorded into %s, want the latest %s", got, beta)
	}
	if diff := cmp.Diff([]string{"beta task", "next"}, last()); diff != "" {
		t.Errorf("rein -c: user messages (-want +got):\n%s", diff)
	}
	if got := e.jsonSession(t, "-r", alpha, "-p", "--output-format", "json", "-e", srv.URL, "back to alpha"); got != alpha {
		t.Errorf("rein -r %s -p recorded into %s", alpha, got)
	}
	if diff := cmp.Diff([]string{"alpha task", "back to alpha"}, last()); diff != "" {
		t.Errorf("rein -r ID: user messages (-want +got):\n%s", diff)
	}
	if got := e.jsonSession(t, "run", "--output-format", "json", "-e", srv.URL, "--resume", beta[:8], "beta again"); got != beta {
		t.Errorf("rein run --resume PREFIX recorded into %s, want %s", got, beta)
	}
	p := e.start(t, "chat", "-c", "-e", srv.URL)
	p.stdin.Write([]byte("chat on\n"))
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("rein chat -c: exit %d; stderr:\n%s", code, p.stderr)
	}
	if diff := cmp.Diff([]string{"beta task", "next", "beta again", "chat on"}, last()); diff != "" {
		t.Errorf("rein chat -c: user messages (-want +got):\n%s", diff)
	}

	res := e.binary(t, "-r", "-e", srv.URL)
	if res.code != 2 || !strings.Contains(res.stderr, "-r without an ID needs a terminal to pick a session from; pass the ID: rein -r ID") ||
		!strings.Contains(res.stderr, alpha+"  ") || !strings.Contains(res.stderr, beta+"  ") || !strings.Contains(res.stderr, "alpha task") {
		t.Errorf("rein -r without a terminal: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	res = e.binary(t, "run", "-r", "-e", srv.URL)
	if res.code != 2 || !strings.Contains(res.stderr, "pass the ID: rein -r ID") {
		t.Errorf("rein run -r without a terminal: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	res = e.binary(t, "-r", "sfeedfacefeedface00", "-p", "-e", srv.URL, "hi")
	if res.code == 0 || !strings.Contains(res.stderr, "sfeedfacefeedface00") {
		t.Errorf("rein -r UNKNOWN: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 6 {
		t.Errorf("server saw %d requests, want 6 (a refused invocation reached the model)", n)
	}
}

// TestBinaryResumeListBounded: without a terminal -r lists the 10 most
// recent sessions of the workspace, newest first.
func TestBinaryResumeListBounded(t *testing.T) {
	var steps []modeltest.Step
	for range 12 {
		steps = append(steps, sse(textBody("ok")))
	}
	srv := modeltest.NewServer(t, steps...)
	e := newEnv(t)
	var ids []string
	for i := range 12 {
		ids = append(ids, e.jsonSession(t, "-p", "--output-format", "json", "-e", srv.URL, fmt.Sprintf("task %d", i)))
	}
	res := e.binary(t, "-r")
	var listed []string
	for _, l := range lines(res.stderr)[1:] {
		listed = append(listed, strings.Fields(l)[0])
	}
	want := []string{}
	for i := 11; i >= 2; i-- {
		want = append(want, ids[i])
	}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("listed sessions (-want +got):\n%s\nstderr:\n%s", diff, res.stderr)
	}
}

// TestBinaryResumeListIsSafe: the sessions -r lists (without a terminal,
// and in the picker) show titles a prompt chose: an environment
// credential in one is redacted and terminal control sequences are
// escaped, never written raw.
func TestBinaryResumeListIsSafe(t *testing.T) {
	const token = "ghp_R3inT3stT0kenValue0123456789abcdefXY"
	srv := modeltest.NewServer(t, sse(textBody("ok")), sse(textBody("ok")))
	e := newEnv(t)
	e.vars["GITHUB_TOKEN"] = token
	hostile := "use " + token + " then \x1b]52;c;aGVsbG8=\x07\x1b[2J\x1b[31mred"
	e.jsonSession(t, "-p", "--output-format", "json", "-e", srv.URL, hostile)
	res := e.binary(t, "-r")
	if res.code != 2 || !strings.Contains(res.stderr, "use ") {
		t.Fatalf("rein -r: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for _, raw := range []string{token, "\x1b", "\x07"} {
		if strings.Contains(res.stderr, raw) {
			t.Errorf("rein -r listing holds %q raw:\n%q", raw, res.stderr)
		}
	}
}

// TestBinaryMistypedCommand: the real binary refuses a mistyped command
// with the suggestion and exit 2, without a model request; "--" makes
// the word a prompt.
func TestBinaryMistypedCommand(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("sessions are stored")))
	e := newEnv(t)
	res := e.binary(t, "-e", srv.URL, "sesions")
	want := `rein: unknown command "sesions"; did you mean "sessions"? (to send "sesions" to the model as the prompt, write rein -- sesions)` + "\n"
	if res.code != 2 || res.stderr != want {
		t.Errorf("rein sesions: exit %d stderr %q, want 2 and %q", res.code, res.stderr, want)
	}
	res = e.binary(t, "-p", "-e", srv.URL, "--", "sesions")
	if res.code != 0 || !strings.Contains(res.stdout, "sessions are stored") {
		t.Errorf("rein -p -- sesions: exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("server saw %d requests, want 1", n)
	}
	if got := userMessages(t, srv.Requests()[0].Body); len(got) != 1 || got[0] != "sesions" {
		t.Errorf("user messages = %q", got)
	}
}
