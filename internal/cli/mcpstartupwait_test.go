package cli_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// slowServerConfig is a user config with one MCP server, slow, that needs
// delay before it reads initialize (then it is `rein mcp serve` with
// read_file), and extra appended. The rein binary lives in the test's
// build directory under /tmp, which the sandbox's empty /tmp hides: the
// server runs as the user's own, outside the sandbox.
func slowServerConfig(t testing.TB, delay, extra string) string {
	return fmt.Sprintf("[model]\ncontext_window = 32768\n\n[mcp_servers.slow]\ncommand = \"sh\"\nargs = [\"-c\", %q]\nsandbox = false\n%s",
		"sleep "+delay+"; exec "+reinBinary(t)+" mcp serve --tools read_file", extra)
}

// TestRunWaitsForSlowServer: a stdio server that needs 3 s to answer
// initialize (under its default 10 s startup_timeout) is in the first
// model request of `rein run`, and nothing is reported about it.
func TestRunWaitsForSlowServer(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, slowServerConfig(t, "3", ""))
	m := newFirstRequestModel(t, 0, textBody("hello"))
	start := time.Now()
	p := e.start(t, "run", "--output-format", "stream-json", "-e", m.URL, "say hello")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, p.stdout, p.stderr)
	}
	reqs := m.requests()
	if len(reqs) == 0 || !strings.Contains(reqs[0], `"slow__read_file"`) {
		t.Fatalf("the first model request does not offer the slow server's tool (%d requests)\nstderr: %s", len(reqs), p.stderr)
	}
	if d := m.firstAt().Sub(start); d < 3*time.Second {
		t.Errorf("first model request %v after start, before the server could answer", d)
	}
	if strings.Contains(p.stderr.String(), "slow") || strings.Contains(p.stdout.String(), "mcp.connected") {
		t.Errorf("a server that connected in time was reported:\nstdout: %s\nstderr: %s", p.stdout, p.stderr)
	}
}

// TestRunReportsFailingServerOnce: a server that exits at once is
// reported once on stderr and once as an mcp.failed line, and the run
// goes on without it; marked required, it fails the run.
func TestRunReportsFailingServerOnce(t *testing.T) {
	const cfg = "[model]\ncontext_window = 32768\n\n[mcp_servers.broken]\ncommand = \"sh\"\nargs = [\"-c\", \"exit 7\"]\n"
	e := newEnv(t)
	e.writeUserConfig(t, cfg)
	m := newFirstRequestModel(t, 0, textBody("hello"))
	p := e.start(t, "run", "--output-format", "stream-json", "-e", m.URL, "say hello")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, p.stdout, p.stderr)
	}
	if n := strings.Count(p.stderr.String(), "MCP server broken"); n != 1 {
		t.Errorf("the failing server was reported %d times on stderr, want once:\n%s", n, p.stderr)
	}
	var failed []string
	for _, l := range lines(p.stdout.String()) {
		if strings.Contains(l, `"type":"mcp.failed"`) {
			failed = append(failed, l)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0], `"server":"broken"`) || !strings.Contains(failed[0], `"error":"`) {
		t.Errorf("mcp.failed lines: %q\nstdout: %s", failed, p.stdout)
	}
	if len(m.requests()) != 1 {
		t.Errorf("the model got %d requests, want 1", len(m.requests()))
	}

	e = newEnv(t)
	e.writeUserConfig(t, cfg+"required = true\n")
	res := e.run(t, "run", "-e", m.URL, "say hello")
	if res.code == 0 || !strings.Contains(res.stderr, "broken") {
		t.Errorf("a required server that fails: exit %d, stderr %q; want a failed run naming it", res.code, res.stderr)
	}
}

// TestStartupGraceStillRead: the old [mcp] startup_grace works as
// startup_wait, with a warning naming the new key.
func TestStartupGraceStillRead(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[mcp_servers.hung]\ncommand = \"sleep\"\nargs = [\"1000\"]\nstartup_timeout = \"30s\"\n\n[mcp]\nstartup_grace = \"0s\"\n")
	m := newFirstRequestModel(t, 0, textBody("hello"))
	reinBinary(t)
	start := time.Now()
	p := e.start(t, "run", "-e", m.URL, "say hello")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
	}
	if d := m.firstAt().Sub(start); d > 5*time.Second {
		t.Errorf("first model request %v after start: startup_grace = \"0s\" was not applied", d)
	}
	if !strings.Contains(p.stderr.String(), "mcp.startup_grace is deprecated; rename it startup_wait") {
		t.Errorf("no deprecation warning:\n%s", p.stderr)
	}
}

// TestChatStartsAtOnce: a chat does not wait for a hung server (its
// startup_timeout is 30 s) before its first model request, and shows a
// server that connects while it runs joining.
func TestChatStartsAtOnce(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, slowServerConfig(t, "1", "\n[mcp_servers.hung]\ncommand = \"sleep\"\nargs = [\"1000\"]\nstartup_timeout = \"30s\"\n"))
	m := newFirstRequestModel(t, 0, textBody("hello"))
	start := time.Now()
	term := e.startTerminal(t, "chat", "--no-tui", "-e", m.URL)
	term.send("say hello")
	term.expectAnswer("hello")
	if d := m.firstAt().Sub(start); d > 3*time.Second {
		t.Errorf("chat's first model request %v after start; it must not wait for the servers", d)
	}
	term.expectText("rein: MCP server slow connected; its 1 tool join from the next model call")
	res := term.finish()
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if strings.Contains(m.requests()[0], "hung__") {
		t.Errorf("the hung server's tools in the first request")
	}
}
