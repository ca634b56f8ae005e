package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/reinharness/rein/model/provider"
)

// ErrInvalidFlag marks an error in a value given on the command line (a
// usage error, as opposed to a broken file or environment).
var ErrInvalidFlag = errors.New("invalid flag value")

// LoadOptions says where to look for configuration.
type LoadOptions struct {
	// Workspace is the project directory; its .rein/config.toml is the
	// project layer. Empty means no project layer.
	Workspace string
	// File is the --config file. It replaces the user file and must exist.
	File string
	// Flags holds the values the user gave on the command line.
	Flags Settings
	// Profile is the --profile flag: the [profiles.NAME] tables to apply
	// over each file's top. Empty means REIN_PROFILE, else none.
	Profile string
	// Getenv reads the environment; nil means os.Getenv. Tests pass a map
	// lookup to stay hermetic.
	Getenv func(string) string
}

// UserConfigPath returns the user file's path:
// $XDG_CONFIG_HOME/rein/config.toml, else ~/.config/rein/config.toml. It
// returns "" when neither XDG_CONFIG_HOME nor a home directory is known.
func UserConfigPath(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	// The XDG spec says relative values are invalid and must be ignored.
	if dir := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "rein", "config.toml")
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return ""
		}
	}
	return filepath.Join(home, ".config", "rein", "config.toml")
}

// ProjectConfigPath returns the project file's path inside workspace.
func ProjectConfigPath(workspace string) string {
	return filepath.Join(workspace, ".rein", "config.toml")
}

// Load reads every layer and merges them (see the package documentation
// for the order). Errors name the file and line, the environment variable
// or the flag at fault; errors in flag values wrap ErrInvalidFlag.
func Load(opts LoadOptions) (*Config, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	layers, err := readFiles(opts, getenv)
	if err != nil {
		return nil, err
	}
	profile, profileSrc, err := selectProfile(opts.Profile, getenv, layers)
	if err != nil {
		return nil, err
	}
	m := newMerger()
	for _, l := range layers {
		m.applyFile(l)
		if p := l.profiles[profile]; p != nil {
			if err := m.applyProfile(p); err != nil {
				return nil, err
			}
		}
	}
	if err := m.applyEnv(getenv); err != nil {
		return nil, err
	}
	if err := m.applyEnvAliases(getenv); err != nil {
		return nil, err
	}
	if err := m.applyFlags(&opts.Flags); err != nil {
		return nil, err
	}
	m.resolveAPIKey(&opts.Flags, getenv)
	c := m.result()
	c.profile, c.profileSrc, c.profileNames = profile, profileSrc, profileNames(layers)
	if err := c.checkCommandTimeouts(); err != nil {
		return nil, err
	}
	return c, nil
}

// readFiles reads the user (or --config) file and the project file.
func readFiles(opts LoadOptions, getenv func(string) string) ([]*fileLayer, error) {
	var layers []*fileLayer
	if opts.File != "" {
		l, err := readFile(LayerFile, opts.File, true)
		if err != nil {
			return nil, err
		}
		layers = append(layers, l)
	} else if path := UserConfigPath(getenv); path != "" {
		l, err := readFile(LayerUser, path, false)
		if err != nil {
			return nil, err
		}
		if l != nil {
			layers = append(layers, l)
		}
	}
	if opts.Workspace != "" {
		l, err := readFile(LayerProject, ProjectConfigPath(opts.Workspace), false)
		if err != nil {
			return nil, err
		}
		if l != nil {
			layers = append(layers, l)
		}
	}
	return layers, nil
}

// readFile reads and parses one file. A missing optional file is (nil, nil).
func readFile(kind LayerKind, path string, required bool) (*fileLayer, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !required:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("config: %s: no such file; check the --config path", path)
	case err != nil:
		return nil, fmt.Errorf("config: %s: %v", path, errors.Unwrap(err))
	case fi.IsDir():
		return nil, fmt.Errorf("config: %s: is a directory, not a config file", path)
	case fi.Size() > maxFileSize:
		return nil, fmt.Errorf("config: %s: file is larger than %d bytes; is this really a rein config file?", path, maxFileSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %s: %v", path, errors.Unwrap(err))
	}
	return parseFile(kind, path, data)
}

// merger folds layers into one Settings, tracking where each value came
// from.
type merger struct {
	eff      Settings
	sources  map[string]Source
	sections map[string][]RawSection
	warnings []string
	// projectPrompt is the project layer's agent.system_prompt, kept
	// apart: it never replaces the system prompt (see
	// Config.ProjectInstructions).
	projectPrompt    string
	projectPromptSrc Source
}

func newMerger() *merger {
	return &merger{sources: map[string]Source{}, sections: map[string][]RawSection{}}
}

func (m *merger) set(spec *keySpec, v any, src Source) {
	spec.setValue(&m.eff, v)
	m.sources[spec.key] = src
}

// applyFile merges one file. Values were validated while parsing; the
// project layer may only tighten limits.
func (m *merger) applyFile(l *fileLayer) {
	_ = m.merge(l, false)
}

// applyProfile merges a selected profile over its file. A project's
// profile obeys the project's rules, but a limit it would loosen is an
// error rather than a warning: the user asked for that profile by name,
// and running without what it says would be a surprise.
func (m *merger) applyProfile(l *fileLayer) error {
	return m.merge(l, l.kind == LayerProject)
}

// merge folds a layer in; strict turns an ignored project limit into an
// error naming the key.
func (m *merger) merge(l *fileLayer, strict bool) error {
	for i := range specs {
		spec := &specs[i]
		v, ok := spec.getValue(&l.set)
		if !ok {
			continue
		}
		src := l.source(spec.key)
		if l.kind == LayerProject && spec.key == keyProjectPrompt {
			m.projectPrompt, m.projectPromptSrc = v.(string), src
			continue
		}
		if l.kind == LayerProject && spec.limit {
			cur := m.current(spec)
			if !tighter(spec, v, cur) {
				if strict {
					return fmt.Errorf("config: %s:%d: profiles.%s.%s = %s would loosen a limit (in force: %s from %s); a project's profile may only tighten: lower the value, or define the profile in your user config",
						l.path, src.Line, l.profile, spec.key, formatValue(v), formatValue(cur), m.sourceOf(spec.key))
				}
				m.warnings = append(m.warnings, fmt.Sprintf(
					"%s: %s = %s ignored: a project config may only tighten limits (in force: %s from %s)",
					src, spec.key, formatValue(v), formatValue(cur), m.sourceOf(spec.key)))
				continue
			}
		}
		m.set(spec, v, src)
	}
	for _, s := range l.sections {
		m.sections[s.Name] = append(m.sections[s.Name], s)
	}
	return nil
}

// applyEnv merges the variables that name settings (the API key is
// resolved separately).
func (m *merger) applyEnv(getenv func(string) string) error {
	for i := range specs {
		spec := &specs[i]
		if spec.env == "" {
			continue
		}
		raw := getenv(spec.env)
		if raw == "" {
			continue
		}
		v, err := spec.convert(raw)
		if err == nil && spec.validate != nil {
			err = spec.validate(v)
		}
		if err != nil {
			return fmt.Errorf("config: environment variable %s: %v", spec.env, err)
		}
		m.set(spec, v, Source{Layer: LayerEnv, Name: spec.env})
	}
	return nil
}

// applyEnvAliases merges the aliases whose provider is in force and whose
// key no REIN_ variable set.
func (m *merger) applyEnvAliases(getenv func(string) string) error {
	// The variable names other llama.cpp and Anthropic tools use, from
	// the provider table, for the provider in force.
	p, _ := provider.Lookup(m.provider())
	for _, a := range p.Aliases {
		raw := getenv(a.Env)
		if raw == "" || m.sourceOf(a.Key).Layer == LayerEnv {
			continue
		}
		spec, _ := specFor(a.Key)
		if spec.validate != nil {
			if err := spec.validate(raw); err != nil {
				return fmt.Errorf("config: environment variable %s: %v", a.Env, err)
			}
		}
		m.set(spec, raw, Source{Layer: LayerEnv, Name: a.Env})
	}
	return nil
}

// applyFlags merges command-line values, validating them with the same
// rules as files.
func (m *merger) applyFlags(flags *Settings) error {
	for i := range specs {
		spec := &specs[i]
		v, ok := spec.getValue(flags)
		if !ok || spec.key == "model.api_key" {
			continue
		}
		name := spec.flag
		if name == "" {
			name = spec.key
		}
		if spec.validate != nil {
			if err := spec.validate(v); err != nil {
				return fmt.Errorf("%w: %s %v", ErrInvalidFlag, name, err)
			}
		}
		m.set(spec, v, Source{Layer: LayerFlag, Name: name})
	}
	return nil
}

// resolveAPIKey picks the key: --api-key, then REIN_API_KEY, then the
// variable named by model.api_key_env, then the provider's conventional
// variables (ANTHROPIC_API_KEY; OPENAI_API_KEY, then llama.cpp's
// LLAMA_API_KEY).
func (m *merger) resolveAPIKey(flags *Settings, getenv func(string) string) {
	spec, _ := specFor("model.api_key")
	if flags.APIKey != nil && *flags.APIKey != "" {
		m.set(spec, *flags.APIKey, Source{Layer: LayerFlag, Name: spec.flag})
		return
	}
	candidates := []string{provider.KeyVar}
	if m.eff.APIKeyEnv != nil {
		candidates = append(candidates, *m.eff.APIKeyEnv)
	}
	p, _ := provider.Lookup(m.provider())
	candidates = append(candidates, p.KeyVars...)
	for _, name := range candidates {
		if v := getenv(name); v != "" {
			m.set(spec, v, Source{Layer: LayerEnv, Name: name})
			return
		}
	}
}

func (m *merger) provider() string {
	if m.eff.Provider != nil {
		return *m.eff.Provider
	}
	return ProviderOpenAI
}

func (m *merger) sourceOf(key string) Source {
	if s, ok := m.sources[key]; ok {
		return s
	}
	return Source{Layer: LayerDefault}
}

// current returns the value in force for a limit key: the merged value so
// far, else the default.
func (m *merger) current(spec *keySpec) any {
	if v, ok := spec.getValue(&m.eff); ok {
		return v
	}
	d := defaultSettings()
	v, _ := spec.getValue(&d)
	return v
}

// result builds the Config from the merged settings and the defaults.
func (m *merger) result() *Config {
	d := defaultSettings()
	e := &m.eff
	c := &Config{
		Model: ModelConfig{
			Provider:      m.provider(),
			Model:         deref(e.Model, ""),
			APIKey:        Secret(deref(e.APIKey, "")),
			APIKeyEnv:     deref(e.APIKeyEnv, ""),
			ContextWindow: deref(e.ContextWindow, 0),
			MaxTokens:     deref(e.MaxTokens, 0),
			Temperature:   e.Temperature,
			InputPrice:    deref(e.InputPrice, 0),
			OutputPrice:   deref(e.OutputPrice, 0),

			ReasoningEffort:  deref(e.ReasoningEffort, ""),
			ConnectTimeout:   deref(e.ConnectTimeout, *d.ConnectTimeout),
			HeaderTimeout:    deref(e.HeaderTimeout, *d.HeaderTimeout),
			IdleTimeout:      deref(e.IdleTimeout, *d.IdleTimeout),
			RequestTimeout:   deref(e.RequestTimeout, *d.RequestTimeout),
			RetryBudget:      deref(e.RetryBudget, *d.RetryBudget),
			MaxResponseBytes: deref(e.MaxResponseBytes, *d.MaxResponseBytes),
		},
		Agent: AgentConfig{
			SystemPrompt:     deref(e.SystemPrompt, ""),
			MaxSteps:         deref(e.MaxSteps, *d.MaxSteps),
			Timeout:          deref(e.Timeout, *d.Timeout),
			TokenBudget:      deref(e.TokenBudget, *d.TokenBudget),
			MaxParallelTools: deref(e.MaxParallelTools, *d.MaxParallelTools),
			ToolTimeout:      deref(e.ToolTimeout, *d.ToolTimeout),
			MaxResultBytes:   deref(e.MaxResultBytes, *d.MaxResultBytes),
			MaxSubagentDepth: deref(e.MaxSubagentDepth, *d.MaxSubagentDepth),
			MaxTreeSteps:     deref(e.MaxTreeSteps, *d.MaxTreeSteps),

			RepeatLimit:           deref(e.RepeatLimit, *d.RepeatLimit),
			MaxConsecutiveDenials: deref(e.MaxConsecutiveDenials, *d.MaxConsecutiveDenials),
			CommandTimeout:        deref(e.CommandTimeout, *d.CommandTimeout),
			CommandMaxTimeout:     deref(e.CommandMaxTimeout, *d.CommandMaxTimeout),
			CommandOutputBytes:    deref(e.CommandOutputBytes, *d.CommandOutputBytes),
		},
		Warnings: m.warnings,
		merged:   m.eff,
		sources:  m.sources,
		sections: m.sections,

		projectPrompt:    m.projectPrompt,
		projectPromptSrc: m.projectPromptSrc,
	}
	c.Model.Endpoint = deref(e.Endpoint, defaultEndpoint(c.Model.Provider))
	return c
}

// defaultSettings returns the limits in force when nothing sets them.
func defaultSettings() Settings {
	return Settings{
		ConnectTimeout:   new(DefaultConnectTimeout),
		HeaderTimeout:    new(DefaultHeaderTimeout),
		IdleTimeout:      new(DefaultIdleTimeout),
		RequestTimeout:   new(DefaultRequestTimeout),
		RetryBudget:      new(DefaultRetryBudget),
		MaxResponseBytes: new(DefaultMaxResponseBytes),

		MaxSteps:         new(DefaultMaxSteps),
		Timeout:          new(time.Duration(0)),
		TokenBudget:      new(0),
		MaxParallelTools: new(DefaultMaxParallelTools),
		ToolTimeout:      new(DefaultToolTimeout),
		MaxResultBytes:   new(DefaultMaxResultBytes),
		MaxSubagentDepth: new(DefaultMaxSubagentDepth),
		MaxTreeSteps:     new(DefaultMaxTreeSteps),

		RepeatLimit:           new(DefaultRepeatLimit),
		MaxConsecutiveDenials: new(DefaultMaxConsecutiveDenials),
		CommandTimeout:        new(DefaultCommandTimeout),
		CommandMaxTimeout:     new(DefaultCommandMaxTimeout),
		CommandOutputBytes:    new(DefaultCommandOutputBytes),
	}
}

// tighter reports whether a project value v is at least as strict as cur.
func tighter(spec *keySpec, v, cur any) bool {
	nv, nc := asInt64(v), asInt64(cur)
	if spec.zeroIsUnlimited {
		switch {
		case nc == 0:
			return true
		case nv == 0:
			return false
		}
	}
	return nv <= nc
}

func asInt64(v any) int64 {
	switch v := v.(type) {
	case int:
		return int64(v)
	case time.Duration:
		return int64(v)
	}
	return 0
}

func formatValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
