// Package cli implements the rein command line: bare `rein` (the chat UI,
// or with -p a headless run; see entry.go), `rein run` (headless), `rein
// chat` (an interactive session) and the commands around them.
//
// The command-line contract (flags, output formats, exit codes) is public:
// scripts and tests depend on it, so it changes only additively. Exit codes:
//
//	0   the run completed
//	1   failed: a model, transport or configuration error
//	2   usage error: a bad flag, a missing prompt
//	3   stopped by a limit: steps, deadline, token budget, repeated action
//	4   blocked by policy, or a failed verification gate
//	130 interrupted by SIGINT or SIGTERM
//
// Errors are reported as one line on stderr naming the cause and the fix.
// API keys never appear in any output.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitLimit       = 3
	ExitBlocked     = 4
	ExitInterrupted = 130
)

// Main runs the command line with the process's environment, turning
// SIGINT and SIGTERM into interrupts: the first cancels the run (or, in
// chat, the current turn); a second during the wind-down quits at once.
// It returns the exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	app := &App{
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: stderr,
		Getenv: os.Getenv,
		// The process's credentials (GITHUB_TOKEN, *_PASSWORD, …) are
		// registered for redaction from this list: without it they
		// reached the output and the session store.
		Environ:    os.Environ,
		Getwd:      os.Getwd,
		Interrupts: sigs,
	}
	return app.Run(ctx, args)
}

// App is one invocation of the command line with its I/O and environment
// made explicit, so tests run it in-process and hermetically.
type App struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Environ lists the environment ("NAME=value"), whose credentials
	// are registered for redaction; nil means os.Environ when Getenv is
	// nil too, and no variables otherwise.
	Environ func() []string
	// Getwd returns the default workspace; nil means os.Getwd.
	Getwd func() (string, error)
	// Interrupts delivers SIGINT (os.Interrupt) and SIGTERM; nil means
	// the app is never interrupted.
	Interrupts <-chan os.Signal
	// IsTerminal reports whether Stdin is an interactive terminal: chat
	// then shows its prompt, and --approve ask prompts for approvals
	// (without a terminal it behaves as never). Nil means Stdin is a
	// terminal when it is a character device.
	IsTerminal func() bool

	// Extend adds commands (see MainWith); nil gives the stubs that
	// forward the Temporal commands to ExtensionBinary.
	Extend Extension
}

// usageError is a mistake in how rein was invoked (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitError carries an exit code whose message was already printed.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// Run parses args and runs the command, returning the exit code.
func (a *App) Run(ctx context.Context, args []string) int {
	a.defaults()
	root := a.rootCommand()
	root.SetArgs(joinResumeIDs(root, args))
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(a.Stderr, "rein: %s\n", textclip.FirstLine(ue.msg))
		return ExitUsage
	}
	// Cobra's own argument and command errors are usage errors too.
	fmt.Fprintf(a.Stderr, "rein: %s; see 'rein --help'\n", textclip.FirstLine(err.Error()))
	return ExitUsage
}

// Env is the environment the composition root (internal/host) reads:
// this App's variables, working directory and stderr.
func (a *App) Env() host.Env {
	return host.Env{Getenv: a.Getenv, Getwd: a.Getwd, Stderr: a.Stderr}
}

func (a *App) defaults() {
	if a.Stdin == nil {
		a.Stdin = strings.NewReader("")
	}
	if a.Stdout == nil {
		a.Stdout = io.Discard
	}
	if a.Stderr == nil {
		a.Stderr = io.Discard
	}
	// Everything rein prints on stderr is for people, and much of it
	// quotes text a model, a server or a repository chose (warnings
	// naming files, errors quoting servers): no control character in it
	// reaches the terminal raw, whichever printer forgot to escape it.
	a.Stderr = termsafe.NewWriter(a.Stderr)
	if a.Getenv == nil {
		a.Getenv = os.Getenv
		if a.Environ == nil {
			a.Environ = os.Environ
		}
	}
	if a.Environ == nil {
		a.Environ = func() []string { return nil }
	}
	if a.Getwd == nil {
		a.Getwd = os.Getwd
	}
	if a.IsTerminal == nil {
		stdin := a.Stdin
		a.IsTerminal = func() bool { return isTerminal(stdin) }
	}
}

func (a *App) rootCommand() *cobra.Command {
	var ef entryFlags
	root := &cobra.Command{
		Use:   "rein [flags] [PROMPT]",
		Short: "rein runs language models safely: the harness decides what runs",
		Long: `rein is an agent harness for language models. The model proposes; rein
decides what runs, runs it under limits and hands the results back.

It talks to any OpenAI-compatible server (llama.cpp's llama-server on
http://127.0.0.1:8080 by default, vLLM, OpenAI) or to the Anthropic API.

` + entryHelp,
		Args: a.entryArgs(&ef),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.entry(cmd.Context(), &ef, args)
		},
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	// --version and -v print what `rein version` prints.
	root.Version = versionString(version, readBuildInfo())
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usagef("%s; see '%s --help'", err, cmd.CommandPath())
	})
	ef.register(root.Flags())
	root.AddCommand(a.runCommand(), a.chatCommand(), NewSessionsCommand(a), NewMCPCommand(a), NewReplayCommand(a), NewHooksCommand(a), NewSkillsCommand(a), a.undoCommand(), a.diffCommand(), a.versionCommand(), NewPermissionsCommand(a), NewMemoryCommand(a))
	root.AddCommand(a.sandboxCommand(), a.configCommand(), a.acpCommand(), a.lspCommand())
	root.AddCommand(a.extensionCommands()...)
	return root
}
