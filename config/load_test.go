package config_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/config"
)

// fixture lays out a hermetic home, workspace and environment.
type fixture struct {
	home, workspace string
	env             map[string]string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{
		home:      filepath.Join(root, "home"),
		workspace: filepath.Join(root, "ws"),
		env:       map[string]string{},
	}
	f.env["HOME"] = f.home
	for _, d := range []string{f.home, f.workspace} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) userFile() string { return filepath.Join(f.home, ".config", "rein", "config.toml") }

func (f *fixture) projectFile() string { return config.ProjectConfigPath(f.workspace) }

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func (f *fixture) load(flags config.Settings) (*config.Config, error) {
	return config.Load(config.LoadOptions{
		Workspace: f.workspace,
		Flags:     flags,
		Getenv:    func(k string) string { return f.env[k] },
	})
}

func TestLoadDefaults(t *testing.T) {
	f := newFixture(t)
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := config.ModelConfig{Provider: "openai", Endpoint: "http://127.0.0.1:8080",
		ConnectTimeout: 30 * time.Second, HeaderTimeout: 10 * time.Minute, IdleTimeout: 5 * time.Minute,
		RequestTimeout: 30 * time.Minute, RetryBudget: 2 * time.Minute, MaxResponseBytes: 4 << 20}
	if diff := cmp.Diff(want, c.Model); diff != "" {
		t.Errorf("model (-want +got):\n%s", diff)
	}
	wantAgent := config.AgentConfig{MaxSteps: 50, MaxParallelTools: 4, ToolTimeout: 2 * time.Minute, MaxResultBytes: 65536,
		MaxSubagentDepth: 3, MaxTreeSteps: 50, RepeatLimit: 3, MaxConsecutiveDenials: 3,
		CommandTimeout: 2 * time.Minute, CommandMaxTimeout: 10 * time.Minute, CommandOutputBytes: 32 << 10}
	if diff := cmp.Diff(wantAgent, c.Agent); diff != "" {
		t.Errorf("agent (-want +got):\n%s", diff)
	}
	if got := c.Source("model.endpoint"); got.Layer != config.LayerDefault {
		t.Errorf("Source(model.endpoint) = %v, want default", got)
	}
}

func TestLoadPrecedence(t *testing.T) {
	const user = `
[model]
endpoint = "http://10.0.0.1:8080"
model = "user-model"
temperature = 0.7
api_key_env = "MY_KEY"

[agent]
max_steps = 40
timeout = "10m"
system_prompt = "from user"
`
	const project = `
[model]
model = "project-model"

[agent]
max_steps = 20
`
	tests := []struct {
		name    string
		user    string
		project string
		env     map[string]string
		flags   config.Settings
		// want holds "key=value@source" strings.
		want map[string]string
	}{
		{
			name: "user file only",
			user: user,
			want: map[string]string{
				"model.endpoint":      "http://10.0.0.1:8080@user:3",
				"model.model":         "user-model@user:4",
				"agent.max_steps":     "40@user:9",
				"agent.timeout":       "10m0s@user:10",
				"agent.system_prompt": "from user@user:11",
			},
		},
		{
			name:    "project overrides model and tightens steps",
			user:    user,
			project: project,
			want: map[string]string{
				"model.endpoint":  "http://10.0.0.1:8080@user:3",
				"model.model":     "project-model@project:3",
				"agent.max_steps": "20@project:6",
			},
		},
		{
			name:    "env overrides files",
			user:    user,
			project: project,
			env:     map[string]string{"REIN_MODEL": "env-model", "REIN_ENDPOINT": "http://10.0.0.2:8080"},
			want: map[string]string{
				"model.endpoint": "http://10.0.0.2:8080@env:REIN_ENDPOINT",
				"model.model":    "env-model@env:REIN_MODEL",
			},
		},
		{
			name:    "flags override env",
			user:    user,
			project: project,
			env:     map[string]string{"REIN_MODEL": "env-model"},
			flags: config.Settings{
				Model: new("flag-model"), MaxSteps: new(100),
				Timeout: new(90 * time.Second), SystemPrompt: new("from flag"),
			},
			want: map[string]string{
				"model.model":         "flag-model@flag:--model",
				"agent.max_steps":     "100@flag:--max-steps",
				"agent.timeout":       "1m30s@flag:--timeout",
				"agent.system_prompt": "from flag@flag:--system",
			},
		},
		{
			name: "anthropic provider changes the default endpoint",
			env:  map[string]string{"REIN_PROVIDER": "anthropic"},
			want: map[string]string{
				"model.provider": "anthropic@env:REIN_PROVIDER",
				"model.endpoint": "https://api.anthropic.com@default",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.user != "" {
				write(t, f.userFile(), tt.user)
			}
			if tt.project != "" {
				write(t, f.projectFile(), tt.project)
			}
			for k, v := range tt.env {
				f.env[k] = v
			}
			c, err := f.load(tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for key := range tt.want {
				got[key] = describe(c, key)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
}

// describe renders key's value and a short form of its source.
func describe(c *config.Config, key string) string {
	var v any
	switch key {
	case "model.provider":
		v = c.Model.Provider
	case "model.endpoint":
		v = c.Model.Endpoint
	case "model.model":
		v = c.Model.Model
	case "agent.max_steps":
		v = c.Agent.MaxSteps
	case "agent.timeout":
		v = c.Agent.Timeout
	case "agent.system_prompt":
		v = c.Agent.SystemPrompt
	case "agent.token_budget":
		v = c.Agent.TokenBudget
	}
	s := c.Source(key)
	src := string(s.Layer)
	switch {
	case s.Line > 0:
		src += fmt.Sprintf(":%d", s.Line)
	case s.Name != "":
		src += ":" + s.Name
	}
	return fmt.Sprintf("%v@%s", v, src)
}

func TestConfigFileReplacesUserFile(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), "[model]\nmodel = \"user\"\n")
	other := write(t, filepath.Join(f.home, "other.toml"), "[agent]\nmax_steps = 7\n")
	c, err := config.Load(config.LoadOptions{File: other, Getenv: func(k string) string { return f.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.Model != "" || c.Agent.MaxSteps != 7 {
		t.Errorf("model=%q max_steps=%d; want the --config file to replace the user file", c.Model.Model, c.Agent.MaxSteps)
	}
	if got, want := c.Source("agent.max_steps"), (config.Source{Layer: config.LayerFile, Name: other, Line: 2}); got != want {
		t.Errorf("source = %v, want %v", got, want)
	}

	_, err = config.Load(config.LoadOptions{File: filepath.Join(f.home, "missing.toml")})
	if err == nil || !strings.Contains(err.Error(), "no such file; check the --config path") {
		t.Errorf("missing --config: err = %v", err)
	}
}

func TestXDGConfigHome(t *testing.T) {
	f := newFixture(t)
	xdg := filepath.Join(f.home, "xdg")
	f.env["XDG_CONFIG_HOME"] = xdg
	write(t, filepath.Join(xdg, "rein", "config.toml"), "[model]\nmodel = \"xdg\"\n")
	write(t, f.userFile(), "[model]\nmodel = \"home\"\n")
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.Model != "xdg" {
		t.Errorf("model = %q, want the XDG_CONFIG_HOME file to win", c.Model.Model)
	}
	// A relative XDG_CONFIG_HOME is invalid per the XDG spec and ignored.
	f.env["XDG_CONFIG_HOME"] = "relative/dir"
	if got, want := config.UserConfigPath(func(k string) string { return f.env[k] }), f.userFile(); got != want {
		t.Errorf("UserConfigPath = %q, want %q", got, want)
	}
}

func TestProjectLayerRefusesCredentialKeys(t *testing.T) {
	for _, key := range []string{"endpoint = \"http://evil.example\"", "api_key_env = \"AWS_SECRET_ACCESS_KEY\"", "provider = \"anthropic\""} {
		name := strings.Fields(key)[0]
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			path := write(t, f.projectFile(), "# cloned repo\n[model]\n"+key+"\n")
			_, err := f.load(config.Settings{})
			want := fmt.Sprintf("config: %s:3: model.%s may not be set in a project config (a cloned repository must not redirect your API key); set it in your user config, the environment or a flag", path, name)
			if err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant %s", err, want)
			}
		})
	}
}

func TestProjectLayerOnlyTightensLimits(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), "[agent]\nmax_steps = 30\ntimeout = \"10m\"\n")
	path := write(t, f.projectFile(), `[agent]
max_steps = 500
timeout = "0s"
token_budget = 100000
tool_timeout = "30s"
max_parallel_tools = 16
`)
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	got := config.AgentConfig{
		MaxSteps: c.Agent.MaxSteps, Timeout: c.Agent.Timeout, TokenBudget: c.Agent.TokenBudget,
		ToolTimeout: c.Agent.ToolTimeout, MaxParallelTools: c.Agent.MaxParallelTools,
	}
	want := config.AgentConfig{MaxSteps: 30, Timeout: 10 * time.Minute, TokenBudget: 100000, ToolTimeout: 30 * time.Second, MaxParallelTools: 4}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		fmt.Sprintf("project %s:2: agent.max_steps = 500 ignored: a project config may only tighten limits (in force: 30 from user %s:2)", path, f.userFile()),
		fmt.Sprintf("project %s:3: agent.timeout = 0s ignored: a project config may only tighten limits (in force: 10m0s from user %s:3)", path, f.userFile()),
		fmt.Sprintf("project %s:6: agent.max_parallel_tools = 16 ignored: a project config may only tighten limits (in force: 4 from default)", path),
	}
	if diff := cmp.Diff(wantWarnings, c.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// Flags are the user's own and may loosen anything.
	c, err = f.load(config.Settings{MaxSteps: new(500)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.MaxSteps != 500 {
		t.Errorf("max_steps with flag = %d, want 500", c.Agent.MaxSteps)
	}
}

// TestSubagentLimitsOnlyLower: a project may lower the sub-agent limits
// (depth 0 disables sub-agents), never raise them, and no layer sets a
// depth past the design's 3.
func TestSubagentLimitsOnlyLower(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), "[agent]\nmax_tree_steps = 40\n")
	write(t, f.projectFile(), "[agent]\nmax_subagent_depth = 0\nmax_tree_steps = 400\n")
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.MaxSubagentDepth != 0 || c.Agent.MaxTreeSteps != 40 {
		t.Errorf("depth %d, tree steps %d; want the project's 0 and the user's 40", c.Agent.MaxSubagentDepth, c.Agent.MaxTreeSteps)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "agent.max_tree_steps = 400 ignored") {
		t.Errorf("warnings %q; want the raised tree limit ignored", c.Warnings)
	}
	write(t, f.userFile(), "[agent]\nmax_subagent_depth = 4\n")
	if _, err := f.load(config.Settings{}); err == nil || !strings.Contains(err.Error(), "max_subagent_depth") {
		t.Errorf("depth 4 in the user's file: %v; want an error", err)
	}
}

func TestFileErrors(t *testing.T) {
	tests := []struct {
		name, content, want string // want has FILE for the path
	}{
		{"typo in model", "[model]\nprovider = \"openai\"\nendpont = \"http://x\"\n", `FILE:3: unknown key "model.endpont" (did you mean "endpoint"?)`},
		{"dotted typo", "model.modle = \"x\"\n", `FILE:1: unknown key "model.modle" (did you mean "model"?)`},
		{"key in wrong table", "[model]\n\nmax_steps = 3\n", `FILE:3: unknown key "model.max_steps" (it belongs in [agent])`},
		{"unknown top level", "[polcy]\nx = 1\n", `FILE:1: unknown key "polcy" (did you mean "policy"?)`},
		{"unknown top level far", "colour = \"red\"\n", `FILE:1: unknown key "colour"`},
		{"unknown sub-table", "[model.extra]\nx = 1\n", `FILE:1: unknown key "model.extra"`},
		{"string for int", "[agent]\nmax_steps = \"ten\"\n", `FILE:2: agent.max_steps: want an integer, got a string`},
		{"float for int", "[agent]\nmax_steps = 1.5\n", `FILE:2: agent.max_steps: want an integer, got float 1.5`},
		{"bad duration", "[agent]\ntimeout = \"30 min\"\n", `FILE:2: agent.timeout: invalid duration "30 min": use a form like "90s", "30m" or "1h"`},
		{"int duration", "[agent]\ntool_timeout = 30\n", `FILE:2: agent.tool_timeout: want a duration string like "90s", "30m" or "1h", got integer 30`},
		{"negative duration", "[agent]\ntimeout = \"-1s\"\n", `FILE:2: agent.timeout: must be at least 0s (got -1s)`},
		{"zero steps", "[agent]\nmax_steps = 0\n", `FILE:2: agent.max_steps: must be between 1 and 1048576 (got 0)`},
		{"huge int", "[model]\ncontext_window = 99999999999\n", `FILE:2: model.context_window: integer 99999999999 is out of range`},
		{"temperature range", "[model]\ntemperature = 3\n", `FILE:2: model.temperature: must be between 0 and 2 (got 3)`},
		{"bad provider", "[model]\nprovider = \"gemini\"\n", `FILE:2: model.provider: must be "openai" or "anthropic" (got "gemini")`},
		{"bad endpoint", "[model]\nendpoint = \"localhost:8080\"\n", `FILE:2: model.endpoint: must be an http:// or https:// URL such as "http://127.0.0.1:8080"`},
		{"credentials in endpoint", "[model]\nendpoint = \"http://u:sk-secret@h\"\n", `FILE:2: model.endpoint: must not contain credentials; put the key in an environment variable named by model.api_key_env`},
		{"key in file", "[model]\napi_key = \"sk-secret\"\n", `FILE:2: model.api_key: API keys do not belong in files; set model.api_key_env to the name of an environment variable holding the key`},
		{"key as env name", "[model]\napi_key_env = \"sk-secret-value\"\n", `FILE:2: model.api_key_env: must name an environment variable, like "MY_API_KEY" (the key itself does not belong in a file)`},
		{"section not a table", "model = \"gpt\"\n", `FILE:1: model must be a table ([model])`},
		{"deferred not a table", "policy = 3\n", `FILE:1: policy must be a table ([policy])`},
		{"syntax", "[model]\nmodel = \n", `FILE:2: invalid TOML: expected value but found '\n' instead`},
		{"duplicate key", "[model]\nmodel = \"a\"\nmodel = \"b\"\n", `FILE:3: invalid TOML: Key 'model.model' has already been defined.`},
		{"unterminated string", "[model]\nmodel = \"abc\n", `FILE:2: invalid TOML: strings cannot contain newlines`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			path := write(t, f.userFile(), tt.content)
			_, err := f.load(config.Settings{})
			want := "config: " + strings.ReplaceAll(tt.want, "FILE", path)
			if err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant %s", err, want)
			}
			if err != nil && strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("error leaks a secret: %v", err)
			}
		})
	}
}

func TestEnvErrors(t *testing.T) {
	f := newFixture(t)
	f.env["REIN_ENDPOINT"] = "not a url"
	_, err := f.load(config.Settings{})
	want := `config: environment variable REIN_ENDPOINT: must be an http:// or https:// URL such as "http://127.0.0.1:8080"`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestFlagErrorsAreUsageErrors(t *testing.T) {
	tests := []struct {
		flags config.Settings
		want  string
	}{
		{config.Settings{Provider: new("gemini")}, `invalid flag value: --provider must be "openai" or "anthropic" (got "gemini")`},
		{config.Settings{MaxSteps: new(0)}, `invalid flag value: --max-steps must be between 1 and 1048576 (got 0)`},
		{config.Settings{Timeout: new(-time.Second)}, `invalid flag value: --timeout must be at least 0s (got -1s)`},
		{config.Settings{Endpoint: new("ftp://x")}, `invalid flag value: --endpoint must be an http:// or https:// URL such as "http://127.0.0.1:8080"`},
	}
	for _, tt := range tests {
		f := newFixture(t)
		_, err := f.load(tt.flags)
		if !errors.Is(err, config.ErrInvalidFlag) || err.Error() != tt.want {
			t.Errorf("err = %v, want %s (wrapping ErrInvalidFlag)", err, tt.want)
		}
	}
}

func TestAPIKeyResolution(t *testing.T) {
	tests := []struct {
		name     string
		user     string
		env      map[string]string
		flag     string
		wantKey  string
		wantFrom string
	}{
		{"none", "", nil, "", "", "default"},
		{"flag wins", "", map[string]string{"REIN_API_KEY": "r", "OPENAI_API_KEY": "o"}, "f", "f", "--api-key"},
		{"REIN_API_KEY before provider var", "", map[string]string{"REIN_API_KEY": "r", "OPENAI_API_KEY": "o"}, "", "r", "REIN_API_KEY"},
		{"api_key_env before provider var", "[model]\napi_key_env = \"MY_KEY\"\n", map[string]string{"MY_KEY": "m", "OPENAI_API_KEY": "o"}, "", "m", "MY_KEY"},
		{"unset api_key_env falls through", "[model]\napi_key_env = \"MY_KEY\"\n", map[string]string{"OPENAI_API_KEY": "o"}, "", "o", "OPENAI_API_KEY"},
		{"openai ignores anthropic var", "", map[string]string{"ANTHROPIC_API_KEY": "a"}, "", "", "default"},
		{"anthropic var for anthropic", "[model]\nprovider = \"anthropic\"\n", map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}, "", "a", "ANTHROPIC_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.user != "" {
				write(t, f.userFile(), tt.user)
			}
			for k, v := range tt.env {
				f.env[k] = v
			}
			var flags config.Settings
			if tt.flag != "" {
				flags.APIKey = new(tt.flag)
			}
			c, err := f.load(flags)
			if err != nil {
				t.Fatal(err)
			}
			src := c.Source("model.api_key")
			from := src.Name
			if from == "" {
				from = string(src.Layer)
			}
			if c.Model.APIKey.Reveal() != tt.wantKey || from != tt.wantFrom {
				t.Errorf("key %q from %q, want %q from %q", c.Model.APIKey.Reveal(), from, tt.wantKey, tt.wantFrom)
			}
		})
	}
}

func TestSecretIsNeverPrinted(t *testing.T) {
	f := newFixture(t)
	const key = "sk-very-secret-key-123"
	c, err := f.load(config.Settings{APIKey: new(key)})
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%q", c.Model.APIKey), string(js)} {
		if strings.Contains(s, key) {
			t.Errorf("key leaked in %s", s)
		}
	}
	if c.Model.APIKey.Reveal() != key {
		t.Errorf("Reveal() = %q", c.Model.APIKey.Reveal())
	}
}

func TestFileNotReadable(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(f.userFile(), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := f.load(config.Settings{})
	if want := "config: " + f.userFile() + ": is a directory, not a config file"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	big := write(t, filepath.Join(f.home, "big.toml"), "# "+strings.Repeat("x", 2<<20)+"\n")
	_, err = config.Load(config.LoadOptions{File: big})
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("big file: err = %v", err)
	}
}
