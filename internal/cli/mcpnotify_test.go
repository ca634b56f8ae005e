package cli_test

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// TestChatServerNotifications: against server-everything, /mcp log sets
// the level shown and told to the server, /mcp subscribe makes a changed
// resource show in the chat (naming the tool that reads it again), and
// /mcp complete lists a prompt argument's values, narrowed by an earlier
// answer; the model is told of the change with the next message.
func TestChatServerNotifications(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, everythingConfig(t, true))
	const uri = "demo://resource/static/document/architecture.md"
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "everything__toggle-subscriber-updates", `{}`)),
		sse(textBody("Updates are on.")),
		sse(textBody("It changed.")),
	)
	input := strings.Join([]string{
		"/mcp log",
		"/mcp log loud",
		"/mcp log info",
		"/mcp subscribe everything " + uri,
		"/mcp complete everything completable-prompt department En",
		`/mcp complete everything completable-prompt name {"department":"Sales"}`,
		"/mcp complete everything",
		"/prompt everything completable-prompt",
		"turn the updates on",
		"what changed?",
	}, "\n") + "\n"
	res := e.invoke(input).run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"Server log messages shown: warning",
		`rein: /mcp log: unknown level "loud"`,
		"Showing server log messages of level info and above.",
		"Subscribed to " + uri + " of everything",
		"[everything info] Received Subscribe Resource request for URI: " + uri,
		"Suggestions for department of completable-prompt:\n  Engineering\n",
		"Suggestions for name of completable-prompt:\n  David\n  Eve\n  Frank\n",
		"rein: /mcp complete: usage: /mcp complete SERVER PROMPT ARGUMENT",
		`the prompt completable-prompt needs the argument department, name: /prompt everything completable-prompt {"department":"…"} (suggested for department: Engineering, Sales, Marketing, Support)`,
		"rein: MCP server everything says " + uri + " changed (the model can read it again with everything__read_resource)",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	// The model hears of the change with the next message, once.
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	note := "[MCP server everything says the resource " + uri + " changed; read it again with everything__read_resource if it matters]\n\nwhat changed?"
	texts := historyTexts(t, reqs[2].Body)
	if last := texts[len(texts)-1]; last != "user:"+note {
		t.Errorf("the last message = %q, want %q", last, "user:"+note)
	}
	if strings.Contains(strings.Join(historyTexts(t, reqs[1].Body), "\n"), "changed;") {
		t.Error("the change was told before it happened")
	}
}

// TestRunServerLogEvents: in stream-json a server's log messages are
// mcp.log events whatever their level, and a text run shows none.
func TestRunServerLogEvents(t *testing.T) {
	for _, format := range []string{"stream-json", "text"} {
		t.Run(format, func(t *testing.T) {
			e := newEnv(t)
			e.writeUserConfig(t, everythingConfig(t, true))
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "everything__toggle-simulated-logging", `{}`)),
				sse(textBody("Logging is on.")),
			)
			res := e.run(t, "run", "-e", srv.URL, "--output-format", format, "turn logging on")
			if res.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
			}
			events := strings.Contains(res.stdout, `"type":"mcp.log"`) && strings.Contains(res.stdout, `"server":"everything"`)
			if (format == "stream-json") != events {
				t.Errorf("mcp.log events in %s output: %v; stdout:\n%s", format, events, res.stdout)
			}
			if strings.Contains(res.stderr, "[everything ") {
				t.Errorf("a log message was shown on stderr:\n%s", res.stderr)
			}
		})
	}
}
