package cli_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// TestStreamJSONInputDrivesASession: each stdin line is one turn, run in
// order on the same session, and the output continues as stream-json.
func TestStreamJSONInputDrivesASession(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("Hello, Ann.")), sse(textBody("Your name is Ann.")))
	e := newEnv(t)
	stdin := `{"type":"user","message":{"role":"user","content":"My name is Ann."}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"What is my name?"}]}}` + "\n"
	res := e.invoke(stdin).run(t, "run", "--input-format", "stream-json", "--output-format", "stream-json", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d stderr %s", res.code, res.stderr)
	}
	ls := streamLines(t, res.stdout)
	var started, completed int
	session := ""
	for _, l := range ls {
		if session == "" {
			session, _ = l["session_id"].(string)
		}
		if l["session_id"] != session {
			t.Errorf("line of another session: %v", l)
		}
		switch l["type"] {
		case "session.started":
			started++
		case "session.completed":
			completed++
		}
	}
	if started != 2 || completed != 2 {
		t.Errorf("%d session.started and %d session.completed lines, want 2 each", started, completed)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	want := []string{"user:My name is Ann.", "assistant:Hello, Ann.", "user:What is my name?"}
	if diff := cmp.Diff(want, historyTexts(t, reqs[1].Body)); diff != "" {
		t.Errorf("second turn's history (-want +got):\n%s", diff)
	}
}

func TestStreamJSONInputErrors(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("one")))
	e := newEnv(t)
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"needs stream-json output", "", []string{"--input-format", "stream-json"}, "needs --output-format stream-json"},
		{"no prompt argument", "", []string{"--input-format", "stream-json", "--output-format", "stream-json", "hi"}, "give no PROMPT"},
		{"bad format", "", []string{"--input-format", "xml", "--output-format", "stream-json"}, "--input-format must be text or stream-json"},
		{"empty stdin", "", []string{"--input-format", "stream-json", "--output-format", "stream-json"}, "no user message on stdin"},
		{"bad second line", `{"type":"user","message":{"role":"user","content":"hi"}}` + "\nnot json\n",
			[]string{"--input-format", "stream-json", "--output-format", "stream-json"}, "stdin line 2: not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.invoke(tt.stdin).run(t, append([]string{"run", "-e", srv.URL}, tt.args...)...)
			if res.code != 2 || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("exit %d stderr %q, want 2 and %q", res.code, res.stderr, tt.want)
			}
		})
	}
}
