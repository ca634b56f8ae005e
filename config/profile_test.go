package config_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/config"
)

const userWithProfiles = `[model]
model = "base-model"

[agent]
max_steps = 40

[policy]
preset = "editor"

[profiles.ci.model]
model = "ci-model"
temperature = 0.1

[profiles.ci.agent]
max_steps = 10

[profiles.ci.policy]
preset = "read-only"

[profiles.fast]
agent.max_steps = 5
`

func (f *fixture) loadProfile(name string) (*config.Config, error) {
	return config.Load(config.LoadOptions{
		Workspace: f.workspace,
		Profile:   name,
		Getenv:    func(k string) string { return f.env[k] },
	})
}

// TestProfileSelectsSettings: a user profile overrides the user file's
// top, its sections follow the file's own, and each value names the
// profile it came from.
func TestProfileSelectsSettings(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), userWithProfiles)
	c, err := f.loadProfile("ci")
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.Model != "ci-model" || c.Agent.MaxSteps != 10 || c.Model.Temperature == nil || *c.Model.Temperature != 0.1 {
		t.Errorf("model %q, max_steps %d, temperature %v", c.Model.Model, c.Agent.MaxSteps, c.Model.Temperature)
	}
	src := c.Source("agent.max_steps")
	if src.Profile != "ci" || src.Layer != config.LayerUser || src.Line != 15 || src.Origin() != "profile:ci" {
		t.Errorf("source = %+v (%s)", src, src)
	}
	secs := c.Sections("policy")
	if len(secs) != 2 || secs[0].Source.Profile != "" || secs[1].Source.Profile != "ci" {
		t.Fatalf("policy sections = %+v", secs)
	}
	var p struct {
		Preset string `toml:"preset"`
	}
	if err := secs[1].Decode(&p); err != nil || p.Preset != "read-only" {
		t.Errorf("profile policy = %q, %v", p.Preset, err)
	}
	if name, by := c.Profile(); name != "ci" || by.Layer != config.LayerFlag {
		t.Errorf("Profile() = %q, %v", name, by)
	}
	if diff := cmp.Diff([]string{"ci", "fast"}, c.Profiles()); diff != "" {
		t.Error(diff)
	}
	// Without a profile the profiles change nothing.
	c, err = f.loadProfile("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.Model != "base-model" || c.Agent.MaxSteps != 40 || len(c.Sections("policy")) != 1 {
		t.Errorf("no profile: model %q, max_steps %d, %d policy sections", c.Model.Model, c.Agent.MaxSteps, len(c.Sections("policy")))
	}
}

// TestProfileFromEnv: REIN_PROFILE selects a profile; the flag wins.
func TestProfileFromEnv(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), userWithProfiles)
	f.env["REIN_PROFILE"] = "fast"
	c, err := f.loadProfile("")
	if err != nil {
		t.Fatal(err)
	}
	if name, by := c.Profile(); name != "fast" || by.String() != "env REIN_PROFILE" || c.Agent.MaxSteps != 5 {
		t.Errorf("profile %q by %s, max_steps %d", name, by, c.Agent.MaxSteps)
	}
	c, err = f.loadProfile("ci")
	if err != nil {
		t.Fatal(err)
	}
	if name, _ := c.Profile(); name != "ci" {
		t.Errorf("flag and env: profile %q, want ci", name)
	}
}

func TestUnknownProfile(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), userWithProfiles)
	_, err := f.loadProfile("cj")
	if !errors.Is(err, config.ErrInvalidFlag) {
		t.Errorf("unknown --profile is not a usage error: %v", err)
	}
	want := `--profile cj: no such profile (did you mean "ci"?); the profiles are "ci", "fast"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want it to contain %s", err, want)
	}
	f.env["REIN_PROFILE"] = "nope"
	_, err = f.loadProfile("")
	if err == nil || errors.Is(err, config.ErrInvalidFlag) || !strings.Contains(err.Error(), "REIN_PROFILE=nope: no such profile;") {
		t.Errorf("REIN_PROFILE error = %v", err)
	}
	// No profiles at all: the message says how to define one.
	g := newFixture(t)
	if _, err := g.loadProfile("ci"); err == nil || !strings.Contains(err.Error(), "add a [profiles.ci] table") {
		t.Errorf("no profiles: %v", err)
	}
}

func TestProfileFileErrors(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"unknown key in profile model", "[profiles.ci.model]\nmodle = \"x\"\n",
			`:2: unknown key "profiles.ci.model.modle" (did you mean "model"?)`},
		{"unknown section in profile", "[profiles.ci]\npolicey = {}\n",
			`:2: unknown key "profiles.ci.policey" (did you mean "policy"?)`},
		{"bad value", "[profiles.ci.agent]\nmax_steps = 0\n",
			`:2: profiles.ci.agent.max_steps: must be between 1`},
		{"not a table", "profiles = 3\n", `:1: profiles must be a table of profiles`},
		{"profile not a table", "[profiles]\nci = 3\n", `:2: profiles.ci must be a table`},
		{"nested", "[profiles.ci.profiles.x]\n", `profiles do not nest`},
		{"api key", "[profiles.ci.model]\napi_key = \"sk-123\"\n", `profiles.ci.model.api_key: API keys do not belong in files`},
		{"bad name", "[profiles.\"a b\"]\n", `profile name "a b" must be letters`},
		{"top-level typo suggests profiles", "[profils.ci]\n", `(did you mean "profiles"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			write(t, f.userFile(), tt.file)
			_, err := f.loadProfile("")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %s", err, tt.want)
			}
		})
	}
	// A profile's own table is checked strictly by its owner, with the
	// profile's path and line.
	f := newFixture(t)
	write(t, f.userFile(), "[profiles.ci.policy]\npreset = \"read-only\"\nprest = 1\n")
	c, err := f.loadProfile("ci")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Preset string `toml:"preset"`
	}
	err = c.Sections("policy")[0].Decode(&p)
	if err == nil || !strings.Contains(err.Error(), `config.toml:3: unknown key "profiles.ci.policy.prest" in [profiles.ci.policy] (did you mean "preset"?)`) {
		t.Errorf("strict decode: %v", err)
	}
}

// TestProjectProfileOnlyTightens: a project's profile follows the
// project's rules, and a limit it would loosen is refused outright.
func TestProjectProfileOnlyTightens(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), "[agent]\nmax_steps = 30\n")
	path := write(t, f.projectFile(), "[profiles.review.agent]\nmax_steps = 10\n\n[profiles.wide.agent]\nmax_steps = 300\n")
	c, err := f.loadProfile("review")
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.MaxSteps != 10 || c.Source("agent.max_steps").Origin() != "project-profile:review" {
		t.Errorf("max_steps %d from %s", c.Agent.MaxSteps, c.Source("agent.max_steps"))
	}
	_, err = f.loadProfile("wide")
	want := fmt.Sprintf("config: %s:5: profiles.wide.agent.max_steps = 300 would loosen a limit (in force: 30 from user %s:2)", path, f.userFile())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("widening error = %v\nwant %s", err, want)
	}
	// Credential keys are refused whether or not the profile is chosen.
	write(t, f.projectFile(), "[profiles.review.agent]\nmax_steps = 10\n\n[profiles.creds.model]\nendpoint = \"http://evil.example\"\n")
	_, err = f.loadProfile("review")
	if err == nil || !strings.Contains(err.Error(), ":5: profiles.creds.model.endpoint may not be set in a project config") {
		t.Errorf("credential key in project profile: %v", err)
	}
}

// TestProfileOrder: defaults < user < user profile < project < project
// profile < environment < flags.
func TestProfileOrder(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), "[agent]\nmax_steps = 40\ntoken_budget = 9000\n[profiles.p.agent]\nmax_steps = 30\ntoken_budget = 8000\nmax_tree_steps = 20\n")
	write(t, f.projectFile(), "[agent]\nmax_steps = 25\n[profiles.p.agent]\nmax_steps = 20\n")
	f.env["REIN_MODEL"] = "env-model"
	c, err := config.Load(config.LoadOptions{Workspace: f.workspace, Profile: "p",
		Flags: config.Settings{TokenBudget: new(100)}, Getenv: func(k string) string { return f.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, k := range []string{"agent.max_steps", "agent.token_budget", "agent.max_tree_steps", "model.model", "agent.max_parallel_tools"} {
		got[k] = c.Source(k).Origin()
	}
	want := map[string]string{"agent.max_steps": "project-profile:p", "agent.token_budget": "flag",
		"agent.max_tree_steps": "profile:p", "model.model": "env", "agent.max_parallel_tools": "default"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("origins (-want +got):\n%s", diff)
	}
	if c.Agent.MaxSteps != 20 || c.Agent.TokenBudget != 100 {
		t.Errorf("max_steps %d, token_budget %d", c.Agent.MaxSteps, c.Agent.TokenBudget)
	}
}

func TestValuesAndLeaves(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), "[mcp_servers.gh]\ncommand = \"gh-mcp\"\nargs = [\"--x\", \"y\"]\nheaders = {Authorization = \"Bearer abc\"}\n[profiles.ci.agent]\nmax_steps = 7\n")
	f.env["REIN_API_KEY"] = "sk-secret-value-123456"
	c, err := f.loadProfile("ci")
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]config.Value{}
	for _, v := range c.Values() {
		byKey[v.Key] = v
	}
	if v := byKey["model.api_key"]; v.Value != "[redacted]" || !v.Secret || v.Source.String() != "env REIN_API_KEY" {
		t.Errorf("api key value = %+v", v)
	}
	if v := byKey["agent.max_steps"]; v.Value != "7" || v.Source.Origin() != "profile:ci" {
		t.Errorf("max_steps = %+v", v)
	}
	if v := byKey["model.endpoint"]; v.Value != `"http://127.0.0.1:8080"` || v.Source.Origin() != "default" {
		t.Errorf("endpoint = %+v", v)
	}
	leaves, err := c.Sections("mcp_servers")[0].Leaves()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range leaves {
		got = append(got, config.JoinPath(l.Path)+" = "+config.FormatTOML(l.Value))
	}
	want := []string{`mcp_servers.gh.args = ["--x", "y"]`, `mcp_servers.gh.command = "gh-mcp"`, `mcp_servers.gh.headers.Authorization = "Bearer abc"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("leaves (-want +got):\n%s", diff)
	}
}
