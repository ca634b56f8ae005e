package cli

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/tui"
)

// The entry points of bare rein, as a Claude Code or Codex user types
// them:
//
//	rein                 the chat UI
//	rein "PROMPT"        the chat UI, PROMPT sent as the first message
//	rein -p "PROMPT"     a headless run, exactly rein run "PROMPT"
//	rein -c / -r [ID]    either of them on the latest / a chosen session
//
// Subcommands win over prompts: rein sessions runs the sessions command,
// never a chat about "sessions". A single word close to a command name
// (rein sesions) is refused with the suggestion rather than sent to the
// model; rein -- WORD, or a prompt with a space in it, is always a
// prompt.
const entryHelp = `Without a command rein opens the chat UI: rein "PROMPT" opens it with PROMPT
as the first message, rein -p "PROMPT" runs headless exactly as rein run
"PROMPT" (with its flags: --output-format, --command, …). -c continues the
latest session of this workspace, -r ID a given one, -r alone lets you pick
one from a list. A first word that names a command runs the command, and a
single word close to one (rein sesions) is refused with a suggestion; to send
such a word as the prompt, write rein -- WORD.`

// entryFlags are the flags of bare rein: a headless run's and chat's,
// plus -p to choose the headless run.
type entryFlags struct {
	common commonFlags
	format string
	in     runInput
	print  bool
}

// register defines the flags on the root command (not persistent: the
// subcommands keep their own).
func (f *entryFlags) register(fs *pflag.FlagSet) {
	f.common.register(fs)
	registerRunFlags(fs, &f.format, &f.in)
	fs.BoolVar(&f.common.noTUI, "no-tui", false, "chat in the line mode even on a terminal")
	fs.BoolVarP(&f.print, "print", "p", false, "run PROMPT headless and exit, as rein run PROMPT does")
}

// entryArgs checks bare rein's arguments: a mistyped command is refused,
// a headless run takes rein run's, the chat one PROMPT at most.
func (a *App) entryArgs(f *entryFlags) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if f.in.command == "" { // else the words are the custom command's
			if err := mistypedCommand(cmd, args); err != nil {
				return err
			}
		}
		if f.print {
			return runArgs(&f.common, &f.in, args)
		}
		for _, name := range []string{"output-format", "input-format", "stream-format", "include-partial-messages", "command", "skill"} {
			if cmd.Flags().Changed(name) {
				return usagef("--%s is a flag of headless runs: add -p (rein -p --%s … PROMPT), or use rein run", name, name)
			}
		}
		switch {
		case len(args) > 1:
			return usagef("expected one PROMPT argument, got %d: quote the prompt, e.g. rein \"fix the failing test\"", len(args))
		case len(args) == 1 && args[0] == "-":
			return usagef("PROMPT - (read from stdin) is for headless runs: rein -p -")
		}
		return nil
	}
}

// entry runs bare rein: a headless run with -p, else the chat, which
// needs a terminal (without one it would read a pipe as messages, or
// wait on a stdin that never ends).
func (a *App) entry(ctx context.Context, f *entryFlags, args []string) error {
	if f.print {
		return a.run(ctx, &f.common, f.format, f.in.with(args))
	}
	prompt := ""
	if len(args) == 1 {
		prompt = args[0]
	}
	if !(a.IsTerminal() && isTerminal(a.Stdout)) && !f.common.session.pick {
		fmt.Fprintln(a.Stderr, `rein: the chat needs a terminal on stdin and stdout; headless, run rein -p "PROMPT" (the same as rein run "PROMPT"), or pipe messages to rein chat; rein --help lists the commands`)
		return &exitError{code: ExitUsage}
	}
	return a.chat(ctx, &f.common, prompt)
}

// mistypedCommand refuses a lone word that is a plausible typo of a
// command ("sesions"): it would otherwise go to the model as a prompt.
// A word after "--" and anything with a space in it are prompts.
func mistypedCommand(cmd *cobra.Command, args []string) error {
	if len(args) != 1 || cmd.ArgsLenAtDash() == 0 {
		return nil
	}
	word := args[0]
	if word == "" || strings.HasPrefix(word, "-") || strings.ContainsFunc(word, unicode.IsSpace) {
		return nil
	}
	names := append(subcommandNames(cmd), "help")
	best := config.Closest(strings.ToLower(word), names)
	if best == "" {
		return nil
	}
	return usagef("unknown command %q; did you mean %q? (to send %q to the model as the prompt, write rein -- %s)", word, best, word, word)
}

// resumePickValue is the NoOptDefVal of --resume: no ID, pick one. It
// is "true", with Type "bool", only so that the help shows "-r, --resume
// ID" and no "[=…]"; no session id is "true" (ids are s and hex).
const resumePickValue = "true"

// resumeValue is --resume [ID]: with an ID it is --session ID, without
// one it asks for the picker.
type resumeValue struct{ f *sessionFlags }

func (v resumeValue) String() string { return "" }
func (v resumeValue) Type() string   { return "bool" } // see resumePickValue
func (v resumeValue) Set(s string) error {
	if s == resumePickValue {
		v.f.pick = true
		return nil
	}
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("needs a session id, or nothing to pick one")
	}
	v.f.id = s
	return nil
}

// registerResume defines -r/--resume [ID].
func (f *sessionFlags) registerResume(fs *pflag.FlagSet) {
	fl := fs.VarPF(resumeValue{f}, "resume", "r", "resume session `ID` (or a unique prefix); without ID, pick one of this workspace's recent sessions from a list")
	fl.NoOptDefVal = resumePickValue
}

// joinResumeIDs rewrites "-r ID" and "--resume ID" into "--resume=ID", so
// that an optional-valued flag takes the word after it, as users type it
// (pflag would take that word for a positional argument). The word is the
// ID when it does not start with "-" and holds no space: a prompt after a
// bare -r has spaces, or goes first (rein "PROMPT" -r). Values of other
// flags and everything after "--" are left alone.
func joinResumeIDs(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd.Flags().Lookup("resume") == nil {
		return args
	}
	fs := cmd.Flags()
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return append(out, args[i:]...)
		case (arg == "-r" || arg == "--resume") && i+1 < len(args) && isResumeID(args[i+1]):
			out = append(out, "--resume="+args[i+1])
			i++
		case takesNextValue(fs, arg) && i+1 < len(args):
			out = append(out, arg, args[i+1])
			i++
		default:
			out = append(out, arg)
		}
	}
	return out
}

// isResumeID reports whether the word after -r is its ID.
func isResumeID(s string) bool {
	return s != "" && !strings.HasPrefix(s, "-") && !strings.ContainsFunc(s, unicode.IsSpace)
}

// takesNextValue reports whether arg is a flag whose value is the next
// argument ("--model NAME", "-m NAME").
func takesNextValue(fs *pflag.FlagSet, arg string) bool {
	var fl *pflag.Flag
	switch {
	case strings.HasPrefix(arg, "--") && !strings.Contains(arg, "="):
		fl = fs.Lookup(arg[2:])
	case len(arg) == 2 && arg[0] == '-' && arg[1] != '-':
		fl = fs.ShorthandLookup(arg[1:])
	}
	return fl != nil && fl.NoOptDefVal == ""
}

// first sends the first message given on the command line (rein
// "PROMPT"), as if it were typed: the terminal UI shows and sends it
// itself, the line mode echoes it and handles it now.
func (s *chatSession) first(ctx context.Context, prompt string) (quit bool, code int) {
	if strings.TrimSpace(prompt) == "" {
		return false, 0
	}
	if s.front != nil {
		s.front.send(tui.SubmitMsg{Text: prompt})
		return false, 0
	}
	if s.interactive {
		fmt.Fprintf(s.app.Stderr, "› %s\n", termsafe.Text(prompt))
	}
	return s.handle(ctx, prompt)
}

// exitFor is the error a command returns for exit code code.
func exitFor(code int) error {
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code}
}
