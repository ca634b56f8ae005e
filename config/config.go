package config

import (
	"fmt"
	"time"

	"github.com/reinharness/rein/model/provider"
)

// Providers rein can talk to: the names of model/provider's table, which
// also holds their default endpoints and key variables.
const (
	ProviderOpenAI    = provider.OpenAI    // any OpenAI-compatible Chat Completions server
	ProviderAnthropic = provider.Anthropic // the Anthropic Messages API
)

// DefaultEndpoint is the endpoint used when none is configured: the
// default provider's (llama.cpp's llama-server on this machine).
func DefaultEndpoint() string { return defaultEndpoint(ProviderOpenAI) }

func defaultEndpoint(name string) string {
	p, _ := provider.Lookup(name)
	return p.DefaultEndpoint
}

// Default agent limits. They mirror the agent package's own defaults so that
// the merged configuration states every limit explicitly and a project file
// can be checked against the limit really in force.
const (
	DefaultMaxSteps         = 50
	DefaultMaxParallelTools = 4
	DefaultToolTimeout      = 2 * time.Minute
	DefaultMaxResultBytes   = 64 << 10
	DefaultMaxSubagentDepth = 3
	DefaultMaxTreeSteps     = 50
	// DefaultRepeatLimit and DefaultMaxConsecutiveDenials mirror the
	// agent package's; DefaultCommandTimeout, DefaultCommandMaxTimeout
	// and DefaultCommandOutputBytes mirror tools/exec's (a test keeps
	// them equal).
	DefaultRepeatLimit           = 3
	DefaultMaxConsecutiveDenials = 3
	DefaultCommandTimeout        = 2 * time.Minute
	DefaultCommandMaxTimeout     = 10 * time.Minute
	DefaultCommandOutputBytes    = 32 << 10
)

// Default bounds of a model request. They mirror model/transport's and
// model's own defaults (a test keeps them equal) so that the merged
// configuration states every bound explicitly. They fit a local llama.cpp,
// which may process a long prompt for minutes before its first byte, as
// well as a remote API.
const (
	DefaultConnectTimeout   = 30 * time.Second // TCP connect and TLS handshake
	DefaultHeaderTimeout    = 10 * time.Minute // request sent → response headers (first byte)
	DefaultIdleTimeout      = 5 * time.Minute  // longest silence inside a stream
	DefaultRequestTimeout   = 30 * time.Minute // the whole request, retries and stream included
	DefaultRetryBudget      = 2 * time.Minute  // no retry starts later than this after the first attempt
	DefaultMaxResponseBytes = 4 << 20          // text, reasoning and tool arguments of one answer
)

// Config is the merged configuration. Use Source to learn where a value came
// from.
type Config struct {
	Model ModelConfig
	Agent AgentConfig
	// Warnings lists settings that were read but not applied (a project
	// file trying to loosen a limit). Callers show them to the user.
	Warnings []string

	sources  map[string]Source
	sections map[string][]RawSection
	// merged is what the layers set, before defaults (Values).
	merged Settings

	projectPrompt    string
	projectPromptSrc Source

	profile      string
	profileSrc   Source
	profileNames []string
}

// keyProjectPrompt is the key a project layer may set only as
// instructions.
const keyProjectPrompt = "agent.system_prompt"

// ProjectInstructions returns the agent.system_prompt a project layer
// (<workspace>/.rein/config.toml) set, and where. A repository never
// replaces rein's system prompt: Agent.SystemPrompt holds only what the
// user's layers, the environment and flags set, and the project's text
// is for the caller to add after it, labelled as the project's
// instructions, as AGENTS.md files are. "" when the project sets none.
func (c *Config) ProjectInstructions() (string, Source) {
	return c.projectPrompt, c.projectPromptSrc
}

// ModelConfig selects and parameterises the model.
type ModelConfig struct {
	Provider string // ProviderOpenAI or ProviderAnthropic
	Endpoint string // base URL
	Model    string // model name; "" lets the server choose
	// APIKey is resolved from flags or the environment, never from a file.
	APIKey Secret
	// APIKeyEnv names the environment variable the key was looked up in
	// (from model.api_key_env), "" when unset.
	APIKeyEnv     string
	ContextWindow int      // tokens; 0 = ask the server
	MaxTokens     int      // output tokens per call; 0 = provider default
	Temperature   *float64 // nil = not sent
	// InputPrice and OutputPrice are what the model costs in US dollars
	// per million input and output tokens ([model] input_price and
	// output_price); 0 means unknown, and no cost is shown.
	InputPrice, OutputPrice float64
	// ReasoningEffort is sent as reasoning_effort to OpenAI-compatible
	// servers ("low", "medium", "high"); "" sends none.
	ReasoningEffort string

	// The bounds of every wait of a model request; see the Default
	// constants. RequestTimeout 0 means none (the other bounds still
	// hold); RetryBudget 0 means no retries.
	ConnectTimeout, HeaderTimeout, IdleTimeout, RequestTimeout, RetryBudget time.Duration
	// MaxResponseBytes caps the content of one answer in memory.
	MaxResponseBytes int
}

// AgentConfig holds the agent loop's prompt and limits. Zero Timeout and
// TokenBudget mean "no limit".
type AgentConfig struct {
	SystemPrompt     string
	MaxSteps         int
	Timeout          time.Duration
	TokenBudget      int
	MaxParallelTools int
	ToolTimeout      time.Duration
	MaxResultBytes   int
	// MaxSubagentDepth is the deepest a sub-agent may sit (the root is
	// 0); 0 disables sub-agents. MaxTreeSteps caps the model calls of a
	// run and all its sub-agents together.
	MaxSubagentDepth int
	MaxTreeSteps     int
	// RepeatLimit ends a run when the same call gave the same result this
	// many times in a row (at least 2; there is no "off": see
	// docs/configuration.md). MaxConsecutiveDenials ends it when this
	// many calls in a row were denied; 0 turns that stop off (the step
	// limit still bounds the run), and only the user's own layers may.
	RepeatLimit           int
	MaxConsecutiveDenials int
	// CommandTimeout is run_command's time limit when a call gives none,
	// CommandMaxTimeout the most a call may ask for, CommandOutputBytes
	// the output kept of one command (head and tail).
	CommandTimeout     time.Duration
	CommandMaxTimeout  time.Duration
	CommandOutputBytes int
}

// Secret is a credential. Its String, GoString and MarshalText methods
// return a placeholder so that printing or serialising a Config never leaks
// it; Reveal returns the value for the one place that must send it.
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret's value.
func (s Secret) Reveal() string { return string(s) }

// String returns a placeholder (or "" when the secret is empty).
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString returns a placeholder so %#v does not leak the value.
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.String()) }

// MarshalText returns a placeholder so JSON, TOML and YAML encoders do not
// leak the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LayerKind names a configuration source.
type LayerKind string

// Layer kinds, lowest precedence first.
const (
	LayerDefault LayerKind = "default"
	LayerUser    LayerKind = "user"    // ~/.config/rein/config.toml
	LayerFile    LayerKind = "file"    // --config FILE (replaces the user file)
	LayerProject LayerKind = "project" // <workspace>/.rein/config.toml
	LayerEnv     LayerKind = "env"
	LayerFlag    LayerKind = "flag"
)

// Source says where a setting came from.
type Source struct {
	Layer LayerKind
	// Name is the file path, environment variable or flag.
	Name string
	// Line is the line in the file, 0 when not from a file.
	Line int
	// Profile names the [profiles.NAME] table of the file the value
	// came from, "" for the file's top. Layer stays the file's, so a
	// project's profile is as untrusted as the rest of the project file.
	Profile string
}

// Origin names the layer in one word: "default", "user", "file",
// "project", "env", "flag", or for a profile's value "profile:NAME" (the
// user's or --config file's) and "project-profile:NAME".
func (s Source) Origin() string {
	switch {
	case s.Profile == "":
		return string(s.Layer)
	case s.Layer == LayerProject:
		return "project-profile:" + s.Profile
	}
	return "profile:" + s.Profile
}

// String renders the source for messages, e.g. "project
// /src/x/.rein/config.toml:4", "profile:ci /home/u/.config/rein/config.toml:9"
// or "env REIN_MODEL".
func (s Source) String() string {
	switch {
	case s.Name == "":
		return s.Origin()
	case s.Line > 0:
		return fmt.Sprintf("%s %s:%d", s.Origin(), s.Name, s.Line)
	}
	return fmt.Sprintf("%s %s", s.Origin(), s.Name)
}

// Source reports where the value of key ("model.endpoint",
// "agent.max_steps", "model.api_key", …) came from. Unset keys report
// LayerDefault.
func (c *Config) Source(key string) Source {
	if s, ok := c.sources[key]; ok {
		return s
	}
	return Source{Layer: LayerDefault}
}

// Sections returns every layer's copy of the named top-level table (for
// example "policy" or "mcp_servers"), lowest precedence first. Each owner
// decides how layers combine (policy: strictest wins; mcp_servers: later
// names override earlier ones).
func (c *Config) Sections(name string) []RawSection {
	return c.sections[name]
}

// Settings is one layer's explicitly set values; a nil field is "not set
// here". Callers use it to pass flag values to Load (only flags the user
// actually gave).
type Settings struct {
	Provider      *string
	Endpoint      *string
	Model         *string
	APIKey        *string
	APIKeyEnv     *string
	ContextWindow *int
	MaxTokens     *int
	Temperature   *float64
	InputPrice    *float64
	OutputPrice   *float64

	ReasoningEffort  *string
	ConnectTimeout   *time.Duration
	HeaderTimeout    *time.Duration
	IdleTimeout      *time.Duration
	RequestTimeout   *time.Duration
	RetryBudget      *time.Duration
	MaxResponseBytes *int

	SystemPrompt     *string
	MaxSteps         *int
	Timeout          *time.Duration
	TokenBudget      *int
	MaxParallelTools *int
	ToolTimeout      *time.Duration
	MaxResultBytes   *int
	MaxSubagentDepth *int
	MaxTreeSteps     *int

	RepeatLimit           *int
	MaxConsecutiveDenials *int
	CommandTimeout        *time.Duration
	CommandMaxTimeout     *time.Duration
	CommandOutputBytes    *int
}
