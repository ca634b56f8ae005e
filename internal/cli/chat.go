package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/command"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/history"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/skill"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

func (a *App) chatCommand() *cobra.Command {
	var flags commonFlags
	cmd := &cobra.Command{
		Use:   "chat [flags]",
		Short: "Start an interactive session",
		Long: `Start an interactive session. On a terminal it is the chat UI: answers
stream as markdown, each tool call is one line with its result, approvals are
a dialog, and the status line shows the model, preset, context and tokens.
Keys: Enter sends, Alt-Enter or Ctrl-J adds a line, Tab completes a /command
or an @path, Up/Down walk this workspace's history, Esc or Ctrl-C cancels the
answer in progress, Ctrl-T shows the folded reasoning, Ctrl-O the whole last
tool result, Shift+Tab cycles the permission mode (read-only, editor, full,
plan; full asks once), Ctrl-D (or Ctrl-C twice at an empty prompt) quits. With piped
Keys: Enter sends, Alt-Enter, Shift-Enter or Ctrl-J adds a line (the input
grows to 8 lines, then scrolls), a paste of more than 8 lines shows as
[pasted N lines] (Ctrl-X expands it; /expand shows the last message's), Tab
completes a /command or an @path, Up/Down walk this workspace's history,
Esc or Ctrl-C cancels the answer in progress, Ctrl-T shows the folded reasoning,
Ctrl-O the whole last tool result, Ctrl-D (or Ctrl-C twice at an empty prompt)
quits. With piped stdin (or --no-tui) it is line-oriented: each line is a turn,
tool activity goes to stderr, Ctrl-C cancels the turn and Ctrl-D or /exit
quits. The conversation carries over between turns either way.

On a terminal, questions of MCP servers are put to you as they come: a form
is asked field by field (/decline or /cancel at any field), a link is shown
but never opened, and a request for a model completion runs on rein's model
only once you approve it. Without a terminal they are declined.

` + chatHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.chat(cmd.Context(), &flags, "")
		},
	}
	flags.register(cmd.Flags())
	cmd.Flags().BoolVar(&flags.noTUI, "no-tui", false, "use the line mode even on a terminal")
	return cmd
}

// chatSession is the state of one `rein chat`.
type chatSession struct {
	app   *App
	cfg   *config.Config
	ex    *explainer
	agent *agent.Agent
	conv  *agent.Conversation
	ws    *workspace.Workspace
	// sr records the session; summarize is the Summarize strategy when it
	// is the configured one (for /compact), else nil.
	sr        *sessionRun
	summarize *history.Summarize
	// mcp adds MCP tools of servers that came up since the last turn.
	mcp *mcpTools
	// tools is the agent's tool set (custom commands narrow it).
	tools *tool.Set
	// commands are the custom commands, run as /name args.
	commands *command.Set
	// skills are the installed skills, activated with /name [args];
	// pending is the one activated for the next message, system the
	// base system prompt the activation adds to.
	skills  *skill.Catalog
	pending *skill.Skill
	system  string
	// skillServers starts the MCP servers of a skill activated for a turn.
	skillServers skillServersFunc
	// console asks the user MCP servers' questions during turns; nil
	// without a terminal.
	console *consoleInteraction
	// steer runs the hooks; /compact tells them (PreCompact, "manual").
	steer agent.Steering
	// children shows sub-agents' events during a turn.
	children *childEvents
	// note is told to the model with the next message: what the user
	// changed behind its back (an /undo).
	note string
	// interactive is set when stdin is a terminal: prompts and the banner
	// are shown only then, so piped sessions produce clean output.
	interactive bool
	usage       model.Usage
	// provider is the model's, asked for its context window.
	provider model.Provider
	turns    int
	// front is the terminal UI, nil in line mode; lastInput is the input
	// tokens of the last request (the context used).
	front     *tuiFront
	lastInput int
	// modes is the permission mode (chatmode.go).
	modes *chatModes
	// perms are the grants "always for this project" (/permissions).
	perms *host.PermissionStore
	// model, when set by /model, replaces the configured model for the
	// next turns.
	model string
	// decider and approver decide the user's own !commands, as they
	// decide the model's calls.
	decider  policy.Decider
	approver policy.Approver
	// picks is the list /resume showed; the next line may pick from it.
	picks []session.Info
	// mem is the long-term memory (nil when off); memPending is a #note
	// waiting for its one-key scope answer (chatmemory.go).
	mem        *memoryWiring
	memPending string
	// context is what !command added, told the model with the next
	// message.
	context []string
	// status is the exit code the session ends with: that of the last
	// turn, where a turn the user cancelled counts as success.
	status int
	// instructions are the instruction files the agent was given.
	instructions []history.LoadedFile
}

// chat is `rein chat`, and bare `rein` with first, when not "", as the
// first message.
func (a *App) chat(ctx context.Context, flags *commonFlags, first string) error {
	if err := flags.validate(); err != nil {
		return err
	}
	cfg, wsDir, err := a.load(flags)
	if err != nil {
		return a.fail(err, nil)
	}
	// Before the UI starts: the picker has the terminal to itself.
	if err := a.resolvePick(ctx, flags, cfg, wsDir); err != nil {
		return err
	}
	var front *tuiFront
	if a.useTUI(flags.noTUI) {
		// The same chat, shown by the terminal UI: what the chat prints
		// becomes the UI's notices, the UI's cancels its interrupts.
		hist := a.openHistory(flags, wsDir)
		front = a.newTUIFront(ctx, hist, a.chatCommandNames(wsDir), workspacePaths(wsDir))
		defer a.closeTUIFront(front, hist)
		b := *a
		b.Stdout = &noticeWriter{f: front, kind: tui.NoticeOutput}
		b.Stderr = &noticeWriter{f: front, kind: tui.NoticeInfo}
		b.Interrupts = front.interrupts
		a = &b
	}
	a.serialOutput()
	ex := newExplainer(cfg.Model)
	interactive := a.IsTerminal()
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	// One reader for the session: approval answers come from the same
	// lines as messages (see lineSource).
	src := newLineSource(readCtx, a.Stdin)
	ho := harnessOptions{workspace: wsDir, flags: flags, front: front, prompt: first}
	if front != nil {
		src = newChanSource(front.msgs)
		ho.answers = front.readAnswer
	}
	if interactive {
		// MCP servers' questions are put to the user too; without a
		// terminal nobody can answer them and they are declined.
		ho.lines, ho.askServers = src, true
	}
	sr, err := a.openSession(ctx, &flags.session, flags.stateDirFlag(), cfg, wsDir)
	if err != nil {
		return a.fail(err, ex)
	}
	defer sr.close()
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
	h.useModel(parts.provider, cfg.Model, ex)
	h.mcp.showProgress(newProgressReporter(formatText, a.Stderr, ex, "", h.quiet))
	h.mcp.showLogs(chatLogLevel)
	h.mcp.inChat() // starts at once; servers are shown joining
	s := &chatSession{
		app: a, cfg: cfg, ex: ex, agent: ag, ws: h.ws,
		conv: sr.Conversation(), sr: sr, summarize: parts.summarize, mcp: h.mcp, provider: parts.provider,
		console: h.console, interactive: interactive, steer: h.steer, children: h.children,
		tools: h.tools, commands: a.loadCommands(wsDir),
		skills: h.skills, system: h.system, skillServers: h.skillServers,
		front: front, modes: newChatModes(h.modes),
		perms:   host.NewPermissionStore(host.StateDir(flags.stateDirFlag(), a.Getenv)),
		decider: h.modes, approver: h.approver, mem: h.mem,
		instructions: parts.instructions,
	}
	s.warnSkillClashes()
	if front != nil {
		cycle := s.cycleMode
		front.onMode.Store(&cycle)
		complete := s.completePromptArg
		front.onComplete.Store(&complete)
	}
	host.RestoreSummaries(sr.Resumed(), parts.summarize, s.conv)
	if res := sr.Resumed(); res != nil && res.Snapshot != nil {
		s.resetUsage(&res.Snapshot.Info.Usage)
	}
	s.watchMCP()
	s.pushStatus()
	if s.interactive {
		fmt.Fprintf(a.Stderr, "rein chat: %s at %s in %s (preset %s, session %s). /help for commands, Ctrl-D to quit.\n",
			modelName(cfg), ex.endpoint, h.ws.Dir(), h.engine.Preset(), s.conv.ID())
		s.showInstructions()
	}
	if res := sr.Resumed(); res != nil {
		s.announceResumed(res)
	}
	if quit, code := s.first(ctx, first); quit {
		return exitFor(code)
	}
	code := s.loop(ctx, src.lines())
	if code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// loop reads lines until EOF, /exit or SIGTERM and returns the exit code.
func (s *chatSession) loop(ctx context.Context, lines <-chan inputLine) int {
	a := s.app
	for {
		s.prompt()
		select {
		case <-ctx.Done():
			return ExitInterrupted
		case sig := <-a.Interrupts:
			if sig == syscall.SIGTERM {
				fmt.Fprintln(a.Stderr, "rein: terminated")
				return ExitInterrupted
			}
			fmt.Fprintln(a.Stderr, "\n(type /exit or press Ctrl-D to quit)")
		case in, ok := <-lines:
			if !ok {
				if s.interactive {
					fmt.Fprintln(a.Stderr)
				}
				return s.status
			}
			if in.err != nil {
				fmt.Fprintf(a.Stderr, "rein: %v\n", in.err)
				continue
			}
			if quit, code := s.handle(ctx, in.text); quit {
				return code
			}
		}
	}
}

func (s *chatSession) prompt() {
	if s.interactive && s.front == nil {
		fmt.Fprint(s.app.Stderr, "› ")
	}
}

// handle runs one input line; quit reports that the session is over with
// exit code code.
func (s *chatSession) handle(ctx context.Context, line string) (quit bool, code int) {
	line = strings.TrimSpace(line)
	a := s.app
	if s.picks != nil {
		if s.pick(ctx, line) {
			return false, 0
		}
	}
	if s.memoryInput(ctx, line) {
		return false, 0
	}
	switch {
	case line == "":
		return false, 0
	case line == "/model" || strings.HasPrefix(line, "/model "):
		s.modelCommand(strings.TrimSpace(strings.TrimPrefix(line, "/model")))
	case line == "/resume" || strings.HasPrefix(line, "/resume "):
		s.resumeCommand(ctx, strings.TrimSpace(strings.TrimPrefix(line, "/resume")))
	case line == "/mode" || strings.HasPrefix(line, "/mode "):
		return s.modeCommand(ctx, strings.TrimSpace(strings.TrimPrefix(line, "/mode")))
	case line == "/init":
		return s.initCommand(ctx)
	case strings.HasPrefix(line, "!"):
		s.bangCommand(ctx, strings.TrimSpace(strings.TrimPrefix(line, "!")))
	case line == "/exit" || line == "/quit":
		return true, s.status
	case line == "/help":
		fmt.Fprintln(a.Stderr, chatHelp)
		if help := commandHelp(s.commands); help != "" {
			fmt.Fprintln(a.Stderr, help)
		}
	case line == "/clear":
		s.clear(ctx)
	case line == "/compact":
		s.compact(ctx)
	case line == "/diff":
		s.diff(ctx)
	case line == "/undo" || strings.HasPrefix(line, "/undo ") || strings.HasPrefix(line, "/undo\t"):
		s.undo(ctx, strings.TrimPrefix(line, "/undo"))
	case line == "/mcp" || strings.HasPrefix(line, "/mcp ") || strings.HasPrefix(line, "/mcp\t"):
		s.mcpCommand(ctx, strings.TrimSpace(strings.TrimPrefix(line, "/mcp")))
	case line == "/prompt" || strings.HasPrefix(line, "/prompt ") || strings.HasPrefix(line, "/prompt\t"):
		return s.promptCommand(ctx, strings.TrimSpace(strings.TrimPrefix(line, "/prompt")))
	case line == "/skills":
		fmt.Fprintln(a.Stderr, skillHelp(s.skills))
	case line == "/cost":
		s.costCommand()
	case line == "/status":
		s.statusCommand()
	case line == "/permissions" || strings.HasPrefix(line, "/permissions "):
		s.permissionsCommand(strings.TrimSpace(strings.TrimPrefix(line, "/permissions")))
	case line == "/usage":
		fmt.Fprintf(a.Stderr, "tokens used: %d input, %d output over %s\n", s.usage.InputTokens, s.usage.OutputTokens, plural(s.turns, "turn"))
	case strings.HasPrefix(line, "/") && s.isCustom(line):
		return s.customCommand(ctx, line)
	case strings.HasPrefix(line, "/") && s.isSkill(line):
		return s.skillCommand(ctx, line)
	case s.unknownSlash(line):
	default:
		msg, ok := s.attachFiles(line)
		if !ok {
			if s.front != nil {
				s.front.send(tui.DraftMsg{Text: line}) // back for editing
			}
			return false, 0
		}
		return s.turn(ctx, msg, s.takePending())
	}
	return false, 0
}

// isCustom reports whether line invokes a custom command.
func (s *chatSession) isCustom(line string) bool {
	name, _ := splitSlash(line)
	_, ok := s.commands.Get(name)
	return ok
}

// customCommand runs /name args: the command's expanded body is the
// turn's message, its allowed-tools narrow the turn's tools.
func (s *chatSession) customCommand(ctx context.Context, line string) (bool, int) {
	name, args := splitSlash(line)
	c, _ := s.commands.Get(name)
	prompt, err := expandCommand(s.app.Stderr, c, args)
	if err != nil {
		fmt.Fprintf(s.app.Stderr, "rein: %s\n", termsafe.Line(err.Error()))
		return false, 0
	}
	return s.turn(ctx, prompt, func(context.Context) (agent.RunOptions, func(), error) {
		return commandOptions(s.app.Stderr, c, s.tools.Names()), nil, nil
	})
}

// turn runs one model turn. SIGINT cancels the turn only; SIGTERM or a
// second interrupt ends the session. opts, when not nil, gives the turn's
// run options once the MCP tools are refreshed.
// turnOptions builds the run options of one turn (a custom command's, a
// skill's); release, when not nil, is called once the turn is over.
type turnOptions func(ctx context.Context) (opts agent.RunOptions, release func(), err error)

func (s *chatSession) turn(ctx context.Context, input string, opts turnOptions) (quit bool, code int) {
	a := s.app
	var r renderer = &textRenderer{out: a.Stdout, err: a.Stderr, ex: s.ex}
	if s.front != nil {
		r = &tuiRenderer{s: s, f: s.front}
		s.front.turnStarted()
		defer s.turnEnded()
	}
	var (
		out    *agent.Outcome
		runErr error
	)
	if s.note != "" {
		input = s.note + "\n\n" + input
		s.note = ""
	}
	s.context = append(s.context, s.mcp.takeUpdates()...)
	if len(s.context) > 0 {
		input = strings.Join(s.context, "\n\n") + "\n\n" + input
		s.context = nil
	}
	sig, forced := a.interruptible(ctx, func(ctx context.Context) {
		defer s.console.during(ctx)()
		if runErr = s.mcp.refresh(ctx); runErr != nil {
			return
		}
		var (
			ro      agent.RunOptions
			release func()
		)
		if opts != nil {
			ro, release, runErr = opts(ctx)
		}
		if runErr != nil {
			return
		}
		if ro.Model == "" {
			ro.Model = s.model
		}
		ro.AppendSystem = appendSection(ro.AppendSystem, s.modeSystem())
		if release != nil {
			defer release()
		}
		// Sub-agents' events come through the hook, shown indented
		// under their task call, as in rein run.
		s.children.render(r.event)
		defer s.children.render(nil)
		if s.front != nil {
			ctx = retriesToUI(ctx, s.front)
		} else {
			ctx = retriesTo(ctx, a.Stderr)
		}
		out, runErr = drain(s.agent.RunWith(ctx, s.conv, input, ro), func(ev agent.Event) {
			r.event(ev)
		})
	})
	if forced {
		fmt.Fprintln(a.Stderr, "rein: interrupted")
		return true, ExitInterrupted
	}
	r.finish(out, "")
	s.turns++
	if out != nil {
		s.usage.Add(out.Usage)
	}
	switch {
	case sig == syscall.SIGTERM:
		fmt.Fprintln(a.Stderr, "rein: terminated")
		return true, ExitInterrupted
	case sig != nil:
		// The agent gave every pending call a result, so the conversation
		// is still valid and the next turn continues it.
		fmt.Fprintln(a.Stderr, s.cancelled("turn cancelled"))
		s.status = ExitOK
		return false, 0
	case ctx.Err() != nil:
		return true, ExitInterrupted
	}
	s.status = s.report(out, runErr)
	if out != nil && out.Kind == agent.Complete {
		return s.planDone(ctx)
	}
	return false, 0
}

// cancelled is the notice that something was cancelled: "^C …" after
// the Ctrl-C of a line-oriented session, the text alone in the chat UI,
// where Esc cancels as often as Ctrl-C and the notice is a line of its
// own.
func (s *chatSession) cancelled(what string) string {
	if s.front != nil {
		return what
	}
	return "^C " + what
}

// report prints why a turn ended short of Complete and returns the exit
// code it stands for.
func (s *chatSession) report(out *agent.Outcome, runErr error) int {
	if out != nil && out.Kind == agent.Complete {
		return ExitOK
	}
	problem := ""
	if out == nil || out.Kind == agent.Failed {
		if runErr == nil && out != nil {
			runErr = fmt.Errorf("%s", out.Err)
		}
		if runErr == nil {
			runErr = fmt.Errorf("the turn ended without an outcome")
		}
		problem = s.ex.errorLine(runErr)
	} else {
		problem = s.ex.outcomeLine(out, s.cfg)
	}
	fmt.Fprintf(s.app.Stderr, "rein: %s\n", problem)
	if out == nil {
		return ExitFailed
	}
	return exitCode(out.Kind)
}

func modelName(cfg *config.Config) string {
	if cfg.Model.Model != "" {
		return cfg.Model.Model
	}
	return "the server's model"
}

// clear starts a new conversation in a new session; the old session stays
// stored and can be continued with --session.
func (s *chatSession) clear(ctx context.Context) {
	old := s.conv.ID()
	conv, err := s.sr.restart(ctx)
	if err != nil {
		fmt.Fprintf(s.app.Stderr, "rein: cannot start a new session: %s\n", termsafe.Line(s.ex.scrub(textclip.FirstLine(err.Error()))))
		return
	}
	if s.summarize != nil {
		s.summarize.Forget(old)
	}
	s.conv = conv
	s.resetUsage(nil)
	s.pushStatus()
	fmt.Fprintf(s.app.Stderr, "(new conversation) session %s; the previous one is kept as %s\n", conv.ID(), old)
}

// compact summarizes the conversation now, rather than when it nears the
// context window.
func (s *chatSession) compact(ctx context.Context) {
	if s.summarize == nil {
		fmt.Fprintln(s.app.Stderr, `rein: /compact needs the summarize context strategy: set [context] strategy = "summarize" in the config`)
		return
	}
	if s.steer != nil {
		v := s.steer.Steer(ctx, agent.SteerPoint{Event: agent.SteerPreCompact, SessionID: s.conv.ID(), Source: "manual"})
		if v.Halt || v.Block {
			reason := v.HaltReason
			if reason == "" {
				reason = v.Reason
			}
			fmt.Fprintf(s.app.Stderr, "(compaction stopped by a PreCompact hook: %s)\n", termsafe.Line(s.ex.scrub(textclip.FirstLine(reason))))
			return
		}
	}
	var (
		info *agent.CompactionInfo
		err  error
	)
	sig, _ := s.app.interruptible(ctx, func(ctx context.Context) {
		info, err = s.summarize.Compact(ctx, s.conv)
	})
	switch {
	case sig != nil:
		fmt.Fprintln(s.app.Stderr, s.cancelled("compaction cancelled"))
	case errors.Is(err, history.ErrNothingToCompact):
		fmt.Fprintf(s.app.Stderr, "(nothing to compact: %s)\n", termsafe.Line(s.ex.scrub(strings.TrimPrefix(textclip.FirstLine(err.Error()), "memory: nothing to compact: "))))
	case err != nil:
		fmt.Fprintf(s.app.Stderr, "rein: compaction failed: %s\n", s.ex.errorLine(err))
	case info == nil:
		fmt.Fprintln(s.app.Stderr, "(nothing to compact yet)")
	default:
		fmt.Fprintf(s.app.Stderr, "(compacted: %d earlier messages summarized; the model now sees about %d tokens of history)\n",
			info.Summarized, info.EstimatedTokens)
	}
}
