package mcp

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reinharness/rein/config"
)

// tomlServer is the shape of one [mcp_servers.NAME] table. Keys follow
// Codex CLI where it has one (command, args, env, env_vars, cwd, url,
// http_headers, bearer_token_env_var, enabled, enabled_tools,
// disabled_tools, startup_timeout_sec, tool_timeout_sec), plus rein's own.
type tomlServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	EnvVars           []string          `toml:"env_vars"`
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	Headers           map[string]string `toml:"headers"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	Transport         string            `toml:"transport"`
	ProtocolVersion   string            `toml:"protocol_version"`
	Tasks             string            `toml:"tasks"`
	Sampling          string            `toml:"sampling"`
	EnabledTools      *[]string         `toml:"enabled_tools"`
	DisabledTools     []string          `toml:"disabled_tools"`
	StartupTimeout    duration          `toml:"startup_timeout"`
	StartupTimeoutSec duration          `toml:"startup_timeout_sec"`
	ToolTimeout       duration          `toml:"tool_timeout"`
	ToolTimeoutSec    duration          `toml:"tool_timeout_sec"`
	ProbeTimeout      duration          `toml:"probe_timeout"`
	Required          bool              `toml:"required"`
	Enabled           *bool             `toml:"enabled"`
	Sandbox           *bool             `toml:"sandbox"`
	Network           *bool             `toml:"network"`
	OAuth             *tomlOAuth        `toml:"oauth"`
}

type tomlOAuth struct {
	ClientID           string   `toml:"client_id"`
	ClientSecretEnvVar string   `toml:"client_secret_env_var"`
	ClientMetadataURL  string   `toml:"client_metadata_url"`
	RedirectURL        string   `toml:"redirect_url"`
	Scopes             []string `toml:"scopes"`
}

// duration decodes a TOML duration given as a string ("10s", "1m30s") or
// as a number of seconds (10, 2.5).
type duration struct {
	d   time.Duration
	set bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (d *duration) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		p, err := time.ParseDuration(x)
		if err != nil {
			return fmt.Errorf("%q is not a duration such as \"10s\" or \"1m\"", clip(x, 40))
		}
		d.d = p
	case int64:
		d.d = time.Duration(x) * time.Second
	case float64:
		d.d = time.Duration(x * float64(time.Second))
	default:
		return fmt.Errorf("a duration must be a string such as \"10s\" or a number of seconds")
	}
	if d.d <= 0 || d.d > 24*time.Hour {
		return fmt.Errorf("a duration must be positive and at most 24h")
	}
	d.set = true
	return nil
}

// ParseSections decodes the [mcp_servers] tables of every configuration
// layer (config.Config.Sections("mcp_servers"), lowest precedence first).
// A later layer's definition of a name replaces an earlier one whole.
// ${VAR} references are expanded with getenv. Errors name the file, line,
// server and key, and never a secret's value. The result is sorted by name.
func ParseSections(sections []config.RawSection, getenv func(string) string) ([]ServerConfig, error) {
	merged := map[string]ServerConfig{}
	for _, sec := range sections {
		var raw map[string]tomlServer
		if err := sec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
		for _, name := range slices.Sorted(maps.Keys(raw)) {
			sc, err := fromTOML(sec, name, raw[name], getenv)
			if err != nil {
				return nil, err
			}
			merged[name] = sc
		}
	}
	return sortedConfigs(merged), nil
}

func sortedConfigs(m map[string]ServerConfig) []ServerConfig {
	out := make([]ServerConfig, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[name])
	}
	return out
}

// fromTOML converts and validates one table.
func fromTOML(sec config.RawSection, name string, t tomlServer, getenv func(string) string) (ServerConfig, error) {
	at := func(key string) []string { return append([]string{name}, strings.Split(key, ".")...) }
	fail := func(fe *fieldError) error {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, sec.Errorf(at(fe.key), "mcp_servers.%s.%s", name, fe.Error()))
	}
	if err := ValidateServerName(name); err != nil {
		return ServerConfig{}, fmt.Errorf("%w: %w", ErrInvalidConfig, sec.Errorf([]string{name}, "[mcp_servers.%s]: %v", clip(name, 80), strings.TrimPrefix(err.Error(), ErrInvalidConfig.Error()+": ")))
	}
	sc := ServerConfig{
		Name:              name,
		Command:           t.Command,
		Args:              t.Args,
		Env:               Secrets(t.Env),
		EnvVars:           t.EnvVars,
		Cwd:               t.Cwd,
		URL:               t.URL,
		BearerTokenEnvVar: t.BearerTokenEnvVar,
		Transport:         Transport(t.Transport),
		ProtocolVersion:   t.ProtocolVersion,
		Tasks:             TaskMode(strings.ToLower(t.Tasks)),
		Sampling:          SamplingMode(strings.ToLower(t.Sampling)),
		DisabledTools:     t.DisabledTools,
		Required:          t.Required,
		Disabled:          t.Enabled != nil && !*t.Enabled,
		Source:            sec.Position(name).String(),
		Project:           sec.Source.Layer == config.LayerProject,
	}
	if !sc.Project {
		// A repository's table may not widen its own sandbox; its
		// network comes from the trust grant (see TrustStore).
		sc.Unconfined = t.Sandbox != nil && !*t.Sandbox
		sc.Network = t.Network
	}
	if t.EnabledTools != nil {
		sc.EnabledTools = append([]string{}, *t.EnabledTools...)
	}
	if len(t.Headers) > 0 && len(t.HTTPHeaders) > 0 {
		return ServerConfig{}, fail(ferr("http_headers", "set headers or http_headers, not both"))
	}
	sc.Headers = Secrets(t.Headers)
	if len(t.HTTPHeaders) > 0 {
		sc.Headers = Secrets(t.HTTPHeaders)
	}
	for _, p := range []struct {
		key      string
		a, b     duration
		dst      *time.Duration
		bKeyName string
	}{
		{"startup_timeout", t.StartupTimeout, t.StartupTimeoutSec, &sc.StartupTimeout, "startup_timeout_sec"},
		{"tool_timeout", t.ToolTimeout, t.ToolTimeoutSec, &sc.ToolTimeout, "tool_timeout_sec"},
	} {
		if p.a.set && p.b.set {
			return ServerConfig{}, fail(ferr(p.bKeyName, "set %s or %s, not both", p.key, p.bKeyName))
		}
		if p.a.set {
			*p.dst = p.a.d
		} else if p.b.set {
			*p.dst = p.b.d
		}
	}
	if t.ProbeTimeout.set {
		sc.ProbeTimeout = t.ProbeTimeout.d
	}
	if t.OAuth != nil {
		o := &OAuthConfig{
			ClientID:          t.OAuth.ClientID,
			ClientMetadataURL: t.OAuth.ClientMetadataURL,
			RedirectURL:       t.OAuth.RedirectURL,
			Scopes:            t.OAuth.Scopes,
		}
		if n := t.OAuth.ClientSecretEnvVar; n != "" {
			if !envNameRE.MatchString(n) {
				return ServerConfig{}, fail(ferr("oauth.client_secret_env_var", "%q is not a valid environment variable name", clip(n, 40)))
			}
			if getenv == nil || getenv(n) == "" {
				return ServerConfig{}, fail(ferr("oauth.client_secret_env_var", "$%s is not set", n))
			}
			o.ClientSecret = Secret(getenv(n))
		}
		sc.OAuth = o
	}
	if fe := sc.expandAll(getenv); fe != nil {
		return ServerConfig{}, fail(fe)
	}
	if fe := sc.check(); fe != nil {
		return ServerConfig{}, fail(fe)
	}
	return sc, nil
}

// LoadServers returns every configured server: those of the workspace's
// .mcp.json (when workspace is set), overridden by name by the
// [mcp_servers] tables of the configuration layers. Both come from files a
// cloned repository can carry (.mcp.json, .rein/config.toml); Source tells
// where each server was defined so callers can decide what to trust.
func LoadServers(c *config.Config, workspace string, getenv func(string) string) ([]ServerConfig, error) {
	merged := map[string]ServerConfig{}
	if workspace != "" {
		fromJSON, err := LoadMCPJSON(filepath.Join(workspace, ".mcp.json"), getenv)
		if err != nil {
			return nil, err
		}
		for _, sc := range fromJSON {
			// The workspace's file may not widen its own sandbox.
			sc.Project, sc.Unconfined, sc.Network = true, false, nil
			merged[sc.Name] = sc
		}
	}
	fromTOML, err := ParseSections(c.Sections("mcp_servers"), getenv)
	if err != nil {
		return nil, err
	}
	for _, sc := range fromTOML {
		merged[sc.Name] = sc
	}
	return sortedConfigs(merged), nil
}
