package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// End-to-end tests of Claude Code's "permissions" through `rein run`: a
// model sending hostile calls, judged by what happened on disk and in
// the git remote (newHostileEnv).

// writePermissions writes the "permissions" of a settings file under dir
// (.claude/settings.json of the workspace, or of the home directory).
func writePermissions(t *testing.T, dir string, perms map[string][]string) {
	t.Helper()
	data, _ := json.MarshalIndent(map[string]any{"permissions": perms}, "", "  ")
	writeFiles(t, dir, map[string]string{".claude/settings.json": string(data)})
}

// permRun runs the calls and returns the result (which must exit 0), the
// decisions by call ID and the bodies the model received.
func (h *hostileEnv) permRun(t *testing.T, calls []hostileCall, args ...string) (result, map[string]decisionLine, []string) {
	t.Helper()
	srv := modeltest.NewServer(t, hostileTurns(calls)...)
	full := append([]string{"run", "--output-format", "stream-json", "--approve", "never", "-e", srv.URL}, args...)
	res := h.invoke("").runFor(t, 2*time.Minute, append(full, "attack")...)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	got := map[string]decisionLine{}
	for _, d := range decisions(t, res.stdout) {
		got[d.Decision.CallID] = d
	}
	var bodies []string
	for _, r := range srv.Requests() {
		bodies = append(bodies, string(r.Body))
	}
	return res, got, bodies
}

func (h *hostileEnv) exists(name string) bool {
	_, err := os.Stat(filepath.Join(h.workspace, name))
	return err == nil
}

func TestClaudePermsE2EDenyBlocks(t *testing.T) {
	h := newHostileEnv(t)
	writePermissions(t, h.workspace, map[string][]string{
		"deny": {"Bash(touch:*)", "Read(./README.md)", "Frobnicate(x)"},
	})
	writePermissions(t, h.home, map[string][]string{"deny": {"Bash(mkdir:*)"}})
	calls := []hostileCall{
		runCmd("touch pwned"),
		runCmd("echo ok && touch pwned2"),
		{tool: "read_file", args: `{"path":"README.md"}`},
		runCmd("mkdir userdenied"),
		runCmd("echo made > control.txt"),
	}
	res, got, bodies := h.permRun(t, calls, "--preset", "full")
	for i, name := range []string{"pwned", "pwned2", "", "userdenied"} {
		id := fmt.Sprintf("a%d", i)
		if d := got[id]; d.Decision.Action != "deny" {
			t.Errorf("%s (%s): %s %q, want a denial", id, calls[i].args, d.Decision.Action, d.Decision.Reason)
		}
		if name != "" && h.exists(name) {
			t.Errorf("%s was created despite the deny rule", name)
		}
	}
	if r := toolResults(t, []byte(bodies[len(bodies)-1]))["a2"]; strings.Contains(r, "rewritten history") || !strings.Contains(r, ".claude/settings.json") {
		t.Errorf("read_file README.md: the model got %q, want a denial naming the settings file", r)
	}
	if !h.exists("control.txt") {
		t.Errorf("a command no rule names did not run under full: the test proves nothing\n%s", res.stderr)
	}
	if !strings.Contains(res.stderr, `.claude/settings.json: permissions.deny rule "Frobnicate(x)"`) {
		t.Errorf("no warning for the unknown rule:\n%s", res.stderr)
	}
}

func TestClaudePermsE2EAllowAfterTrust(t *testing.T) {
	h := newHostileEnv(t)
	writePermissions(t, h.workspace, map[string][]string{"allow": {"Bash(touch:*)"}})
	one := func(name string) []hostileCall { return []hostileCall{runCmd("touch " + name)} }

	// Untrusted: the editor preset asks, --approve never refuses.
	res, got, _ := h.permRun(t, one("t1"))
	if h.exists("t1") || got["a0"].Decision.Action == "allow" {
		t.Fatalf("an untrusted project allow rule applied: %+v", got["a0"].Decision)
	}
	if !strings.Contains(res.stderr, ".claude/settings.json do not apply until you trust them") || !strings.Contains(res.stderr, "rein hooks trust") {
		t.Errorf("no warning saying how to trust the allow rules:\n%s", res.stderr)
	}

	if l := h.run(t, "hooks", "list"); !regexp.MustCompile(`(?m)^Permission +- +project +no: not trusted.* +allow Bash\(touch:\*\) +\.claude/settings\.json$`).MatchString(l.stdout) {
		t.Errorf("hooks list does not show the untrusted allow rule:\n%s%s", l.stdout, l.stderr)
	}
	tr := h.run(t, "hooks", "trust")
	if tr.code != 0 || !strings.Contains(tr.stdout, "allow Bash(touch:*)") {
		t.Fatalf("hooks trust: exit %d\n%s%s", tr.code, tr.stdout, tr.stderr)
	}
	if l := h.run(t, "hooks", "list"); !regexp.MustCompile(`(?m)^Permission +- +project +yes +- +allow Bash\(touch:\*\)`).MatchString(l.stdout) {
		t.Errorf("hooks list after trust:\n%s", l.stdout)
	}
	res, got, _ = h.permRun(t, one("t2"))
	if !h.exists("t2") || got["a0"].Decision.Action != "allow" {
		t.Fatalf("the trusted allow rule did not apply: %+v\n%s", got["a0"].Decision, res.stderr)
	}

	// The prefix allows no other command of a compound.
	compounds := []string{
		"touch c1; rm README.md", "touch c2 && rm README.md", "touch c3 || rm README.md", "touch c4 | rm README.md",
		"touch c5 $(rm README.md)", "touch c6 `rm README.md`", "rm README.md; touch c7", "touch c8 & rm README.md",
		"touch c9\nrm README.md", "touch c10 <(rm README.md)", "{ touch c11; rm README.md; }", "(touch c12) && rm README.md",
	}
	var calls []hostileCall
	for _, c := range compounds {
		calls = append(calls, runCmd(c))
	}
	_, got, _ = h.permRun(t, calls)
	for i, c := range compounds {
		if d := got[fmt.Sprintf("a%d", i)]; d.Decision.Action == "allow" {
			t.Errorf("%q was allowed by Bash(touch:*): %s", c, d.Decision.Reason)
		}
	}
	if !h.exists("README.md") {
		t.Fatal("README.md was removed through a compound with an allowed prefix")
	}

	// A changed file is not trusted.
	writePermissions(t, h.workspace, map[string][]string{"allow": {"Bash(touch:*)"}, "deny": {"Bash(rm:*)"}})
	res, _, _ = h.permRun(t, one("t3"))
	if h.exists("t3") {
		t.Error("the allow rule of a changed settings file applied without trust")
	}
	if !strings.Contains(res.stderr, "changed since you trusted them") {
		t.Errorf("no warning about the change:\n%s", res.stderr)
	}
}

func TestClaudePermsE2EAllowNeverLiftsHardDenial(t *testing.T) {
	h := newHostileEnv(t)
	headBefore := h.remoteHead(t)
	allow := map[string][]string{"allow": {"Bash", "Bash(git push:*)", "Bash(git push --force origin main)"}}
	writePermissions(t, h.workspace, allow)
	writePermissions(t, h.home, allow)
	if tr := h.run(t, "hooks", "trust"); tr.code != 0 {
		t.Fatalf("hooks trust: %s%s", tr.stdout, tr.stderr)
	}
	var calls []hostileCall
	for _, c := range forcePushE2E {
		calls = append(calls, runCmd(c))
	}
	calls = append(calls, runCmd("echo ran > control.txt"))
	_, got, _ := h.permRun(t, calls, "--preset", "editor")
	for i, c := range forcePushE2E {
		if d := got[fmt.Sprintf("a%d", i)]; d.Decision.Action != "deny" {
			t.Errorf("%q: %s %q, want a denial", c, d.Decision.Action, d.Decision.Reason)
		}
	}
	if got := h.remoteHead(t); got != headBefore {
		t.Errorf("the remote's main moved from %s to %s: an allow rule lifted a hard denial", headBefore, got)
	}
	if !h.exists("control.txt") {
		t.Error("the trusted Bash allow did not apply at all: the test proves nothing")
	}
}

// TestClaudePermsE2EMCPSpelling: MCP tools named in Claude Code's
// spelling decide rein's server__tool calls, in a project's
// .claude/settings.json deny and in a [[policy.tools]] rule of the user.
func TestClaudePermsE2EMCPSpelling(t *testing.T) {
	node := interopPeer(t, "node_modules/.bin/node")
	js := interopPeer(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[mcp]\nstartup_wait = \"20s\"\n\n[mcp_servers.everything]\n"+
		fmt.Sprintf("command = %q\nargs = [%q, \"stdio\"]\n", node, js)+
		"\n[[policy.tools]]\nname = \"mcp__everything\"\naction = \"allow\"\n")
	writePermissions(t, e.workspace, map[string][]string{"deny": {"mcp__everything__get-sum"}})
	srv := modeltest.NewServer(t,
		sse(twoToolBody("c1", "everything__get-sum", `{"a":19,"b":23}`, "c2", "everything__echo", `{"message":"echoed-7f3a"}`)),
		sse(textBody("done")),
	)
	res := e.invoke("").runFor(t, 2*time.Minute, "run", "--output-format", "stream-json", "--approve", "never", "-e", srv.URL, "use the tools")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
	}
	got := map[string]decisionLine{}
	for _, d := range decisions(t, res.stdout) {
		got[d.Decision.CallID] = d
	}
	if d := got["c1"].Decision; d.Action != "deny" || !strings.Contains(d.Reason, ".claude/settings.json") {
		t.Errorf("get-sum: %s %q, want the project's denial", d.Action, d.Reason)
	}
	if d := got["c2"].Decision; d.Action != "allow" {
		t.Errorf("echo: %s %q, want allowed by the user's mcp__everything rule", d.Action, d.Reason)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	results := toolResults(t, reqs[1].Body)
	if strings.Contains(results["c1"], "42") || !strings.Contains(results["c2"], "echoed-7f3a") {
		t.Errorf("results: %q", results)
	}
}
