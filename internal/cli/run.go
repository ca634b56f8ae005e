package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/command"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/skill"
)

// maxStdinPrompt bounds a prompt read from stdin ("rein run -").
const maxStdinPrompt = 16 << 20

func (a *App) runCommand() *cobra.Command {
	var (
		flags  commonFlags
		format string
		in     runInput
	)
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT | --command NAME [ARGS...]",
		Short: "Run one task headless and exit (PROMPT - reads stdin)",
		Long: `Run one task to completion without interaction and exit.

The answer streams to stdout; tool activity is shown on stderr. With
--output-format json rein prints one object at the end; with stream-json, one
JSON object per event (and a tool.progress object for each progress report of
an MCP tool). The json object carries Claude Code's result fields (type,
subtype, result, is_error, num_turns, usage, …); --stream-format claude
gives stream-json lines in Claude Code's shape (system/init, assistant,
user, result), so a parser written for claude -p reads them unchanged.
PROMPT "-" reads the prompt from stdin. With --input-format stream-json
(and stream-json output) stdin carries user messages as JSON lines,
{"type":"user","message":{"role":"user","content":"…"}}, each run as one
turn on the same session. MCP servers' questions (elicitation,
sampling) are declined: nobody is there to answer them.

The model works in the workspace (-C; default the enclosing git repository's
root, else the current directory) with rein's coding tools: files are changed
only inside it, and commands run there under the sandbox ([sandbox] in the config). The policy preset (--preset
read-only|editor|full) and [policy] rules decide each call; calls the policy
asks about are put to you on a terminal, denied without one (--approve never)
or allowed (--approve auto). Hard denials are never lifted.

With --command NAME the prompt is the custom command NAME (a markdown file of
~/.config/rein/commands, .rein/commands or .claude/commands, as Claude Code
writes them) with ARGS filled in for $ARGUMENTS and $1…$9; its allowed-tools
narrow the tools of the run, never widen them.

Exit codes: 0 complete, 1 failed, 2 usage error, 3 stopped by a limit,
4 blocked, 130 interrupted.`,
		Args: func(cmd *cobra.Command, args []string) error { return runArgs(&flags, &in, args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.run(cmd.Context(), &flags, format, in.with(args))
		},
	}
	flags.register(cmd.Flags())
	registerRunFlags(cmd.Flags(), &format, &in)
	return cmd
}

// registerRunFlags defines the flags of a headless run beyond the common
// ones: rein run's, which rein -p takes too.
func registerRunFlags(fs *pflag.FlagSet, format *string, in *runInput) {
	fs.StringVar(format, "output-format", formatText, "output format: text, json or stream-json")
	fs.StringVar(&in.streamFormat, "stream-format", streamFormatRein, "event shape of stream-json output: rein (rein's event names) or claude (Claude Code's system/assistant/user/result lines)")
	fs.BoolVar(&in.partialMessages, "include-partial-messages", false, "with --stream-format claude, also stream the answer's text as stream_event lines")
	fs.StringVar(&in.inputFormat, "input-format", inputText, "input format: text (the PROMPT) or stream-json (user messages as JSON lines on stdin, one turn each; needs --output-format stream-json)")
	fs.StringVar(&in.command, "command", "", "run the custom command `NAME` (from .rein/commands, .claude/commands or ~/.config/rein/commands); the arguments after it are its arguments")
	fs.StringVar(&in.skill, "skill", "", "activate the skill `NAME` for this run: its instructions join the system prompt and its allowed-tools narrow the tools")
}

// runArgs checks the positional arguments of a headless run.
func runArgs(flags *commonFlags, in *runInput, args []string) error {
	switch {
	case in.inputFormat == inputStreamJSON:
		if len(args) > 0 || in.command != "" {
			return usagef("--input-format stream-json reads the messages from stdin: give no PROMPT and no --command")
		}
		return nil
	case in.inputFormat != inputText:
		return usagef("--input-format must be text or stream-json (got %q)", in.inputFormat)
	case in.command != "":
		return nil // the arguments are the command's
	case len(args) == 1:
		return nil
	case len(args) == 0 && flags.session.resuming():
		return nil // a resumed session may continue without a new message
	case len(args) == 0:
		return usagef("missing PROMPT: rein run [flags] PROMPT (use - to read it from stdin)")
	}
	return usagef("expected one PROMPT argument, got %d: quote the prompt, e.g. rein run \"what is 2+2\"", len(args))
}

// with returns in given the positional arguments: the custom command's
// arguments, or the prompt.
func (in runInput) with(args []string) runInput {
	switch {
	case in.command != "":
		in.args = args
	case len(args) == 1:
		in.prompt = args[0]
	}
	return in
}

// runInput is what `rein run` was asked to do: a prompt, or a custom
// command with its arguments.
type runInput struct {
	prompt  string
	command string
	args    []string
	// skill is activated explicitly for the run (--skill).
	skill string
	// inputFormat is --input-format: inputStreamJSON reads the turns'
	// messages from stdin.
	inputFormat string
	// streamFormat is --stream-format, the shape of stream-json lines;
	// partialMessages adds Claude Code's stream_event text deltas.
	streamFormat    string
	partialMessages bool
}

// streamInput checks --input-format: stream-json needs stream-json
// output (the driving program reads the events) and takes no skill.
func (in runInput) streamInput(format string) (bool, error) {
	switch in.inputFormat {
	case inputText, "":
		return false, nil
	case inputStreamJSON:
		if format != formatStreamJSON {
			return false, usagef("--input-format stream-json needs --output-format stream-json")
		}
		if in.skill != "" {
			return false, usagef("--skill cannot be combined with --input-format stream-json")
		}
		return true, nil
	}
	return false, usagef("--input-format must be text or stream-json (got %q)", in.inputFormat)
}

// run is `rein run`.
func (a *App) run(ctx context.Context, flags *commonFlags, format string, in runInput) error {
	if err := validateFormat(format); err != nil {
		return err
	}
	if err := validateStreamFormat(format, in); err != nil {
		return err
	}
	if err := flags.validate(); err != nil {
		return err
	}
	streamIn, err := in.streamInput(format)
	if err != nil {
		return err
	}
	prompt := in.prompt
	if prompt != "" {
		if prompt, err = a.readPrompt(prompt); err != nil {
			return err
		}
	}
	cfg, wsDir, err := a.load(flags)
	if err != nil {
		return a.fail(err, nil)
	}
	var (
		cmdDef *command.Command
		sk     *skill.Skill
	)
	if in.skill != "" {
		if in.command != "" {
			return usagef("--skill and --command cannot be combined: a run takes one")
		}
		if sk, err = findSkill(a.discoverSkills(wsDir), in.skill); err != nil {
			return err
		}
	}
	if in.command != "" {
		if cmdDef, err = findCommand(a.loadCommands(wsDir), in.command); err != nil {
			return err
		}
		if prompt, err = expandCommand(a.Stderr, cmdDef, command.JoinArgs(in.args)); err != nil {
			return err
		}
	}
	if err := a.resolvePick(ctx, flags, cfg, wsDir); err != nil {
		return err
	}
	a.serialOutput()
	ex := newExplainer(cfg.Model)
	sr, err := a.openSession(ctx, &flags.session, flags.stateDirFlag(), cfg, wsDir)
	if err != nil {
		return a.fail(err, ex)
	}
	defer sr.close()
	input := ""
	if !streamIn {
		if input, err = sr.input(prompt); err != nil {
			return err
		}
	}
	ho := harnessOptions{workspace: wsDir, flags: flags, prompt: prompt}
	if a.IsTerminal() && !streamIn { // stdin carries the messages
		readCtx, stopReading := context.WithCancel(ctx)
		defer stopReading()
		ho.lines = newLineSource(readCtx, a.Stdin)
	}
	h, err := a.newHarness(cfg, ho)
	if err != nil {
		return a.fail(err, ex)
	}
	defer h.close()
	sr.watchWorkspace(h.ws)
	ag, parts, err := a.newAgent(cfg, h, sr)
	if err != nil {
		return a.fail(err, ex)
	}
	conv := sr.Conversation()
	host.RestoreSummaries(sr.Resumed(), parts.summarize, conv)
	// A server whose sampling setting is "allow" is answered unasked.
	h.useModel(parts.provider, cfg.Model, ex)
	r := newRenderer(format, a.Stdout, a.Stderr, ex)
	progressFormat, progressOut := format, a.Stderr
	switch {
	case in.streamFormat == streamFormatClaude:
		// Claude Code's stream has no progress lines: they go to stderr.
		r, progressFormat = newClaudeStreamRenderer(a.Stdout, ex, in.partialMessages), formatText
	case format == formatStreamJSON:
		progressOut = a.Stdout
	}
	equipRenderer(r, cfg, h)
	presetSession(r, conv.ID())
	h.children.render(r.event)
	h.mcp.showProgress(newProgressReporter(progressFormat, progressOut, ex, conv.ID(), nil))
	var (
		out    *agent.Outcome
		runErr error
	)
	if streamIn {
		var status error
		sig, forced := a.interruptible(ctx, func(ctx context.Context) {
			status = a.streamTurns(ctx, streamTurn{r: r, ex: ex, cfg: cfg, turn: func(ctx context.Context, text string) (*agent.Outcome, error) {
				if err := h.mcp.refresh(ctx); err != nil {
					return nil, err
				}
				return drain(ag.RunWith(retriesTo(ctx, a.Stderr), conv, text, agent.RunOptions{}), r.event)
			}})
		})
		h.mcp.showProgress(nil)
		if forced || sig != nil {
			fmt.Fprintf(a.Stderr, "rein: interrupted (%v)\n", sig)
			return &exitError{code: ExitInterrupted}
		}
		return status
	}
	sig, forced := a.interruptible(ctx, func(ctx context.Context) {
		if runErr = h.mcp.refresh(ctx); runErr != nil {
			return
		}
		// After the refresh, so allowed-tools can name MCP tools.
		var opts agent.RunOptions
		switch {
		case cmdDef != nil:
			opts = commandOptions(a.Stderr, cmdDef, h.tools.Names())
		case sk != nil:
			var release func()
			if opts, release, runErr = skillOptions(ctx, a.Stderr, sk, h.system, h.tools, h.skillServers); runErr != nil {
				return
			}
			defer release()
		}
		out, runErr = drain(ag.RunWith(retriesTo(ctx, a.Stderr), conv, input, opts), r.event)
	})
	// Notifications that straggle in after the run are dropped: the
	// output has ended.
	h.mcp.showProgress(nil)
	if out != nil {
		h.mcp.reportMissing()
	}
	if forced {
		fmt.Fprintf(a.Stderr, "rein: interrupted (%v)\n", sig)
		return &exitError{code: ExitInterrupted}
	}
	return a.report(r, ex, cfg, out, runErr, sig)
}

// report finishes the output of a run and returns its exit status.
func (a *App) report(r renderer, ex *explainer, cfg *config.Config, out *agent.Outcome, runErr error, sig os.Signal) error {
	problem := ""
	switch {
	case sig != nil:
		problem = "interrupted"
	case out == nil || out.Kind == agent.Failed:
		if runErr == nil && out != nil {
			runErr = errors.New(out.Err)
		}
		if runErr == nil {
			runErr = errors.New("the run ended without an outcome")
		}
		problem = ex.errorLine(runErr)
	default:
		problem = ex.outcomeLine(out, cfg)
	}
	r.finish(out, problem)
	if problem != "" {
		fmt.Fprintf(a.Stderr, "rein: %s\n", problem)
	}
	switch {
	case sig != nil:
		return &exitError{code: ExitInterrupted}
	case out == nil:
		return &exitError{code: ExitFailed}
	case out.Kind == agent.Complete:
		return nil
	}
	return &exitError{code: exitCode(out.Kind)}
}

// fail prints a setup error (configuration, provider) as one line and
// returns exit status 1; usage errors pass through to exit 2.
func (a *App) fail(err error, ex *explainer) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	line := textclip.FirstLine(err.Error())
	if ex != nil {
		line = ex.scrub(line)
	}
	line = termsafe.Line(line)
	fmt.Fprintf(a.Stderr, "rein: %s\n", line)
	return &exitError{code: ExitFailed}
}

// readPrompt returns the prompt, reading stdin for "-".
func (a *App) readPrompt(arg string) (string, error) {
	if arg != "-" {
		if strings.TrimSpace(arg) == "" {
			return "", usagef("the PROMPT is empty: rein run [flags] PROMPT")
		}
		return arg, nil
	}
	data, err := io.ReadAll(io.LimitReader(a.Stdin, maxStdinPrompt+1))
	if err != nil {
		return "", fmt.Errorf("reading the prompt from stdin: %w", err)
	}
	if len(data) > maxStdinPrompt {
		return "", usagef("the prompt on stdin is larger than %d MiB", maxStdinPrompt>>20)
	}
	prompt := strings.TrimSpace(string(data))
	if prompt == "" {
		return "", usagef("the prompt on stdin is empty: pipe the task into rein run -")
	}
	return prompt, nil
}

// drain consumes a run, passing every event to show, and returns the
// outcome from session.completed with the run's typed error.
func drain(seq iter.Seq2[agent.Event, error], show func(agent.Event)) (*agent.Outcome, error) {
	var (
		out    *agent.Outcome
		runErr error
	)
	for ev, err := range seq {
		show(ev)
		if err != nil {
			runErr = err
		}
		if ev.Type == agent.EventSessionCompleted && ev.Outcome != nil {
			out = ev.Outcome
		}
	}
	return out, runErr
}

// interruptible runs fn with a context that the first interrupt cancels,
// and waits for fn to wind down. A second interrupt stops waiting: forced
// is then true and fn is abandoned (the process is about to exit). sig is
// the first interrupt received, nil if none.
func (a *App) interruptible(ctx context.Context, fn func(ctx context.Context)) (sig os.Signal, forced bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(ctx)
	}()
	for {
		select {
		case <-done:
			return sig, false
		case s := <-a.Interrupts:
			if sig != nil {
				return sig, true
			}
			sig = s
			cancel()
		}
	}
}
