package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/transport"
)

// TestModelBoundDefaultsMatchTheLibrary: the defaults config states are the
// ones transport and the providers apply, so what `rein` shows is what holds.
func TestModelBoundDefaultsMatchTheLibrary(t *testing.T) {
	pairs := []struct {
		name      string
		cfg, impl any
	}{
		{"connect", config.DefaultConnectTimeout, transport.DefaultConnectTimeout},
		{"header", config.DefaultHeaderTimeout, transport.DefaultHeaderTimeout},
		{"idle", config.DefaultIdleTimeout, transport.DefaultIdleTimeout},
		{"request", config.DefaultRequestTimeout, transport.DefaultRequestTimeout},
		{"retry budget", config.DefaultRetryBudget, transport.DefaultRetryBudget},
		{"max response bytes", config.DefaultMaxResponseBytes, model.DefaultMaxResponseBytes},
	}
	for _, p := range pairs {
		if p.cfg != p.impl {
			t.Errorf("%s: config default %v, library default %v", p.name, p.cfg, p.impl)
		}
	}
}

func TestModelBoundsFromFilesEnvAndFlags(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), `[model]
connect_timeout = "5s"
header_timeout = "20m"
idle_timeout = "90s"
request_timeout = "0s"
retry_budget = "0s"
max_response_bytes = 1048576
reasoning_effort = "high"
`)
	c, err := f.load(config.Settings{RequestTimeout: new(45 * time.Minute), ReasoningEffort: new("low")})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Model
	want := config.ModelConfig{Provider: "openai", Endpoint: "http://127.0.0.1:8080",
		ConnectTimeout: 5 * time.Second, HeaderTimeout: 20 * time.Minute, IdleTimeout: 90 * time.Second,
		RequestTimeout: 45 * time.Minute, RetryBudget: 0, MaxResponseBytes: 1 << 20, ReasoningEffort: "low"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("model (-want +got):\n%s", diff)
	}
	if src := c.Source("model.request_timeout"); src.Layer != config.LayerFlag || src.Name != "--request-timeout" {
		t.Errorf("request_timeout from %v, want the flag", src)
	}
	if src := c.Source("model.idle_timeout"); src.Layer != config.LayerUser || src.Line != 4 {
		t.Errorf("idle_timeout from %v, want the user file line 4", src)
	}
}

// TestProjectMayOnlyShortenModelBounds: a repository's config cannot make
// rein wait longer or hold more than the user allows.
func TestProjectMayOnlyShortenModelBounds(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), "[model]\nrequest_timeout = \"10m\"\n")
	write(t, f.projectFile(), `[model]
header_timeout = "1h"
idle_timeout = "1m"
request_timeout = "0s"
max_response_bytes = 1073741824
retry_budget = "1h"
`)
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	m := c.Model
	if m.HeaderTimeout != config.DefaultHeaderTimeout || m.RequestTimeout != 10*time.Minute ||
		m.MaxResponseBytes != config.DefaultMaxResponseBytes || m.RetryBudget != config.DefaultRetryBudget {
		t.Errorf("project loosened a bound: %+v", m)
	}
	if m.IdleTimeout != time.Minute {
		t.Errorf("idle_timeout %s, want the project's shorter 1m", m.IdleTimeout)
	}
	joined := strings.Join(c.Warnings, "\n")
	for _, key := range []string{"model.header_timeout", "model.request_timeout", "model.max_response_bytes", "model.retry_budget"} {
		if !strings.Contains(joined, key+" = ") {
			t.Errorf("no warning for the ignored %s; warnings:\n%s", key, joined)
		}
	}
}

func TestModelBoundErrors(t *testing.T) {
	tests := []struct{ file, want string }{
		{`idle_timeout = "0s"`, "model.idle_timeout: must be between 1ms and 24h0m0s (got 0s)"},
		{`header_timeout = "-1s"`, "must be between 1ms"},
		{`connect_timeout = "2h"`, "must be between 1ms and 1h0m0s"},
		{`request_timeout = 30`, `want a duration string like "90s"`},
		{`max_response_bytes = 10`, "must be between 65536 and 1073741824"},
		{`reasoning_effort = "Very High"`, `must be a level such as "low", "medium" or "high"`},
		{`idle_timeut = "1m"`, "idle_timeout"},
	}
	for _, tt := range tests {
		f := newFixture(t)
		write(t, f.userFile(), "[model]\n"+tt.file+"\n")
		_, err := f.load(config.Settings{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.file, err, tt.want)
		}
	}
}

// TestEnvAliases: the variable names llama.cpp and Anthropic tools use are
// honoured for their own provider, and rein's own names win.
func TestEnvAliases(t *testing.T) {
	tests := []struct {
		name                    string
		env                     map[string]string
		wantEndpoint, wantModel string
		wantKey, wantKeySource  string
	}{
		{"llama aliases", map[string]string{"LLAMA_SERVER_URL": "http://10.0.0.5:8081", "LLAMA_API_KEY": "llama-key-123"},
			"http://10.0.0.5:8081", "", "llama-key-123", "LLAMA_API_KEY"},
		{"REIN_ENDPOINT wins", map[string]string{"LLAMA_SERVER_URL": "http://10.0.0.5:8081", "REIN_ENDPOINT": "http://127.0.0.1:9"},
			"http://127.0.0.1:9", "", "", ""},
		{"OPENAI_API_KEY wins", map[string]string{"LLAMA_API_KEY": "llama-key-123", "OPENAI_API_KEY": "sk-openai-456"},
			"http://127.0.0.1:8080", "", "sk-openai-456", "OPENAI_API_KEY"},
		{"ANTHROPIC_MODEL is not for openai", map[string]string{"ANTHROPIC_MODEL": "claude-x"},
			"http://127.0.0.1:8080", "", "", ""},
		{"anthropic aliases", map[string]string{"REIN_PROVIDER": "anthropic", "ANTHROPIC_MODEL": "claude-x", "LLAMA_SERVER_URL": "http://10.0.0.5:8081", "LLAMA_API_KEY": "llama-key-123"},
			"https://api.anthropic.com", "claude-x", "", ""},
		{"REIN_MODEL wins", map[string]string{"REIN_PROVIDER": "anthropic", "ANTHROPIC_MODEL": "claude-x", "REIN_MODEL": "claude-y"},
			"https://api.anthropic.com", "claude-y", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			for k, v := range tt.env {
				f.env[k] = v
			}
			c, err := f.load(config.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Model.Endpoint != tt.wantEndpoint || c.Model.Model != tt.wantModel || c.Model.APIKey.Reveal() != tt.wantKey {
				t.Errorf("endpoint %q model %q key %q; want %q %q %q", c.Model.Endpoint, c.Model.Model, c.Model.APIKey.Reveal(),
					tt.wantEndpoint, tt.wantModel, tt.wantKey)
			}
			if tt.wantKeySource != "" && c.Source("model.api_key").Name != tt.wantKeySource {
				t.Errorf("key from %v, want %s", c.Source("model.api_key"), tt.wantKeySource)
			}
		})
	}
	f := newFixture(t)
	f.env["LLAMA_SERVER_URL"] = "ftp://x"
	if _, err := f.load(config.Settings{}); err == nil || !strings.Contains(err.Error(), "environment variable LLAMA_SERVER_URL") {
		t.Errorf("a bad LLAMA_SERVER_URL: %v, want an error naming it", err)
	}
}
