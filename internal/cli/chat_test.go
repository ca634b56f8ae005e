package cli_test

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// messageTexts returns role:content pairs of a recorded request.
func messageTexts(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	for _, m := range requestJSON(t, body)["messages"].([]any) {
		mm := m.(map[string]any)
		content, _ := mm["content"].(string)
		out = append(out, mm["role"].(string)+":"+content)
	}
	return out
}

// historyTexts is messageTexts without the system prompt: the
// conversation history a request carries.
func historyTexts(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	for _, m := range messageTexts(t, body) {
		if !strings.HasPrefix(m, "system:") {
			out = append(out, m)
		}
	}
	return out
}

func TestChatCarriesHistory(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("Hello, Ann.")), sse(textBody("Your name is Ann.")))
	e := newEnv(t)
	res := e.invoke("My name is Ann.\n\nWhat is my name?\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if res.stdout != "Hello, Ann.\nYour name is Ann.\n" {
		t.Errorf("stdout = %q, want both answers, one per line", res.stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	want := []string{"user:My name is Ann.", "assistant:Hello, Ann.", "user:What is my name?"}
	if diff := cmp.Diff(want, historyTexts(t, reqs[1].Body)); diff != "" {
		t.Errorf("second request messages (-want +got):\n%s", diff)
	}
	if res.stderr != "" {
		t.Errorf("stderr = %q, want nothing for a piped session", res.stderr)
	}
}

func TestChatCommands(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("one")), sse(textBody("two")))
	e := newEnv(t)
	input := strings.Join([]string{"/help", "first", "/usage", "/clear", "second", "/bogus", "/exit", "never sent"}, "\n") + "\n"
	res := e.invoke(input).run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if res.stdout != "one\ntwo\n" {
		t.Errorf("stdout = %q", res.stdout)
	}
	for _, want := range []string{"/clear  start a new conversation", "tokens used: 20 input, 1 output over 1 turn", "(new conversation)", "rein: unknown command /bogus; /help lists the commands"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2 (nothing after /exit)", len(reqs))
	}
	if diff := cmp.Diff([]string{"user:second"}, historyTexts(t, reqs[1].Body)); diff != "" {
		t.Errorf("after /clear the history should be fresh (-want +got):\n%s", diff)
	}
}

func TestChatShowsToolsAndContinuesAfterFailure(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "calculator", `{"expression":"3*3"}`)),
		sse(textBody("9")),
		modeltest.Status(400, nil, `{"error":{"message":"context too long","type":"invalid_request_error"}}`),
		sse(textBody("still here")),
	)
	e := newEnv(t)
	res := e.invoke("3*3?\nbreak\nagain\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Errorf("exit %d, want 0: the last turn succeeded; stderr:\n%s", res.code, res.stderr)
	}
	if res.stdout != "9\nstill here\n" {
		t.Errorf("stdout = %q", res.stdout)
	}
	want := []string{
		`→ calculator {"expression":"3*3"}`,
		`← 9`,
		"rein: the model server at " + srv.URL + " rejected the request (400 invalid_request_error: context too long); check --model and the request settings",
	}
	if diff := cmp.Diff(want, lines(res.stderr)); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

func TestChatExitCodeReflectsLastTurn(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Status(401, nil, `{"error":{"message":"no","code":"invalid_api_key"}}`))
	e := newEnv(t)
	res := e.invoke("hi\n").run(t, "chat", "-e", srv.URL)
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (the last turn failed)", res.code)
	}
}

// TestChatInterruptCancelsTurn interrupts a stalled turn: the turn ends,
// the conversation stays valid and the next line is a new turn.
func TestChatInterruptCancelsTurn(t *testing.T) {
	stalled := textBody("this never", " completes")
	srv := modeltest.NewServer(t,
		modeltest.Stall(stalled, len(stalled)/3, 30*time.Second),
		sse(textBody("second answer")),
	)
	e := newEnv(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	in := e.invoke("")
	done := make(chan result, 1)
	go func() { done <- in.runWithStdin(t, pr, "chat", "-e", srv.URL) }()
	if _, err := pw.WriteString("first\n"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first request", 10*time.Second, func() bool { return len(srv.Requests()) == 1 })
	time.Sleep(100 * time.Millisecond)
	in.interrupts <- os.Interrupt
	waitFor(t, "the cancellation notice", 10*time.Second, func() bool { return strings.Contains(in.stderr.String(), "^C turn cancelled") })
	// An interrupt at the prompt only prints a hint.
	in.interrupts <- os.Interrupt
	waitFor(t, "the hint", 10*time.Second, func() bool { return strings.Contains(in.stderr.String(), "(type /exit or press Ctrl-D to quit)") })
	if _, err := pw.WriteString("second\n"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second answer", 10*time.Second, func() bool { return strings.Contains(in.stdout.String(), "second answer") })
	pw.Close()
	var res result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("chat did not exit on EOF")
	}
	if res.code != 0 {
		t.Errorf("exit %d, want 0; stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	got := historyTexts(t, reqs[1].Body)
	if got[0] != "user:first" || got[len(got)-1] != "user:second" {
		t.Errorf("second request messages = %q, want the cancelled turn's input kept before the new one", got)
	}
}

func TestChatSIGTERMEnds(t *testing.T) {
	stalled := textBody("x")
	srv := modeltest.NewServer(t, modeltest.Stall(stalled, 10, 30*time.Second))
	e := newEnv(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	in := e.invoke("")
	done := make(chan result, 1)
	go func() { done <- in.runWithStdin(t, pr, "chat", "-e", srv.URL) }()
	pw.WriteString("go\n")
	waitFor(t, "the request", 10*time.Second, func() bool { return len(srv.Requests()) == 1 })
	in.interrupts <- syscall.SIGTERM
	select {
	case res := <-done:
		if res.code != 130 {
			t.Errorf("exit %d, want 130", res.code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("chat did not end on SIGTERM")
	}
}
