package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/policy"
)

// Output formats of `rein run`.
const (
	formatText       = "text"
	formatJSON       = "json"
	formatStreamJSON = "stream-json"
)

// --approve modes.
const (
	approveAsk   = "ask"
	approveNever = "never"
	approveAuto  = "auto"
)

// commonFlags are the model, workspace and limit flags shared by run and
// chat. Only flags the user actually set override the configuration.
type commonFlags struct {
	fs *pflag.FlagSet
	// mcpOnly, when not nil, is the set of MCP servers to start (set by
	// commands, not by a flag): rein mcp serve --tools starts only the
	// servers whose tools it serves.
	mcpOnly map[string]bool

	endpoint, apiKey, model, provider string
	workspace, configFile, system     string
	// profile is --profile: the [profiles.NAME] tables to apply.
	profile  string
	maxSteps int
	timeout  time.Duration
	// requestTimeout and reasoningEffort set [model] request_timeout and
	// reasoning_effort.
	requestTimeout  time.Duration
	reasoningEffort string
	// preset and approve choose the policy preset and who resolves the
	// calls it asks about; stateDir is where approvals are kept.
	preset, approve, stateDir string
	// permissionMode is --permission-mode, Claude Code's spelling of
	// --preset (its mode names too); validate folds it into preset.
	permissionMode string
	// session chooses the stored session to continue, if any.
	session sessionFlags
	// noVerify skips the [verify] checks (the verification gate).
	noVerify bool
	// noMemory runs without the long-term memory (tools and index).
	noMemory bool
	// mcpWait is --mcp-wait: how long the first model request waits for
	// MCP servers that are not required ([mcp] startup_wait).
	mcpWait time.Duration
	// noTUI keeps chat in the line mode on a terminal (chat only).
	noTUI bool
	// loop holds the loop-limit flags and --append-system-prompt
	// (loopflags.go).
	loop loopFlags
}

func (f *commonFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	f.session.register(fs)
	fs.StringVarP(&f.endpoint, "endpoint", "e", "", "model server base URL (default "+config.DefaultEndpoint()+", llama.cpp)")
	fs.StringVarP(&f.apiKey, "api-key", "k", "", "API key (default: $REIN_API_KEY, then $OPENAI_API_KEY or $ANTHROPIC_API_KEY by provider)")
	fs.StringVarP(&f.model, "model", "m", "", "model name (default: the server's choice)")
	fs.StringVar(&f.provider, "provider", "", "wire protocol: openai (any OpenAI-compatible server) or anthropic (default openai)")
	fs.StringVarP(&f.workspace, "workspace", "C", "", "workspace directory (default: the enclosing git repository's root, else the current directory)")
	fs.StringVar(&f.configFile, "config", "", "config file to use instead of ~/.config/rein/config.toml")
	registerProfile(fs, &f.profile)
	fs.StringVar(&f.system, "system", "", "system prompt")
	fs.IntVar(&f.maxSteps, "max-steps", 0, fmt.Sprintf("maximum model calls per run (default %d)", config.DefaultMaxSteps))
	fs.DurationVar(&f.timeout, "timeout", 0, "time limit for a run, e.g. 90s, 30m (default: none)")
	fs.DurationVar(&f.requestTimeout, "request-timeout", 0, fmt.Sprintf("time limit for one model request, retries and stream included; 0 for none (default %s)", config.DefaultRequestTimeout))
	fs.StringVar(&f.reasoningEffort, "reasoning-effort", "", "reasoning_effort sent to OpenAI-compatible servers: low, medium or high (default: the server's)")
	fs.StringVar(&f.preset, "preset", "", "policy preset: read-only, editor, full or plan (default editor, or [policy] preset)")
	fs.StringVar(&f.permissionMode, "permission-mode", "", "the same as --preset; Claude Code's acceptEdits, bypassPermissions and default work too")
	fs.BoolVar(&f.noVerify, "no-verify", false, "skip the [verify] checks when the model says it is done")
	fs.BoolVar(&f.noMemory, "no-memory", false, "run without rein's long-term memory (no remember/recall/forget tools, no memory index)")
	fs.DurationVar(&f.mcpWait, "mcp-wait", 0, "how long the first model request waits for MCP servers that are not required, e.g. 5s; 0 not at all (default: each server's startup_timeout in run and -p, none in chat)")
	fs.StringVar(&f.approve, "approve", approveAsk, "who decides calls the policy asks about: ask (prompt on a terminal; never without one), never or auto")
	// The sessions commands may register --state-dir as well; the flag
	// is shared, and read through stateDirFlag whoever defined it.
	f.loop.register(fs)
	if fs.Lookup("state-dir") == nil {
		fs.StringVar(&f.stateDir, "state-dir", "", "directory for rein's state: sessions, logs, approved rules (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	}
}

// validate checks the flags that config.Load does not see.
func (f *commonFlags) validate() error {
	if err := f.session.validate(); err != nil {
		return err
	}
	if f.fs.Changed("preset") {
		if _, err := policy.ParsePreset(f.preset); err != nil || f.preset == "" {
			return usagef("--preset must be read-only, editor, full or plan (got %q)", f.preset)
		}
	}
	if f.fs.Changed("permission-mode") {
		p, err := parseMode(f.permissionMode)
		if err != nil {
			return usagef("--permission-mode: %v", err)
		}
		if f.fs.Changed("preset") && policy.Preset(f.preset) != p {
			return usagef("--permission-mode %s and --preset %s disagree: give one", f.permissionMode, f.preset)
		}
		f.preset = string(p)
	}
	switch f.approve {
	case approveAsk, approveNever, approveAuto:
		return nil
	}
	return usagef("--approve must be ask, never or auto (got %q)", f.approve)
}

// stateDirFlag returns the --state-dir value, "" when it was not given.
func (f *commonFlags) stateDirFlag() string {
	if fl := f.fs.Lookup("state-dir"); fl != nil && fl.Changed {
		return fl.Value.String()
	}
	return ""
}

// settings returns the flags the user set, as a configuration layer.
func (f *commonFlags) settings() config.Settings {
	var s config.Settings
	changed := f.fs.Changed
	if changed("endpoint") {
		s.Endpoint = new(f.endpoint)
	}
	if changed("api-key") {
		s.APIKey = new(f.apiKey)
	}
	if changed("model") {
		s.Model = new(f.model)
	}
	if changed("provider") {
		s.Provider = new(f.provider)
	}
	if changed("system") {
		s.SystemPrompt = new(f.system)
	}
	if changed("max-steps") {
		s.MaxSteps = new(f.maxSteps)
	}
	if changed("timeout") {
		s.Timeout = new(f.timeout)
	}
	if changed("request-timeout") {
		s.RequestTimeout = new(f.requestTimeout)
	}
	if changed("reasoning-effort") {
		s.ReasoningEffort = new(f.reasoningEffort)
	}
	f.loop.settings(changed, &s)
	return s
}

// load resolves the workspace and loads the configuration. Bad flag values
// are usage errors; broken files and environment are failures.
func (a *App) load(f *commonFlags) (*config.Config, string, error) {
	ws, err := a.workspace(f.workspace)
	if err != nil {
		return nil, "", err
	}
	cfg, err := config.Load(config.LoadOptions{
		Workspace: ws,
		File:      f.configFile,
		Flags:     f.settings(),
		Profile:   f.profile,
		Getenv:    a.Getenv,
	})
	if errors.Is(err, config.ErrInvalidFlag) {
		return nil, "", &usageError{msg: err.Error()}
	}
	if err == nil {
		err = host.RefuseProjectProfileWidening(cfg, ws, host.HomeDir(a.Getenv))
	}
	if err != nil {
		return nil, "", err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(a.Stderr, "rein: warning: %s\n", textclip.FirstLine(w))
	}
	return cfg, ws, nil
}

// registerProfile defines --profile.
func registerProfile(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "profile", "", "apply the [profiles.NAME] tables of the config files (default $"+config.ProfileEnv+"); see 'rein config show'")
}

// workspace returns the absolute workspace directory, checking it exists.
// Without -C it is the enclosing git repository's root, else the current
// directory (see repositoryRoot); -C DIR is taken as given.
func (a *App) workspace(dir string) (string, error) {
	if dir == "" {
		wd, err := a.Getwd()
		if err != nil {
			return "", fmt.Errorf("cannot determine the current directory (%v); pass -C DIR", err)
		}
		if abs, err := filepath.Abs(wd); err == nil {
			wd = abs
		}
		dir = host.RepositoryRoot(wd, a.Getenv("HOME"))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usagef("-C %s: %v", dir, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", usagef("-C %s: no such directory; pass an existing workspace directory", dir)
	case err != nil:
		return "", usagef("-C %s: %v", dir, errors.Unwrap(err))
	case !fi.IsDir():
		return "", usagef("-C %s: not a directory; pass the workspace directory", dir)
	}
	return abs, nil
}

// validateFormat checks --output-format.
func validateFormat(format string) error {
	switch format {
	case formatText, formatJSON, formatStreamJSON:
		return nil
	}
	return usagef("--output-format must be text, json or stream-json (got %q)", format)
}

// noArgs is cobra.NoArgs with a one-line usage error. On a command with
// subcommands (rein sessions, rein mcp) a stray argument is a mistyped
// subcommand: the error names the subcommands and the closest one.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if names := subcommandNames(cmd); len(names) > 0 {
		return usagef("unknown command %q for '%s'%s; its commands are %s (see '%s --help')",
			args[0], cmd.CommandPath(), config.Suggest(args[0], names), strings.Join(names, ", "), cmd.CommandPath())
	}
	return usagef("%s takes no arguments (got %q); see '%s --help'", cmd.Name(), args[0], cmd.CommandPath())
}

// subcommandNames lists cmd's visible subcommands, help excluded.
func subcommandNames(cmd *cobra.Command) []string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" {
			names = append(names, c.Name())
		}
	}
	return names
}
