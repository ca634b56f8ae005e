package mcp

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Transport names how rein reaches a server.
type Transport string

// Transports. A server with a command uses TransportStdio; a server with a
// url uses TransportAuto unless the configuration pins one of the HTTP
// transports.
const (
	TransportStdio Transport = "stdio"
	// TransportAuto tries Streamable HTTP and falls back to the legacy
	// HTTP+SSE transport when the server refuses it with a 4xx status.
	TransportAuto       Transport = "auto"
	TransportStreamable Transport = "streamable"
	TransportSSE        Transport = "sse"
)

// Defaults for ServerConfig fields left zero.
const (
	// DefaultStartupTimeout bounds connecting to a server, handshake and
	// first tool listing included (Codex CLI uses the same default).
	DefaultStartupTimeout = 10 * time.Second
	// DefaultProbeTimeout bounds the server/discover probe. A legacy server
	// that ignores the probe costs at most this much before rein falls back
	// to the initialize handshake.
	DefaultProbeTimeout = 3 * time.Second
	// MaxServerNameLen keeps "<server>__" short enough that every exposed
	// tool name keeps its server prefix within the 64 characters model
	// APIs accept.
	MaxServerNameLen = 32
)

// Protocol versions rein speaks, newest first.
const (
	ProtocolModern = "2026-07-28" // stateless: server/discover, per-request _meta
	Protocol251125 = "2025-11-25"
	Protocol250618 = "2025-06-18"
	Protocol250326 = "2025-03-26"
	Protocol241105 = "2024-11-05"
)

// SupportedProtocols lists the versions a ServerConfig may pin, newest
// first.
var SupportedProtocols = []string{ProtocolModern, Protocol251125, Protocol250618, Protocol250326, Protocol241105}

// ErrInvalidConfig marks a server configuration rein cannot use.
var ErrInvalidConfig = errors.New("invalid MCP server configuration")

// ServerConfig describes one MCP server. Exactly one of Command (stdio) and
// URL (HTTP) is set.
//
// Env, Headers and the resolved bearer token are secrets: their values
// never appear in errors, logs or the String forms of this package's types.
type ServerConfig struct {
	// Name is the key of the server's table: 1–32 letters, digits, '-' and
	// single '_' (no "__", which separates server and tool in exposed tool
	// names, and no leading or trailing '_').
	Name string

	// Command, Args, Env, EnvVars and Cwd start a stdio server. The process
	// gets a minimal environment (PATH, HOME, locale, proxies, …), the
	// variables named in EnvVars copied from rein's environment, and Env.
	Command string
	Args    []string
	Env     Secrets
	EnvVars []string
	Cwd     string
	// Unconfined is set for a stdio server of the user's own config
	// with sandbox = false: the caller may start it outside the sandbox
	// once it checked that nothing it runs lies in the workspace.
	// Network, when set, is the server's network setting: from
	// network = false|true in the user's config, or from the trust grant
	// of a workspace-defined server; nil means the caller's default.
	Unconfined bool
	Network    *bool

	// URL, Headers and BearerTokenEnvVar reach an HTTP server. The bearer
	// token is read from the named environment variable when connecting and
	// sent as "Authorization: Bearer …".
	URL               string
	Headers           Secrets
	BearerTokenEnvVar string
	// OAuth configures the OAuth 2.1 authorization-code flow for servers
	// that demand it; nil means none.
	OAuth *OAuthConfig

	// Transport is TransportStdio for a command, else TransportAuto (the
	// default), TransportStreamable or TransportSSE.
	Transport Transport
	// ProtocolVersion pins the protocol version; "" probes for the newest
	// and falls back (see SupportedProtocols).
	ProtocolVersion string

	// EnabledTools, when non-nil, lists the only tools exposed (by the
	// server's own names); DisabledTools hides tools. Both apply.
	EnabledTools  []string
	DisabledTools []string

	// StartupTimeout bounds connecting (default DefaultStartupTimeout);
	// ProbeTimeout bounds the server/discover probe (default
	// DefaultProbeTimeout) and must be shorter. ToolTimeout, when set,
	// bounds each call to this server's tools instead of the agent's tool
	// timeout.
	StartupTimeout time.Duration
	ProbeTimeout   time.Duration
	ToolTimeout    time.Duration

	// Tasks says which tools are called as MCP tasks (started, polled,
	// collected): TasksAuto (the default) only those the server requires
	// as tasks, TasksAlways also those that merely allow it, TasksNever
	// none (a tool that requires a task is then not offered).
	Tasks TaskMode
	// Sampling says whether rein's model answers the server's sampling
	// requests: SamplingAsk (the default), SamplingAllow, SamplingNever.
	Sampling SamplingMode

	// Required servers fail the run when they cannot start; others are
	// reported once and left out.
	Required bool
	// Disabled servers are configured but not started.
	Disabled bool

	// Source says where the server was defined ("FILE:LINE"), for messages.
	Source string
	// Project is set for servers defined by files in the workspace (its
	// .mcp.json or .rein/config.toml): a cloned repository controls those,
	// so a caller may ask before starting them.
	Project bool
}

// TaskMode is a server's tasks setting (see ServerConfig.Tasks).
type TaskMode string

// Task modes.
const (
	TasksAuto   TaskMode = "auto"
	TasksAlways TaskMode = "always"
	TasksNever  TaskMode = "never"
)

// OAuthConfig configures OAuth 2.1 for an HTTP server. Client
// registration is tried in the order the MCP specification gives: a client
// ID metadata document (ClientMetadataURL), a pre-registered client
// (ClientID), then dynamic client registration.
type OAuthConfig struct {
	ClientID          string
	ClientSecret      Secret
	ClientMetadataURL string
	// RedirectURL receives the authorization response; it must be one the
	// Authorizer can observe (for example a loopback listener). Empty lets
	// the Authorizer's caller choose one (rein mcp login picks
	// http://127.0.0.1:PORT/callback with a free port).
	RedirectURL string
	// Scopes, when set, replace the scopes discovered from the server.
	Scopes []string
}

var serverNameRE = regexp.MustCompile(`^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$`)

// ValidateServerName reports whether name can name a server.
func ValidateServerName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: a server needs a name", ErrInvalidConfig)
	case len(name) > MaxServerNameLen:
		return fmt.Errorf("%w: server name %q is longer than %d characters", ErrInvalidConfig, clip(name, 80), MaxServerNameLen)
	case !serverNameRE.MatchString(name):
		return fmt.Errorf("%w: server name %q may use only letters, digits, '-' and single '_' (not \"__\", not at either end)", ErrInvalidConfig, clip(name, 80))
	}
	return nil
}

// withDefaults returns c with its zero fields defaulted.
func (c ServerConfig) withDefaults() ServerConfig {
	if c.StartupTimeout <= 0 {
		c.StartupTimeout = DefaultStartupTimeout
	}
	if c.ProbeTimeout <= 0 {
		c.ProbeTimeout = min(DefaultProbeTimeout, c.StartupTimeout/2)
	}
	if c.Tasks == "" {
		c.Tasks = TasksAuto
	}
	if c.Sampling == "" {
		c.Sampling = SamplingAsk
	}
	if c.Transport == "" {
		if c.Command != "" {
			c.Transport = TransportStdio
		} else {
			c.Transport = TransportAuto
		}
	}
	return c
}

// fieldError is a validation problem at one key of a server's table, so
// that each configuration format can say where it is.
type fieldError struct {
	key string
	msg string
}

// Error implements error.
func (e *fieldError) Error() string { return e.key + ": " + e.msg }

func ferr(key, format string, args ...any) *fieldError {
	return &fieldError{key: key, msg: fmt.Sprintf(format, args...)}
}

// Validate checks c after defaults, returning an error that names the
// server and the key at fault, wrapping ErrInvalidConfig.
func (c ServerConfig) Validate() error {
	if err := ValidateServerName(c.Name); err != nil {
		return err
	}
	if fe := c.check(); fe != nil {
		return fmt.Errorf("%w: mcp server %q: %s", ErrInvalidConfig, c.Name, fe.Error())
	}
	return nil
}

// check is Validate without the wrapping, for the format-specific callers
// that add a file and line.
func (c ServerConfig) check() *fieldError {
	c = c.withDefaults()
	switch {
	case c.Command == "" && c.URL == "":
		return ferr("command", "set command (a stdio server) or url (an HTTP server)")
	case c.Command != "" && c.URL != "":
		return ferr("url", "set either command (stdio) or url (HTTP), not both")
	}
	if c.Command != "" {
		if fe := c.checkStdio(); fe != nil {
			return fe
		}
	} else if fe := c.checkHTTP(); fe != nil {
		return fe
	}
	if c.ProtocolVersion != "" && !slices.Contains(SupportedProtocols, c.ProtocolVersion) {
		return ferr("protocol_version", "%q is not one of %s", clip(c.ProtocolVersion, 40), strings.Join(SupportedProtocols, ", "))
	}
	if c.ProbeTimeout >= c.StartupTimeout {
		return ferr("probe_timeout", "%v must be shorter than startup_timeout (%v)", c.ProbeTimeout, c.StartupTimeout)
	}
	if c.ToolTimeout < 0 {
		return ferr("tool_timeout", "must be positive")
	}
	switch c.Tasks {
	case TasksAuto, TasksAlways, TasksNever:
	default:
		return ferr("tasks", "%q is not auto, always or never", clip(string(c.Tasks), 40))
	}
	if !validSamplingMode(c.Sampling) {
		return ferr("sampling", "%q is not ask, allow or never", clip(string(c.Sampling), 40))
	}
	for _, n := range append(slices.Clone(c.EnabledTools), c.DisabledTools...) {
		if n == "" {
			return ferr("enabled_tools", "tool names must not be empty")
		}
	}
	return nil
}

func (c ServerConfig) checkStdio() *fieldError {
	if c.Transport != TransportStdio {
		return ferr("transport", "%q needs a url; a command server always uses stdio", c.Transport)
	}
	if len(c.Headers) > 0 || c.BearerTokenEnvVar != "" || c.OAuth != nil {
		return ferr("headers", "headers, bearer_token_env_var and oauth apply only to url servers")
	}
	for k := range c.Env {
		if !envNameRE.MatchString(k) {
			return ferr("env", "%q is not a valid environment variable name", clip(k, 40))
		}
	}
	for _, k := range c.EnvVars {
		if !envNameRE.MatchString(k) {
			return ferr("env_vars", "%q is not a valid environment variable name", clip(k, 40))
		}
	}
	return nil
}

func (c ServerConfig) checkHTTP() *fieldError {
	switch c.Transport {
	case TransportAuto, TransportStreamable, TransportSSE:
	default:
		return ferr("transport", "%q is not auto, streamable or sse", clip(string(c.Transport), 40))
	}
	if len(c.Args) > 0 || len(c.Env) > 0 || len(c.EnvVars) > 0 || c.Cwd != "" {
		return ferr("args", "args, env, env_vars and cwd apply only to command servers")
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ferr("url", "must be an http:// or https:// URL")
	}
	if u.User != nil {
		return ferr("url", "must not carry credentials; use headers or bearer_token_env_var")
	}
	for k := range c.Headers {
		if !headerNameRE.MatchString(k) {
			return ferr("headers", "%q is not a valid HTTP header name", clip(k, 40))
		}
	}
	if c.BearerTokenEnvVar != "" && !envNameRE.MatchString(c.BearerTokenEnvVar) {
		return ferr("bearer_token_env_var", "%q is not a valid environment variable name", clip(c.BearerTokenEnvVar, 40))
	}
	if c.OAuth != nil && c.OAuth.RedirectURL != "" {
		if u, err := url.Parse(c.OAuth.RedirectURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return ferr("oauth.redirect_url", "must be an http:// or https:// URL (rein mcp login listens on a loopback one; leave it out to let rein pick a port)")
		}
	}
	if c.OAuth != nil && c.OAuth.ClientMetadataURL != "" {
		if u, err := url.Parse(c.OAuth.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Path == "" || u.Path == "/" {
			return ferr("oauth.client_metadata_url", "must be an https:// URL with a path")
		}
	}
	return nil
}

var (
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerNameRE = regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$")
)

// clip shortens s (a value from a configuration or a server) for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
