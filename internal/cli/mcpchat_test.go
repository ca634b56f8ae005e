package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/internal/cli"
	"github.com/reinharness/rein/model/modeltest"
)

// everythingConfig configures server-everything over stdio; allow lets
// its tools run without an approval.
func everythingConfig(t *testing.T, allow bool) string {
	t.Helper()
	node := interopPeer(t, "node_modules/.bin/node")
	js := interopPeer(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	// A chat does not wait for its servers unless told to: these tests
	// type at once and need the server's tools in the first request.
	cfg := fmt.Sprintf("[model]\ncontext_window = 32768\n\n[mcp]\nstartup_wait = \"30s\"\n\n[mcp_servers.everything]\ncommand = %q\nargs = [%q, \"stdio\"]\n", node, js)
	if allow {
		cfg += "\n[[policy.tools]]\nname = \"everything__*\"\naction = \"allow\"\n"
	}
	return cfg
}

// terminal is a chat on a simulated terminal: the test types lines into
// its stdin pipe as the prompts it waits for appear on stderr.
type terminal struct {
	t              *testing.T
	lines          chan string
	stdout, stderr *syncBuffer
	done           chan result
	interrupts     chan os.Signal
	// seen is how much of stderr earlier expectations consumed.
	seen int
}

func (e *env) startTerminal(t *testing.T, args ...string) *terminal {
	t.Helper()
	pr, pw := io.Pipe()
	term := &terminal{
		t: t, lines: make(chan string, 64), stdout: &syncBuffer{}, stderr: &syncBuffer{},
		done: make(chan result, 1), interrupts: make(chan os.Signal, 2),
	}
	go func() {
		defer pw.Close()
		for l := range term.lines {
			if _, err := io.WriteString(pw, l+"\n"); err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	app := &cli.App{
		Stdin: pr, Stdout: term.stdout, Stderr: term.stderr,
		Getenv:     func(k string) string { return e.vars[k] },
		Getwd:      func() (string, error) { return e.workspace, nil },
		IsTerminal: func() bool { return true },
		Interrupts: term.interrupts,
	}
	go func() {
		defer cancel()
		code := app.Run(ctx, args)
		pr.Close() // unblock the typist if the session ended first
		term.done <- result{code: code, stdout: term.stdout.String(), stderr: term.stderr.String()}
	}()
	return term
}

// send types lines.
func (term *terminal) send(lines ...string) {
	for _, l := range lines {
		term.lines <- l
	}
}

// expect waits until re matches stderr after what earlier expectations
// consumed, consumes up to the end of the match and returns its groups.
func (term *terminal) expect(re *regexp.Regexp) []string {
	term.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		rest := term.stderr.String()[term.seen:]
		if loc := re.FindStringSubmatchIndex(rest); loc != nil {
			var m []string
			for i := 0; i < len(loc); i += 2 {
				if loc[i] >= 0 {
					m = append(m, rest[loc[i]:loc[i+1]])
				} else {
					m = append(m, "")
				}
			}
			term.seen += loc[1]
			return m
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("timed out waiting for stderr to match %q after:\n%s\nstderr so far:\n%s", re, rest, term.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// expectText is expect for a literal.
func (term *terminal) expectText(s string) {
	term.t.Helper()
	term.expect(regexp.MustCompile(regexp.QuoteMeta(s)))
}

// expectAnswer waits until the model's answer text appears on stdout.
func (term *terminal) expectAnswer(s string) {
	term.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(term.stdout.String(), s) {
		if time.Now().After(deadline) {
			term.t.Fatalf("timed out waiting for stdout to show %q; stdout:\n%s\nstderr:\n%s", s, term.stdout.String(), term.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// finish ends the input and waits for the session to end.
func (term *terminal) finish() result {
	term.t.Helper()
	close(term.lines)
	select {
	case res := <-term.done:
		return res
	case <-time.After(90 * time.Second):
		term.t.Fatalf("the chat did not end; stderr:\n%s", term.stderr.String())
	}
	return result{}
}

// everythingFormAnswers answer server-everything's elicitation form,
// field by field; some first answers do not fit and are asked again.
var everythingFormAnswers = map[string][]string{
	"name":                       {"", "Ann Example"}, // required
	"check":                      {"y"},
	"firstLine":                  {""}, // its default
	"email":                      {"ann@", "ann@example.com"},
	"homepage":                   {""}, // optional: skipped
	"birthdate":                  {"31/12/1990", "1990-12-31"},
	"integer":                    {"500", "7"},
	"number":                     {""}, // its default, 3.14
	"untitledSingleSelectEnum":   {"Joey"},
	"untitledMultipleSelectEnum": {"piano, Drums"},
	"titledSingleSelectEnum":     {"2"},
	"titledMultipleSelectEnum":   {"1, Trout"},
	"legacyTitledEnum":           {"Dogs"},
}

// TestChatElicitationAccepted: a server's form is asked at the terminal
// field by field, answers that do not fit are asked again, and the typed
// values reach the server, which reports them to the model.
func TestChatElicitationAccepted(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, everythingConfig(t, true))
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "everything__trigger-elicitation-request", `{}`)),
		sse(textBody("Thanks, Ann.")),
	)
	term := e.startTerminal(t, "chat", "-e", srv.URL)
	term.send("collect my details")
	term.expectText("MCP server everything asks:\n  Please provide inputs for the following fields:\n")
	field := regexp.MustCompile(`• [^\n]*?\((\w+)\)[^\n]*\n|Send them to everything\? \[Y/n\]: `)
	asked := map[string]bool{}
	for range len(everythingFormAnswers) + 1 {
		m := term.expect(field)
		if m[1] == "" {
			break // the confirmation
		}
		answers, ok := everythingFormAnswers[m[1]]
		if !ok || asked[m[1]] {
			t.Fatalf("unexpected field %q; stderr:\n%s", m[1], term.stderr.String())
		}
		asked[m[1]] = true
		term.send(answers...)
	}
	if len(asked) != len(everythingFormAnswers) {
		t.Fatalf("asked %d fields, want %d; stderr:\n%s", len(asked), len(everythingFormAnswers), term.stderr.String())
	}
	term.send("")
	term.expectAnswer("Thanks, Ann.")
	res := term.finish()
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"this field is required (or /decline, /cancel)",
		"enter an email address",
		"enter a date as YYYY-MM-DD",
		"enter a number 1–100",
		"    2) Green Lantern [hero-2]",
		"  Integer (integer): 7\n",
		"  Legacy Titled Single Select Enum (legacyTitledEnum): Dogs\n",
		"  Untitled Multiple Select Enum (untitledMultipleSelectEnum): Piano, Drums\n",
		"Enter for Superman: ",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	got := toolResults(t, reqs[1].Body)["c1"]
	for _, want := range []string{
		"User provided the requested information", "- Name: Ann Example", "- Agreed to terms: true",
		"- Email: ann@example.com", "- Birthdate: 1990-12-31", "- Favorite Integer: 7", "- Favorite Number: 3.14",
		`"firstLine": "It was a dark and stormy night."`, `"untitledSingleSelectEnum": "Joey"`,
		`"Piano"`, `"Drums"`, `"titledSingleSelectEnum": "hero-2"`, `"fish-1"`, `"fish-3"`, `"legacyTitledEnum": "pet-2"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the server's result lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "homepage") {
		t.Errorf("the skipped optional field was sent:\n%s", got)
	}
}

// TestChatElicitationRefused: /decline and /cancel at a field answer the
// server so. Without an allow rule the call is approved first, through
// the same input: the approval and the form do not get in each other's
// way.
func TestChatElicitationRefused(t *testing.T) {
	tests := []struct {
		answer, want string
		approve      bool
	}{
		{"/decline", "User declined to provide the requested information", true},
		{"/cancel", "User cancelled the elicitation dialog", false},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			e := newEnv(t)
			e.writeUserConfig(t, everythingConfig(t, !tt.approve))
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "everything__trigger-elicitation-request", `{}`)),
				sse(textBody("Understood.")),
			)
			term := e.startTerminal(t, "chat", "-e", srv.URL)
			term.send("collect my details")
			if tt.approve {
				term.expectText("rein wants to run everything__trigger-elicitation-request")
				term.expectText("Allow? ")
				term.send("y")
			}
			term.expectText("(Answer each field; /decline or /cancel at any prompt.)")
			term.send(tt.answer)
			term.expectAnswer("Understood.")
			res := term.finish()
			if res.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2", len(reqs))
			}
			if got := toolResults(t, reqs[1].Body)["c1"]; !strings.Contains(got, tt.want) {
				t.Errorf("the server's result = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestChatInterruptDuringElicitation: Ctrl-C while a form is open cancels
// the turn and the question (server-everything does not withdraw it
// itself), and the next line typed is a chat message again, not an
// answer to the abandoned form.
func TestChatInterruptDuringElicitation(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, everythingConfig(t, true))
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "everything__trigger-elicitation-request", `{}`)),
		sse(textBody("Hello again.")),
	)
	term := e.startTerminal(t, "chat", "-e", srv.URL)
	term.send("collect my details")
	term.expectText("(Answer each field; /decline or /cancel at any prompt.)")
	term.expectText("Enter to skip: ")
	term.interrupts <- os.Interrupt
	term.expectText("(the turn ended before the question was answered; it is cancelled)")
	term.expectText("^C turn cancelled")
	term.send("hello")
	term.expectAnswer("Hello again.")
	res := term.finish()
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	hist := historyTexts(t, reqs[1].Body)
	if len(hist) == 0 || hist[len(hist)-1] != "user:hello" {
		t.Errorf("the line after Ctrl-C did not reach the model as a message: %q", hist)
	}
}

// TestChatSampling: a server's sampling request is shown and, once
// approved, answered by rein's own model (the same fake server, which
// checks the request it gets); refused, the server hears so.
func TestChatSampling(t *testing.T) {
	args := `{"prompt":"What is MCP?","maxTokens":64}`
	t.Run("approved", func(t *testing.T) {
		e := newEnv(t)
		e.writeUserConfig(t, everythingConfig(t, true))
		srv := modeltest.NewServer(t,
			sse(toolBody("c1", "everything__trigger-sampling-request", args)),
			sse(textBody("MCP is the Model Context Protocol.")),
			sse(textBody("The server got its answer.")),
		)
		term := e.startTerminal(t, "chat", "-e", srv.URL, "-m", "test-model")
		term.send("sample please")
		term.expectText("MCP server everything asks rein's model for a completion (at most 64 tokens):\n")
		term.expectText("  system: You are a helpful test server.\n  user: Resource trigger-sampling-request context: What is MCP?\n")
		term.expectText("Let the model answer? [y/N]: ")
		term.send("y")
		term.expectAnswer("The server got its answer.")
		res := term.finish()
		if res.code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("the model got %d requests, want 3", len(reqs))
		}
		sampling := requestJSON(t, reqs[1].Body)
		if sampling["max_tokens"] != 64.0 || sampling["temperature"] != 0.7 || sampling["model"] != "test-model" || sampling["tools"] != nil {
			t.Errorf("sampling request: max_tokens %v, temperature %v, model %v, tools %v", sampling["max_tokens"], sampling["temperature"], sampling["model"], sampling["tools"])
		}
		want := []string{"system:You are a helpful test server.", "user:Resource trigger-sampling-request context: What is MCP?"}
		if got := messageTexts(t, reqs[1].Body); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("sampling messages = %q, want %q", got, want)
		}
		got := toolResults(t, reqs[2].Body)["c1"]
		for _, w := range []string{"MCP is the Model Context Protocol.", `"model": "test-model"`, `"stopReason": "endTurn"`} {
			if !strings.Contains(got, w) {
				t.Errorf("the server's result lacks %q:\n%s", w, got)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		e := newEnv(t)
		e.writeUserConfig(t, everythingConfig(t, true))
		srv := modeltest.NewServer(t,
			sse(toolBody("c1", "everything__trigger-sampling-request", args)),
			sse(textBody("The user said no.")),
		)
		term := e.startTerminal(t, "chat", "-e", srv.URL)
		term.send("sample please")
		term.expectText("Let the model answer? [y/N]: ")
		term.send("n")
		term.expectAnswer("The user said no.")
		res := term.finish()
		if res.code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("the model got %d requests, want 2 (no sampling call)", len(reqs))
		}
		if got := toolResults(t, reqs[1].Body)["c1"]; !strings.Contains(got, "rejected") {
			t.Errorf("the server's result = %q, want the rejection", got)
		}
	})
}

// TestChatPromptCommand: /mcp shows the server, /prompt lists the
// prompts of server-everything, explains mistakes, and sends a filled-in
// prompt as the next message.
func TestChatPromptCommand(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, everythingConfig(t, false))
	srv := modeltest.NewServer(t, sse(textBody("It is sunny in Oslo.")))
	input := strings.Join([]string{
		"/mcp",
		"/prompt",
		"/prompt nosuch simple-prompt",
		"/prompt everything nope",
		"/prompt everything args-prompt",
		`/prompt everything args-prompt {"city":`,
		`/prompt everything args-prompt {"city":"Oslo"}`,
	}, "\n") + "\n"
	res := e.invoke(input).run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"everything: connected over stdio, protocol 20",
		"everything:\n",
		"  simple-prompt — A prompt with no arguments\n",
		"  args-prompt — A prompt with two arguments, one required and one optional\n      city (required): Name of the city\n      state\n",
		`rein: /prompt: unknown MCP server: "nosuch"; configured: everything`,
		`rein: /prompt: MCP server everything has no prompt "nope"; it offers: `,
		`rein: /prompt: the prompt args-prompt needs the argument city: /prompt everything args-prompt {"city":"…"}`,
		"rein: the prompt's arguments must be one JSON object of strings",
		"(sending the prompt args-prompt of everything as your message)",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1", len(reqs))
	}
	want := "user:[Prompt \"args-prompt\" from MCP server everything]\n\nWhat's weather in Oslo?"
	if got := historyTexts(t, reqs[0].Body); len(got) != 1 || got[0] != want {
		t.Errorf("the model got %q, want %q", got, want)
	}
	if res.stdout != "It is sunny in Oslo.\n" {
		t.Errorf("stdout = %q", res.stdout)
	}
}

// TestRunShowsProgress: the progress notifications of a long-running MCP
// tool become compact stderr lines in text output (run and chat) and
// tool.progress objects in stream-json.
func TestRunShowsProgress(t *testing.T) {
	const tool = "everything__trigger-long-running-operation"
	for _, format := range []string{"text", "stream-json", "chat"} {
		t.Run(format, func(t *testing.T) {
			e := newEnv(t)
			e.writeUserConfig(t, everythingConfig(t, true))
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", tool, `{"duration":1.5,"steps":3}`)),
				// The answer waits a little, so a notification handled just
				// after the call's result still falls within the run.
				modeltest.Stall(textBody("Done."), 0, 300*time.Millisecond),
			)
			var res result
			if format == "chat" {
				res = e.invoke("run the long operation\n").run(t, "chat", "-e", srv.URL)
			} else {
				res = e.run(t, "run", "--output-format", format, "-e", srv.URL, "run the long operation")
			}
			if res.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
			}
			var shown []string
			if format != "stream-json" {
				for _, l := range lines(res.stderr) {
					if strings.HasPrefix(l, "… ") {
						shown = append(shown, l)
					}
				}
			} else {
				shown = progressObjects(t, res.stdout, tool)
			}
			if len(shown) < 2 || len(shown) > 3 || !strings.HasSuffix(shown[0], "1/3") || !strings.HasSuffix(shown[len(shown)-1], "3/3") {
				t.Errorf("progress lines = %q, want 1/3 first and 3/3 last", shown)
			}
		})
	}
}

// progressObjects checks the stream's tool.progress objects and returns
// them as "tool progress/total" strings.
func progressObjects(t *testing.T, stdout, tool string) []string {
	t.Helper()
	var (
		out     []string
		session string
		called  bool
	)
	for _, l := range lines(stdout) {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("stream-json line is not JSON: %v\n%s", err, l)
		}
		switch ev["type"] {
		case "session.started":
			session, _ = ev["session_id"].(string)
		case "tool.call":
			called = true
		case "tool.progress":
			if !called || session == "" || ev["session_id"] != session || ev["tool"] != tool || ev["server"] != "everything" || ev["call_id"] != "c1" {
				t.Errorf("tool.progress out of place or incomplete (session %q): %s", session, l)
			}
			out = append(out, fmt.Sprintf("%s %v/%v", ev["tool"], ev["progress"], ev["total"]))
		}
	}
	return out
}

// TestHeadlessDeclinesServerQuestions: where nobody can answer — rein run,
// and chat without a terminal — elicitation is declined and sampling
// refused, without a prompt.
func TestHeadlessDeclinesServerQuestions(t *testing.T) {
	tests := []struct {
		name, tool, args, want string
		chat                   bool
	}{
		{"run elicitation", "everything__trigger-elicitation-request", `{}`, "User declined to provide the requested information", false},
		{"run sampling", "everything__trigger-sampling-request", `{"prompt":"hi"}`, "rejected", false},
		{"piped chat elicitation", "everything__trigger-elicitation-request", `{}`, "User declined to provide the requested information", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.writeUserConfig(t, everythingConfig(t, true))
			srv := modeltest.NewServer(t, sse(toolBody("c1", tt.tool, tt.args)), sse(textBody("ok")))
			var res result
			if tt.chat {
				res = e.invoke("go\n").run(t, "chat", "-e", srv.URL)
			} else {
				res = e.run(t, "run", "-e", srv.URL, "go")
			}
			if res.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
			}
			if strings.Contains(res.stderr, "MCP server everything asks") {
				t.Errorf("a headless session asked:\n%s", res.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2", len(reqs))
			}
			if got := toolResults(t, reqs[1].Body)["c1"]; !strings.Contains(got, tt.want) {
				t.Errorf("the server's result = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRunSampling: headless, a server's sampling request is declined
// unless its setting in the user's configuration is sampling = "allow":
// then rein's model answers it unasked, with a line on stderr.
func TestRunSampling(t *testing.T) {
	args := `{"prompt":"What is MCP?","maxTokens":64}`
	for _, tc := range []struct {
		name, setting string
		allowed       bool
	}{{"ask declines", "", false}, {"allow answers", "sampling = \"allow\"\n", true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			cfg := strings.Replace(everythingConfig(t, true), "\"stdio\"]\n", "\"stdio\"]\n"+tc.setting, 1)
			e.writeUserConfig(t, cfg)
			bodies := []modeltest.Step{sse(toolBody("c1", "everything__trigger-sampling-request", args))}
			if tc.allowed {
				bodies = append(bodies, sse(textBody("MCP is the Model Context Protocol.")))
			}
			bodies = append(bodies, sse(textBody("Done.")))
			srv := modeltest.NewServer(t, bodies...)
			res := e.run(t, "run", "-e", srv.URL, "-m", "test-model", "sample please")
			if res.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != len(bodies) {
				t.Fatalf("the model got %d requests, want %d\nstderr: %s", len(reqs), len(bodies), res.stderr)
			}
			got := toolResults(t, reqs[len(reqs)-1].Body)["c1"]
			note := strings.Contains(res.stderr, `MCP server everything: rein's model answers its sampling request (sampling = "allow", at most 64 tokens)`)
			if tc.allowed {
				if !strings.Contains(got, "MCP is the Model Context Protocol.") || !note {
					t.Errorf("allowed sampling: result %q, stderr:\n%s", got, res.stderr)
				}
				return
			}
			if !strings.Contains(got, "rejected") || note {
				t.Errorf("headless sampling was not declined: result %q, stderr:\n%s", got, res.stderr)
			}
		})
	}
}
