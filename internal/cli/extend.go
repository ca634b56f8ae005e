package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
)

// The extension API: what engine/temporal/cmd/rein-temporal (a module of
// its own) builds its commands from.
// The Temporal commands live in a binary of their own so that rein itself
// never links Temporal's SDK: Go initialises every package a binary links,
// and the SDK's protobuf registrations alone cost `rein run` about 13 MiB
// of resident memory it would never use.

// Extension returns the commands a binary adds to rein's own.
type Extension func(a *App) []*cobra.Command

// ExtensionBinary is the binary that serves ExtensionCommands.
const ExtensionBinary = "rein-temporal"

// ExtensionCommands are the commands rein forwards to ExtensionBinary.
var ExtensionCommands = []string{"worker", "submit", "status", "cancel", "approve"}

// MainWith is Main with the commands of ext added.
func MainWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, ext Extension) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	app := &App{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Environ: os.Environ, Getwd: os.Getwd, Interrupts: sigs, Extend: ext}
	return app.Run(ctx, args)
}

// extensionCommands are ext's commands, or stubs that run ExtensionBinary
// in place of this process (same pid, arguments and environment).
func (a *App) extensionCommands() []*cobra.Command {
	if a.Extend != nil {
		return a.Extend(a)
	}
	var out []*cobra.Command
	for _, name := range ExtensionCommands {
		out = append(out, &cobra.Command{
			Use:                name,
			Short:              "(Temporal) see '" + ExtensionBinary + " " + name + " --help'",
			DisableFlagParsing: true,
			RunE: func(_ *cobra.Command, args []string) error {
				return a.execExtension(append([]string{name}, args...))
			},
		})
	}
	return out
}

// execExtension replaces this process with ExtensionBinary, looked up next
// to this executable, then on PATH.
func (a *App) execExtension(args []string) error {
	path := ""
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), ExtensionBinary); isExecutable(p) {
			path = p
		}
	}
	if path == "" {
		p, err := exec.LookPath(ExtensionBinary)
		if err != nil {
			// The binary is in the module engine/temporal, whose go.mod
			// replaces rein with this tree (../..): `go install …@latest`
			// refuses a module with a replace, so it installs from a checkout.
			return usagef("rein %s runs on Temporal, which lives in the %s binary: install it next to rein (in a rein checkout: go install -C engine/temporal ./cmd/%s)", args[0], ExtensionBinary, ExtensionBinary)
		}
		path = p
	}
	// An App given its own environment (tests) passes that on; Main's
	// App reads the process's (Getenv is os.Getenv, Environ lists
	// nothing), whose whole environment — HOME, XDG_*, PATH, API keys —
	// the extension needs, as rein itself would have used it.
	env := os.Environ()
	if a.Environ != nil {
		if own := a.Environ(); own != nil {
			env = own
		}
	}
	err := syscall.Exec(path, append([]string{path}, args...), env)
	return fmt.Errorf("running %s: %w", path, err)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Usagef is a usage error (exit 2, the message on stderr).
func Usagef(format string, args ...any) error { return usagef(format, args...) }

// ExitWith ends the command with code; its message was already printed.
func ExitWith(code int) error { return &exitError{code: code} }

// Fail prints err as rein's one-line error and ends the command with exit
// status 1. Usage errors and exit codes pass through.
func (a *App) Fail(err error) error {
	var ue *usageError
	var ee *exitError
	if err == nil || errors.As(err, &ue) || errors.As(err, &ee) {
		return err
	}
	fmt.Fprintf(a.Stderr, "rein: %s\n", textclip.FirstLine(err.Error()))
	return &exitError{code: ExitFailed}
}

// ExitCode is rein run's exit status for an outcome.
func ExitCode(kind agent.OutcomeKind) int { return exitCode(kind) }

// OneLine collapses a message to its first line.
func OneLine(s string) string { return textclip.FirstLine(s) }

// Output formats.
const (
	FormatText       = formatText
	FormatJSON       = formatJSON
	FormatStreamJSON = formatStreamJSON
)

// ModelFlags are rein run's model and configuration flags (--endpoint,
// --api-key, --model, --provider, --config, --state-dir).
type ModelFlags struct{ cf commonFlags }

// Register adds the flags to fs.
func (m *ModelFlags) Register(fs *pflag.FlagSet) {
	all := pflag.NewFlagSet("model", pflag.ContinueOnError)
	m.cf.register(all)
	for _, name := range []string{"endpoint", "api-key", "model", "provider", "config", "state-dir"} {
		fs.AddFlag(all.Lookup(name))
	}
}

// ConfigFile is --config.
func (m *ModelFlags) ConfigFile() string { return m.cf.configFile }

// LoadConfig loads the configuration of workspace dir ("" for the default
// workspace, as rein run picks it) with the flags; it returns the
// workspace's directory too.
func (a *App) LoadConfig(m *ModelFlags, dir string) (*config.Config, string, error) {
	a.defaults()
	f := m.cf
	if f.fs == nil {
		f.register(pflag.NewFlagSet("model", pflag.ContinueOnError))
	}
	f.workspace = dir
	return a.load(&f)
}

// ResolveWorkspace is the absolute directory of a workspace argument.
func (a *App) ResolveWorkspace(dir string) (string, error) { return a.workspace(dir) }

// NewProvider builds the configured model provider.
func NewProvider(cfg *config.Config) (model.Provider, error) { return newProvider(cfg.Model) }

// EngineWorkspace is one workspace a durable engine's worker holds (an
// engine.Workspace): rein run's harness, built once per preset.
type EngineWorkspace = temporalWorkspace

// OpenWorkspace returns the workspace at dir with the flags. Call Close
// when the worker stops.
func (a *App) OpenWorkspace(m *ModelFlags, dir string) *EngineWorkspace {
	a.defaults()
	f := m.cf
	if f.fs == nil {
		f.register(pflag.NewFlagSet("model", pflag.ContinueOnError))
	}
	return newTemporalWorkspace(a, f, dir)
}

// Warm builds the harness of the default preset, so that a broken
// workspace fails a worker's start rather than its first session.
func (w *EngineWorkspace) Warm(ctx context.Context) error {
	_, err := w.get(ctx, "")
	return err
}

// SetMaxPreset sets the widest preset a session may ask for (default: the
// preset the workspace's configuration gives). Call it before Warm.
func (w *EngineWorkspace) SetMaxPreset(p string) error {
	switch policy.Preset(p) {
	case policy.PresetReadOnly, policy.PresetEditor, policy.PresetFull:
		w.maxPreset = policy.Preset(p)
		return nil
	}
	return usagef("--max-preset must be read-only, editor or full, not %q", p)
}

// Close releases the workspace's harnesses.
func (w *EngineWorkspace) Close() { w.close() }

// RegisterSecrets registers every credential cfg and the environment
// hold for redaction, as a session's start does.
func (a *App) RegisterSecrets(cfg *config.Config) { registerSecrets(cfg, a.Getenv, a.environ()) }

// ReadPrompt reads a PROMPT argument as rein run does ("-" reads stdin).
func (a *App) ReadPrompt(arg string) (string, error) { return a.readPrompt(arg) }

// EventRenderer shows a session's events as rein run shows them.
type EventRenderer struct{ r renderer }

// NewEventRenderer renders in format (text or stream-json) with cfg's
// redaction.
func (a *App) NewEventRenderer(format string, cfg *config.Config) *EventRenderer {
	return &EventRenderer{r: newRenderer(format, a.Stdout, a.Stderr, newExplainer(cfg.Model))}
}

// Event shows one event.
func (e *EventRenderer) Event(ev agent.Event) { e.r.event(ev) }

// Finish ends the output.
func (e *EventRenderer) Finish(out *agent.Outcome, problem string) { e.r.finish(out, problem) }

// WarningLogger logs warnings and errors as rein's warning lines on stderr.
func (a *App) WarningLogger() *slog.Logger { return slog.New(&warningHandler{w: a.Stderr}) }

// SetConfigFile sets --config for a command that does not register it.
func (m *ModelFlags) SetConfigFile(p string) { m.cf.configFile = p }
