package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// profilesConfig is a user config with two profiles: ci runs a named
// model read-only, loose raises max_steps.
const profilesConfig = `[model]
context_window = 32768

[profiles.ci.model]
model = "ci-model"

[profiles.ci.policy]
preset = "read-only"

[profiles.ci.agent]
max_steps = 10
`

// writeCall is a write_file call creating out.txt.
func writeCall(t *testing.T, id string) modeltest.Step {
	return sse(toolBody(id, "write_file", mustJSONString(t, map[string]string{"path": "out.txt", "content": "hi\n"})))
}

// TestBinaryProfileSelectsModelAndPolicy: --profile ci sends the
// profile's model and denies the write its read-only preset forbids;
// REIN_PROFILE does the same; without a profile the write goes through.
func TestBinaryProfileSelectsModelAndPolicy(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, profilesConfig)
	out := filepath.Join(e.workspace, "out.txt")
	for _, tc := range []struct {
		name    string
		args    []string
		env     string
		profile bool
	}{
		{"flag", []string{"--profile", "ci"}, "", true},
		{"env", nil, "ci", true},
		{"none", nil, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(out)
			e.vars["REIN_PROFILE"] = tc.env
			srv := modeltest.NewServer(t, writeCall(t, "w1"), sse(textBody("done")))
			p := e.start(t, append(append([]string{"run", "-e", srv.URL}, tc.args...), "write out.txt")...)
			p.stdin.Close()
			if code := p.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			model, _ := requestJSON(t, reqs[0].Body)["model"].(string)
			_, statErr := os.Stat(out)
			if tc.profile {
				if model != "ci-model" {
					t.Errorf("model = %q, want the profile's ci-model", model)
				}
				if statErr == nil {
					t.Error("out.txt was written under the read-only profile")
				}
				if !strings.Contains(string(reqs[1].Body), "read-only") {
					t.Errorf("the write's result does not name the read-only preset:\n%s", reqs[1].Body)
				}
				return
			}
			if model == "ci-model" || statErr != nil {
				t.Errorf("without a profile: model %q, out.txt: %v", model, statErr)
			}
		})
	}
}

// TestBinaryUnknownProfile: a mistyped --profile is a usage error with
// the closest name; an unknown REIN_PROFILE fails naming the variable.
func TestBinaryUnknownProfile(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, profilesConfig)
	p := e.start(t, "run", "-e", "http://127.0.0.1:1", "--profile", "cj", "hi")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 2 || !strings.Contains(p.stderr.String(), `--profile cj: no such profile (did you mean "ci"?); the profiles are "ci"`) {
		t.Errorf("--profile cj: exit %d, stderr: %s", code, p.stderr)
	}
	e.vars["REIN_PROFILE"] = "nope"
	p = e.start(t, "run", "-e", "http://127.0.0.1:1", "hi")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 1 || !strings.Contains(p.stderr.String(), "REIN_PROFILE=nope: no such profile") {
		t.Errorf("REIN_PROFILE=nope: exit %d, stderr: %s", code, p.stderr)
	}
	// An unknown key inside a profile names the file, line and the key meant.
	e.vars["REIN_PROFILE"] = ""
	e.writeUserConfig(t, profilesConfig+"\n[profiles.ci.sandbox]\nmod = \"off\"\n")
	p = e.start(t, "run", "-e", "http://127.0.0.1:1", "--profile", "ci", "hi")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 1 || !strings.Contains(p.stderr.String(), `config.toml:14: unknown key "profiles.ci.sandbox.mod" in [profiles.ci.sandbox] (did you mean "mode"?)`) {
		t.Errorf("unknown key in a profile: exit %d, stderr: %s", code, p.stderr)
	}
}

// TestBinaryProjectProfileWideningRefused: a project's profile may
// tighten (max_steps 3 is taken), and one that would loosen the policy
// or a limit is refused naming what it tried; without --profile the
// project file runs as before.
func TestBinaryProjectProfileWideningRefused(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{".rein/config.toml": `[profiles.tight.agent]
max_steps = 3

[profiles.wide.policy]
preset = "full"

[profiles.more.agent]
max_steps = 500

[profiles.wr.sandbox]
writable = ["/tmp"]
`})
	srv := modeltest.NewServer(t, sse(textBody("done")))
	for _, tc := range []struct{ profile, want string }{
		{"wide", `the project's profile "wide" may only tighten, and would loosen: ` + filepath.Join(e.workspace, ".rein", "config.toml") + `: preset "full" ignored`},
		{"more", `config.toml:8: profiles.more.agent.max_steps = 500 would loosen a limit (in force: 50 from default)`},
		{"wr", `the project's profile "wr" may only tighten, and would loosen: ` + filepath.Join(e.workspace, ".rein", "config.toml") + `: sandbox.writable ignored`},
	} {
		p := e.start(t, "run", "-e", srv.URL, "--profile", tc.profile, "hi")
		p.stdin.Close()
		if code := p.wait(t, 30*time.Second); code != 1 || !strings.Contains(p.stderr.String(), tc.want) {
			t.Errorf("--profile %s: exit %d, stderr: %s\nwant: %s", tc.profile, code, p.stderr, tc.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests before the refusal, want 0", n)
	}
	res := e.run(t, "config", "show", "--profile", "tight")
	if res.code != 0 || !hasRow(res.stdout, "agent.max_steps", "3", "project-profile:tight") {
		t.Errorf("config show --profile tight: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// hasRow reports whether a `rein config show` table has a row with
// these leading cells.
func hasRow(table string, cells ...string) bool {
	for _, l := range lines(table) {
		if f := strings.Fields(l); len(f) >= len(cells) && slicesEqual(f[:len(cells)], cells) {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBinaryConfigShow: every value with its origin (default, user,
// profile, env, flag) and source; the API key, header values and
// credential-looking values are redacted in the table and in --json.
func TestBinaryConfigShow(t *testing.T) {
	e := newEnv(t)
	const key, header, token = "sk-config-show-secret-0123456789", "Bearer hdr-secret-abcdefghijklmnop", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	e.writeUserConfig(t, profilesConfig+`
[mcp_servers.gh]
command = "gh-mcp"
env = { GITHUB_TOKEN = "${GITHUB_TOKEN}", LITERAL = "`+token+`" }
headers = { Authorization = "`+header+`" }
`)
	e.vars["REIN_API_KEY"] = key
	e.vars["REIN_MODEL"] = "env-model"
	p := e.start(t, "config", "show", "--profile", "ci", "--max-steps", "7")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
	}
	table := p.stdout.String()
	userFile := filepath.Join(e.home, ".config", "rein", "config.toml")
	for _, row := range [][]string{
		{"model.provider", `"openai"`, "default"},
		{"model.model", `"env-model"`, "env", "REIN_MODEL"},
		{"model.api_key", "[redacted]", "env", "REIN_API_KEY"},
		{"model.context_window", "32768", "user", userFile + ":2"},
		{"agent.max_steps", "7", "flag", "--max-steps"},
		{"policy.preset", `"read-only"`, "profile:ci", userFile + ":8"},
		{"mcp_servers.gh.env.GITHUB_TOKEN", `"${GITHUB_TOKEN}"`, "user"},
		{"mcp_servers.gh.env.LITERAL", "[redacted]", "user"},
		{"mcp_servers.gh.headers.Authorization", "[redacted]", "user"},
	} {
		if !hasRow(table, row...) {
			t.Errorf("no row %q in:\n%s", row, table)
		}
	}
	if !strings.HasPrefix(table, "# profile ci (selected by --profile)\n") {
		t.Errorf("the table does not start with the profile line:\n%s", table)
	}
	p = e.start(t, "config", "show", "--json")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("--json: exit %d\nstderr: %s", code, p.stderr)
	}
	var doc struct {
		Profile  string   `json:"profile"`
		Profiles []string `json:"profiles"`
		Values   []struct{ Key, Value, Origin, Source string }
	}
	if err := json.Unmarshal([]byte(p.stdout.String()), &doc); err != nil {
		t.Fatalf("--json output: %v\n%s", err, p.stdout)
	}
	origins := map[string]string{}
	for _, v := range doc.Values {
		origins[v.Key] = v.Origin + " " + v.Value
	}
	if doc.Profile != "" || len(doc.Profiles) != 1 || origins["agent.max_steps"] != "default 50" || origins["model.api_key"] != "env [redacted]" {
		t.Errorf("--json: profile %q, profiles %q, max_steps %q, api_key %q", doc.Profile, doc.Profiles, origins["agent.max_steps"], origins["model.api_key"])
	}
	for _, s := range []string{key, header, token, "hdr-secret"} {
		if strings.Contains(table, s) || strings.Contains(p.stdout.String(), s) || strings.Contains(p.stderr.String(), s) {
			t.Errorf("config show printed the secret %q", s)
		}
	}
}

// TestBinarySubagentProfileNarrowed: a custom agent naming a profile
// runs with the profile's model and under its read-only policy beside
// the parent's editor one (its write is denied); the profile's larger
// max_steps is not taken, and the task result says so.
func TestBinarySubagentProfileNarrowed(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, `[model]
context_window = 32768

[profiles.review.model]
model = "review-model"

[profiles.review.policy]
preset = "read-only"

[profiles.review.agent]
max_steps = 900
`)
	writeFiles(t, e.workspace, map[string]string{".rein/agents/reviewer.md": `---
name: reviewer
description: Reviews the change
tools: read_file, write_file
profile: review
---
You review.
`})
	task := `{"description":"review","prompt":"write out.txt","agent":"reviewer"}`
	srv := modeltest.NewServer(t,
		sse(toolBody("call_task", "task", task)),
		writeCall(t, "child_write"),
		sse(textBody("I could not write.")),
		sse(textBody("The reviewer reported.")))
	p := e.start(t, "run", "-e", srv.URL, "delegate")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "out.txt")); err == nil {
		t.Error("the sub-agent wrote out.txt under its read-only profile")
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if m, _ := requestJSON(t, reqs[0].Body)["model"].(string); m == "review-model" {
		t.Error("the parent ran with the sub-agent's profile model")
	}
	if m, _ := requestJSON(t, reqs[1].Body)["model"].(string); m != "review-model" {
		t.Errorf("the sub-agent's model = %q, want the profile's review-model", m)
	}
	if body := string(reqs[2].Body); !strings.Contains(body, "profile review") || !strings.Contains(body, "read-only") {
		t.Errorf("the child's write result does not name the profile's read-only policy:\n%s", body)
	}
	const note = "profile review's agent.max_steps = 900 is wider than this run's 50, which the sub-agent keeps"
	if body := string(reqs[3].Body); !strings.Contains(body, note) {
		t.Errorf("the task result lacks the narrowing note:\n%s", body)
	}
	if !strings.Contains(p.stderr.String(), "agent reviewer: "+note) {
		t.Errorf("stderr lacks the narrowing warning:\n%s", p.stderr)
	}
	// An agent whose profile does not exist is skipped with a warning.
	writeFiles(t, e.workspace, map[string]string{".rein/agents/reviewer.md": "---\nname: reviewer\ndescription: x\nprofile: reveiw\n---\n"})
	srv = modeltest.NewServer(t, sse(textBody("ok")))
	p = e.start(t, "run", "-e", srv.URL, "hi")
	p.stdin.Close()
	want := `skipped: profile reveiw: no such profile (did you mean "review"?) in the config files`
	if code := p.wait(t, 60*time.Second); code != 0 || !strings.Contains(p.stderr.String(), want) {
		t.Errorf("unknown agent profile: exit %d, stderr: %s\nwant: %s", code, p.stderr, want)
	}
	if strings.Contains(string(srv.Requests()[0].Body), "reviewer") {
		t.Error("the skipped agent is still offered to the model")
	}
}

// TestBinarySubagentWiderProfileNarrowed: an agent whose profile is
// wider than the run (preset full under the editor preset) does not get
// the wider policy: its command still needs an approval, which nobody
// gives headless, and the result and stderr say the profile was wider.
func TestBinarySubagentWiderProfileNarrowed(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[profiles.loose.policy]\npreset = \"full\"\n")
	writeFiles(t, e.workspace, map[string]string{".rein/agents/runner.md": "---\nname: runner\ndescription: Runs commands\ntools: run_command\nprofile: loose\n---\n"})
	task := `{"description":"run","prompt":"touch made","agent":"runner"}`
	srv := modeltest.NewServer(t,
		sse(toolBody("call_task", "task", task)),
		sse(toolBody("child_cmd", "run_command", mustJSONString(t, map[string]string{"command": "touch made"}))),
		sse(textBody("It was not allowed.")),
		sse(textBody("Done.")))
	p := e.start(t, "run", "--approve", "never", "-e", srv.URL, "delegate")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "made")); err == nil {
		t.Error("the sub-agent's command ran: its full profile widened the editor run")
	}
	const note = "profile loose's preset full is wider than this run's editor"
	reqs := srv.Requests()
	if len(reqs) != 4 || !strings.Contains(string(reqs[3].Body), note) {
		t.Errorf("%d requests; the task result lacks %q", len(reqs), note)
	}
	if !strings.Contains(p.stderr.String(), "agent runner: "+note) {
		t.Errorf("stderr lacks the warning:\n%s", p.stderr)
	}
}

// TestChatStatusNamesProfile: chat's /status says which profile is in
// force and what selected it.
func TestChatStatusNamesProfile(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, profilesConfig)
	srv := modeltest.NewServer(t)
	e.vars["REIN_PROFILE"] = "ci"
	res := e.invoke("/status\n").run(t, "chat", "-e", srv.URL)
	if want := "profile ci (selected by REIN_PROFILE;"; res.code != 0 || !strings.Contains(res.stderr, want) {
		t.Errorf("/status: exit %d, lacks %q:\n%s", res.code, want, res.stderr)
	}
}
