package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// listerSkill writes a skill.json skill "lister" into dir whose MCP
// server "files" is rein itself (rein mcp serve, a real stdio MCP server)
// serving list_dir over served, hermetic: its own config and state. A
// user skill's server lives outside the workspace (the test's temporary
// directory, which the sandbox's private /tmp hides), so it opts out of
// the sandbox ("sandbox": false, honoured for a user skill whose files
// all lie outside the workspace).
func listerSkill(t *testing.T, e *env, dir, served string) {
	t.Helper()
	writeLister(t, dir, reinBinary(t), served, filepath.Join(e.home, ".config", "rein", "config.toml"), filepath.Join(e.home, "server-state"), true)
}

// projectListerSkill is listerSkill for a workspace skill: its server runs
// in the sandbox, so the binary, the served folder, the server's config
// and state all live in the workspace.
func projectListerSkill(t *testing.T, e *env) {
	t.Helper()
	bin := filepath.Join(e.workspace, "bin", "rein")
	data, err := os.ReadFile(reinBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, e.workspace, map[string]string{"served/marker-file.txt": "x", "srv/config.toml": "[model]\ncontext_window = 32768\n", "bin/.keep": ""})
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	writeLister(t, filepath.Join(e.workspace, ".rein", "skills"), bin, filepath.Join(e.workspace, "served"),
		filepath.Join(e.workspace, "srv", "config.toml"), filepath.Join(e.workspace, "srv", "state"), false)
}

func writeLister(t *testing.T, dir, bin, served, config, state string, unconfined bool) {
	t.Helper()
	args, _ := json.Marshal([]string{"mcp", "serve", "--tools", "list_dir", "-C", served, "--config", config, "--state-dir", state})
	extra := ""
	if unconfined {
		extra = `,"sandbox":false`
	}
	manifest := fmt.Sprintf(`{"name":"lister","description":"Lists folders.","system_prompt_file":"prompt.md",
		"mcp_servers":{"files":{"command":%q,"args":%s%s}}}`, bin, args, extra)
	writeFiles(t, filepath.Join(dir, "lister"), map[string]string{"skill.json": manifest, "prompt.md": "List with files__list_dir."})
}

// TestRunSkillStartsMCPServers: rein run --skill activates a skill whose
// skill.json binds an MCP server: the server starts, the model is offered
// its tool, a call of it reaches the server, and the next run without the
// skill offers it no more.
func TestRunSkillStartsMCPServers(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[[policy.tools]]\nname = \"files__*\"\naction = \"allow\"\n")
	served := t.TempDir()
	writeFiles(t, served, map[string]string{"marker-file.txt": "x"})
	listerSkill(t, e, filepath.Join(e.home, ".config", "rein", "skills"), served)

	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "files__list_dir", `{"path":"."}`)),
		sse(textBody("It holds marker-file.txt.")),
		sse(textBody("no skill")),
	)
	res := e.run(t, "run", "-e", srv.URL, "--skill", "lister", "what is there?")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
	reqs := srv.Requests()
	if !slices.Contains(offeredTools(t, reqs[0].Body), "files__list_dir") {
		t.Fatalf("the skill's server tool was not offered: %v\nstderr: %s", offeredTools(t, reqs[0].Body), res.stderr)
	}
	if got := toolResults(t, reqs[1].Body)["c1"]; !strings.Contains(got, "marker-file.txt") {
		t.Errorf("files__list_dir returned %q; want the served folder's listing", got)
	}
	if !strings.Contains(string(reqs[0].Body), "# Skill: lister") {
		t.Error("the skill's section is not in the system prompt")
	}

	res = e.run(t, "run", "-e", srv.URL, "hello")
	if res.code != 0 {
		t.Fatalf("second run: exit %d\nstderr: %s", res.code, res.stderr)
	}
	if got := offeredTools(t, srv.Requests()[2].Body); slices.Contains(got, "files__list_dir") {
		t.Errorf("a run without the skill was offered its server's tool: %v", got)
	}
}

// TestProjectSkillServersNeedTrust: the servers of a workspace skill are
// a repository's commands: activating the skill does not start them until
// the user ran rein mcp trust SKILL/SERVER, and the warning says so.
func TestProjectSkillServersNeedTrust(t *testing.T) {
	e := newEnv(t)
	projectListerSkill(t, e)
	srv := modeltest.NewServer(t, sse(textBody("one")), sse(textBody("two")))

	res := e.run(t, "run", "-e", srv.URL, "--skill", "lister", "go")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
	}
	if got := offeredTools(t, srv.Requests()[0].Body); slices.Contains(got, "files__list_dir") {
		t.Errorf("an untrusted project skill's server was started: offered %v", got)
	}
	if !strings.Contains(res.stderr, "MCP server lister/files") || !strings.Contains(res.stderr, "rein mcp trust lister/files") ||
		strings.Count(res.stderr, "lister/files") != 2 {
		t.Errorf("stderr lacks one warning naming rein mcp trust lister/files:\n%s", res.stderr)
	}
	if !strings.Contains(string(srv.Requests()[0].Body), "# Skill: lister") {
		t.Error("the skill was not activated without its server")
	}

	list := e.run(t, "mcp", "trust")
	if !strings.Contains(list.stdout, "lister/files\tnot trusted\truns ") {
		t.Errorf("rein mcp trust does not list the skill's server: %q %q", list.stdout, list.stderr)
	}
	if tr := e.run(t, "mcp", "trust", "lister/files"); tr.code != 0 || !strings.Contains(tr.stdout, "trusted lister/files") {
		t.Fatalf("rein mcp trust lister/files: exit %d %q %q", tr.code, tr.stdout, tr.stderr)
	}
	res = e.run(t, "run", "-e", srv.URL, "--skill", "lister", "go")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
	}
	if got := offeredTools(t, srv.Requests()[1].Body); !slices.Contains(got, "files__list_dir") {
		t.Errorf("the trusted skill server's tool was not offered: %v\nstderr: %s", got, res.stderr)
	}
	if strings.Contains(res.stderr, "not started") {
		t.Errorf("a trusted server was warned about:\n%s", res.stderr)
	}
}

// TestChatSkillStartsMCPServers: /NAME ARGS in chat starts the skill's
// server for that turn only: the turn is offered its tool, the next plain
// message is not.
func TestChatSkillStartsMCPServers(t *testing.T) {
	e := newEnv(t)
	served := t.TempDir()
	listerSkill(t, e, filepath.Join(e.home, ".config", "rein", "skills"), served)
	srv := modeltest.NewServer(t, sse(textBody("listed")), sse(textBody("plain")))
	res := e.invoke("/lister look around\nplain\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2; stderr:\n%s", len(reqs), res.stderr)
	}
	if got := offeredTools(t, reqs[0].Body); !slices.Contains(got, "files__list_dir") {
		t.Errorf("the /lister turn was not offered the server's tool: %v\nstderr: %s", got, res.stderr)
	}
	if got := offeredTools(t, reqs[1].Body); slices.Contains(got, "files__list_dir") {
		t.Errorf("the next turn was still offered the server's tool: %v", got)
	}
}
