package config

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/reinharness/rein/model/provider"
)

// valueKind is the Go type a key's value converts to.
type valueKind int

const (
	kindString valueKind = iota
	kindInt
	kindFloat
	kindDuration
)

// keySpec describes one setting of [model] or [agent].
type keySpec struct {
	key  string // "model.endpoint"
	name string // "endpoint": the key inside its table
	kind valueKind
	// flag is the command-line flag rein maps to this key, for messages.
	flag string
	// env is the environment variable read for this key, if any.
	env string
	// inFiles is false for keys that must never come from a file (the
	// API key itself).
	inFiles bool
	// trustedOnly keys redirect credentials and are refused in the
	// project layer.
	trustedOnly bool
	// limit keys may only be lowered by the project layer; zeroIsUnlimited
	// says 0 means "no limit" (so any positive value is tighter).
	limit           bool
	zeroIsUnlimited bool
	validate        func(v any) error
	// field returns a pointer to the Settings field: **string, **int,
	// **float64 or **time.Duration.
	field func(s *Settings) any
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// specs lists every [model] and [agent] key, plus model.api_key, which only
// flags and the environment may set.
var specs = []keySpec{
	{key: "model.provider", name: "provider", kind: kindString, flag: "--provider", env: "REIN_PROVIDER",
		inFiles: true, trustedOnly: true, validate: validProvider,
		field: func(s *Settings) any { return &s.Provider }},
	{key: "model.endpoint", name: "endpoint", kind: kindString, flag: "--endpoint", env: "REIN_ENDPOINT",
		inFiles: true, trustedOnly: true, validate: validEndpoint,
		field: func(s *Settings) any { return &s.Endpoint }},
	{key: "model.model", name: "model", kind: kindString, flag: "--model", env: "REIN_MODEL",
		inFiles: true, field: func(s *Settings) any { return &s.Model }},
	{key: "model.api_key", name: "api_key", kind: kindString, flag: "--api-key",
		field: func(s *Settings) any { return &s.APIKey }},
	{key: "model.api_key_env", name: "api_key_env", kind: kindString,
		inFiles: true, trustedOnly: true, validate: validEnvName,
		field: func(s *Settings) any { return &s.APIKeyEnv }},
	{key: "model.context_window", name: "context_window", kind: kindInt,
		inFiles: true, validate: intRange(0, 1<<30),
		field: func(s *Settings) any { return &s.ContextWindow }},
	{key: "model.max_tokens", name: "max_tokens", kind: kindInt,
		inFiles: true, validate: intRange(0, 1<<30),
		field: func(s *Settings) any { return &s.MaxTokens }},
	// Prices are per million tokens, in whatever currency the user
	// reads them in; chat's status line and /cost show the session's
	// cost when both are set.
	{key: "model.input_price", name: "input_price", kind: kindFloat,
		inFiles: true, validate: floatRange(0, 1e6),
		field: func(s *Settings) any { return &s.InputPrice }},
	{key: "model.output_price", name: "output_price", kind: kindFloat,
		inFiles: true, validate: floatRange(0, 1e6),
		field: func(s *Settings) any { return &s.OutputPrice }},
	{key: "model.temperature", name: "temperature", kind: kindFloat,
		inFiles: true, validate: floatRange(0, 2),
		field: func(s *Settings) any { return &s.Temperature }},
	{key: "model.reasoning_effort", name: "reasoning_effort", kind: kindString, flag: "--reasoning-effort",
		inFiles: true, validate: validEffort,
		field: func(s *Settings) any { return &s.ReasoningEffort }},
	// The bounds of a model request's waits. A project may only shorten
	// them; request_timeout 0 (none) and retry_budget 0 (no retries) are
	// documented, the others must be positive.
	{key: "model.connect_timeout", name: "connect_timeout", kind: kindDuration,
		inFiles: true, limit: true, validate: durationRange(time.Millisecond, time.Hour),
		field: func(s *Settings) any { return &s.ConnectTimeout }},
	{key: "model.header_timeout", name: "header_timeout", kind: kindDuration,
		inFiles: true, limit: true, validate: durationRange(time.Millisecond, 24*time.Hour),
		field: func(s *Settings) any { return &s.HeaderTimeout }},
	{key: "model.idle_timeout", name: "idle_timeout", kind: kindDuration,
		inFiles: true, limit: true, validate: durationRange(time.Millisecond, 24*time.Hour),
		field: func(s *Settings) any { return &s.IdleTimeout }},
	{key: "model.request_timeout", name: "request_timeout", kind: kindDuration, flag: "--request-timeout",
		inFiles: true, limit: true, zeroIsUnlimited: true, validate: durationRange(0, 7*24*time.Hour),
		field: func(s *Settings) any { return &s.RequestTimeout }},
	{key: "model.retry_budget", name: "retry_budget", kind: kindDuration,
		inFiles: true, limit: true, validate: durationRange(0, 24*time.Hour),
		field: func(s *Settings) any { return &s.RetryBudget }},
	{key: "model.max_response_bytes", name: "max_response_bytes", kind: kindInt,
		inFiles: true, limit: true, validate: intRange(64<<10, 1<<30),
		field: func(s *Settings) any { return &s.MaxResponseBytes }},

	{key: "agent.system_prompt", name: "system_prompt", kind: kindString, flag: "--system",
		inFiles: true, field: func(s *Settings) any { return &s.SystemPrompt }},
	{key: "agent.max_steps", name: "max_steps", kind: kindInt, flag: "--max-steps",
		inFiles: true, limit: true, validate: intRange(1, 1<<20),
		field: func(s *Settings) any { return &s.MaxSteps }},
	{key: "agent.timeout", name: "timeout", kind: kindDuration, flag: "--timeout",
		inFiles: true, limit: true, zeroIsUnlimited: true, validate: durationMin(0),
		field: func(s *Settings) any { return &s.Timeout }},
	{key: "agent.token_budget", name: "token_budget", kind: kindInt,
		inFiles: true, limit: true, zeroIsUnlimited: true, validate: intRange(0, math.MaxInt32),
		field: func(s *Settings) any { return &s.TokenBudget }},
	{key: "agent.max_parallel_tools", name: "max_parallel_tools", kind: kindInt,
		inFiles: true, limit: true, validate: intRange(1, 256),
		field: func(s *Settings) any { return &s.MaxParallelTools }},
	{key: "agent.tool_timeout", name: "tool_timeout", kind: kindDuration,
		inFiles: true, limit: true, validate: durationMin(time.Millisecond),
		field: func(s *Settings) any { return &s.ToolTimeout }},
	{key: "agent.max_result_bytes", name: "max_result_bytes", kind: kindInt,
		inFiles: true, limit: true, validate: intRange(256, 1<<30),
		field: func(s *Settings) any { return &s.MaxResultBytes }},
	// Sub-agents (the task tool): depth 0 disables them, and the depth
	// never exceeds the design's 3; a project may only lower either.
	{key: "agent.max_subagent_depth", name: "max_subagent_depth", kind: kindInt,
		inFiles: true, limit: true, validate: intRange(0, 3),
		field: func(s *Settings) any { return &s.MaxSubagentDepth }},
	{key: "agent.max_tree_steps", name: "max_tree_steps", kind: kindInt,
		inFiles: true, limit: true, validate: intRange(1, 1<<20),
		field: func(s *Settings) any { return &s.MaxTreeSteps }},
	// The loop's stops. A repeat limit of 1 would end every run at its
	// first call and "off" lets a stuck model spend every step, so it is
	// 2 or more; max_consecutive_denials 0 is off (the step limit still
	// bounds the run), which a project cannot choose (0 is unlimited).
	{key: "agent.repeat_limit", name: "repeat_limit", kind: kindInt, flag: "--repeat-limit",
		inFiles: true, limit: true, validate: intRange(2, 1000),
		field: func(s *Settings) any { return &s.RepeatLimit }},
	{key: "agent.max_consecutive_denials", name: "max_consecutive_denials", kind: kindInt, flag: "--max-denials",
		inFiles: true, limit: true, zeroIsUnlimited: true, validate: intRange(0, 1000),
		field: func(s *Settings) any { return &s.MaxConsecutiveDenials }},
	// run_command's defaults; a call's own timeout_s is capped at
	// command_max_timeout.
	{key: "agent.command_timeout", name: "command_timeout", kind: kindDuration, flag: "--command-timeout",
		inFiles: true, limit: true, validate: durationRange(time.Second, 24*time.Hour),
		field: func(s *Settings) any { return &s.CommandTimeout }},
	{key: "agent.command_max_timeout", name: "command_max_timeout", kind: kindDuration,
		inFiles: true, limit: true, validate: durationRange(time.Second, 24*time.Hour),
		field: func(s *Settings) any { return &s.CommandMaxTimeout }},
	{key: "agent.command_output_bytes", name: "command_output_bytes", kind: kindInt,
		inFiles: true, limit: true, validate: intRange(1<<10, 64<<20),
		field: func(s *Settings) any { return &s.CommandOutputBytes }},
}

// deferredSections are top-level tables owned by other packages.
var deferredSections = []string{"policy", "sandbox", "tools", "mcp", "mcp_servers", "lsp", "network", "session", "telemetry", "context", "hooks", "verify", "temporal", "memory", "instructions"}

// typedSections are the top-level tables this package decodes.
var typedSections = []string{"model", "agent"}

func specFor(key string) (*keySpec, bool) {
	for i := range specs {
		if specs[i].key == key {
			return &specs[i], true
		}
	}
	return nil, false
}

// fileKeys returns the names a file may use inside section.
func fileKeys(section string) []string {
	var names []string
	for _, s := range specs {
		if s.inFiles && s.key == section+"."+s.name {
			names = append(names, s.name)
		}
	}
	return names
}

// getValue returns the value of spec's field in s, if set.
func (spec *keySpec) getValue(s *Settings) (any, bool) {
	switch p := spec.field(s).(type) {
	case **string:
		if *p != nil {
			return **p, true
		}
	case **int:
		if *p != nil {
			return **p, true
		}
	case **float64:
		if *p != nil {
			return **p, true
		}
	case **time.Duration:
		if *p != nil {
			return **p, true
		}
	}
	return nil, false
}

// setValue stores v, already converted to spec.kind, in s.
func (spec *keySpec) setValue(s *Settings, v any) {
	switch p := spec.field(s).(type) {
	case **string:
		*p = new(v.(string))
	case **int:
		*p = new(v.(int))
	case **float64:
		*p = new(v.(float64))
	case **time.Duration:
		*p = new(v.(time.Duration))
	}
}

func validProvider(v any) error {
	if _, ok := provider.Lookup(v.(string)); ok {
		return nil
	}
	return fmt.Errorf("must be %s (got %q)", quotedList(provider.Names()), v)
}

func validEndpoint(v any) error {
	s := v.(string)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http:// or https:// URL such as %q", DefaultEndpoint())
	}
	if u.User != nil {
		// A key in the URL would end up in logs and error messages.
		return fmt.Errorf("must not contain credentials; put the key in an environment variable named by model.api_key_env")
	}
	return nil
}

func validEnvName(v any) error {
	if !envNameRE.MatchString(v.(string)) {
		return fmt.Errorf("must name an environment variable, like \"MY_API_KEY\" (the key itself does not belong in a file)")
	}
	return nil
}

func intRange(lo, hi int) func(any) error {
	return func(v any) error {
		if n := v.(int); n < lo || n > hi {
			return fmt.Errorf("must be between %d and %d (got %d)", lo, hi, n)
		}
		return nil
	}
}

func floatRange(lo, hi float64) func(any) error {
	return func(v any) error {
		if f := v.(float64); math.IsNaN(f) || f < lo || f > hi {
			return fmt.Errorf("must be between %g and %g (got %g)", lo, hi, f)
		}
		return nil
	}
}

// durationRange accepts lo ≤ d ≤ hi.
func durationRange(lo, hi time.Duration) func(any) error {
	return func(v any) error {
		if d := v.(time.Duration); d < lo || d > hi {
			return fmt.Errorf("must be between %s and %s (got %s)", lo, hi, d)
		}
		return nil
	}
}

var effortRE = regexp.MustCompile(`^[a-z]{1,16}$`)

// validEffort accepts one lower-case word: servers differ in the levels
// they know (low, medium and high everywhere; some add minimal or none),
// and the server's own error names them.
func validEffort(v any) error {
	if !effortRE.MatchString(v.(string)) {
		return fmt.Errorf("must be a level such as \"low\", \"medium\" or \"high\" (got %q)", v)
	}
	return nil
}

func durationMin(lo time.Duration) func(any) error {
	return func(v any) error {
		if d := v.(time.Duration); d < lo {
			return fmt.Errorf("must be at least %s (got %s)", lo, d)
		}
		return nil
	}
}

// convert turns a decoded TOML value into spec.kind, or explains the
// mismatch.
func (spec *keySpec) convert(v any) (any, error) {
	switch spec.kind {
	case kindString:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return nil, fmt.Errorf("want a string, got %s", tomlTypeName(v))
	case kindInt:
		n, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("want an integer, got %s", tomlTypeName(v))
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return nil, fmt.Errorf("integer %d is out of range", n)
		}
		return int(n), nil
	case kindFloat:
		switch f := v.(type) {
		case float64:
			return f, nil
		case int64:
			return float64(f), nil
		}
		return nil, fmt.Errorf("want a number, got %s", tomlTypeName(v))
	case kindDuration:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a duration string like \"90s\", \"30m\" or \"1h\", got %s", tomlTypeName(v))
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("invalid duration %q: use a form like \"90s\", \"30m\" or \"1h\"", s)
		}
		return d, nil
	}
	return nil, fmt.Errorf("unsupported setting kind %d", spec.kind)
}

// tomlTypeName names a decoded TOML value's type the way the TOML spec does.
func tomlTypeName(v any) string {
	switch v := v.(type) {
	case string:
		// The contents are not shown: a misplaced credential must not
		// reach an error message.
		return "a string"
	case int64:
		return fmt.Sprintf("integer %d", v)
	case float64:
		return fmt.Sprintf("float %g", v)
	case bool:
		return fmt.Sprintf("boolean %t", v)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return "a datetime"
}

// quotedList renders names as `"a" or "b"`, `"a", "b" or "c"`.
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
