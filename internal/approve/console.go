package approve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/policy/shell"
)

// ConsoleOptions configure the console approver.
type ConsoleOptions struct {
	// Workspace and Approved enable the [a]lways choice: the rule is
	// appended to Workspace/.rein/config.toml and its fingerprint
	// recorded in Approved. Without either, [a]lways is not offered.
	Workspace string
	// Approved records the rules approved with [a]lways.
	Approved policy.ApprovedStore
	// Decider, when set, keeps [a]lways from writing rules for the
	// simple commands it already allows (`cd dir` in `cd dir && make`).
	Decider policy.Decider
	// Now stamps the comment above written rules and times the Settle
	// window; nil means time.Now.
	Now func() time.Time
	// ReadLine, when set, supplies the answers instead of the approver's
	// own reader of in: it returns the next line without its line ending,
	// or an error when the input has ended or ctx is done. A program that
	// already reads the same input line by line (a chat REPL) passes its
	// own line source here, so the two never compete for the input.
	ReadLine func(ctx context.Context) (string, error)
	// Terminal is the terminal the user types answers on, when there is
	// one (the input behind ReadLine, say); nil means in when in is a
	// terminal. Before each question what was typed on it but not read
	// yet is discarded (tcflush TCIFLUSH), and answers arriving within
	// Settle of the question are ignored: keys typed for something else
	// (a message written while the model worked) must not answer it.
	Terminal *os.File
	// Settle is how long after a question answers are ignored: 0 means
	// DefaultSettle when there is a terminal and none otherwise (answers
	// piped in are meant for the questions), negative never.
	Settle time.Duration
	// Width is the column the question wraps at; 0 means the terminal's
	// width, or 100 without one. The command is never clipped.
	Width int
}

// DefaultSettle is how long after a question on a terminal the console
// approver ignores answers.
const DefaultSettle = 500 * time.Millisecond

// ConsoleApprover asks the user on a terminal. Approve calls are
// serialized; unless ConsoleOptions.ReadLine is set, the approver owns its
// input for its lifetime (a reader goroutine reads it line by line, so a
// cancelled prompt loses no input).
type ConsoleApprover struct {
	in      io.Reader
	out     io.Writer
	opts    ConsoleOptions
	ws      string
	session *sessionMemory
	// term is the terminal answers are typed on (nil: none); settle is
	// how long after a question answers are ignored.
	term   *os.File
	settle time.Duration

	mu    sync.Mutex
	once  sync.Once
	lines chan string
	done  chan struct{} // closed when the input ends
	// stop is closed by Close: the reader goroutine, blocked handing a
	// line nobody will ask for, returns instead of living on.
	stop     chan struct{}
	stopOnce sync.Once
}

// Console returns an approver that prompts on out and reads answers from
// in: [y]es once, [s]ession (the same command or arguments are allowed
// for the rest of the process), [a]lways for this project (writes the
// exact rule to .rein/config.toml and approves it), [n]o (with an
// optional reason the model sees).
func Console(in io.Reader, out io.Writer, opts ConsoleOptions) *ConsoleApprover {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &ConsoleApprover{in: in, out: out, opts: opts, session: newSessionMemory(), stop: make(chan struct{})}
	if opts.Workspace != "" {
		c.ws = policy.CanonicalWorkspace(opts.Workspace)
	}
	if c.term = opts.Terminal; c.term == nil {
		c.term, _ = in.(*os.File)
	}
	if c.term != nil && !isTTY(c.term) {
		c.term = nil // not a terminal
	}
	switch {
	case opts.Settle < 0:
		c.settle = 0
	case opts.Settle > 0:
		c.settle = opts.Settle
	case c.term != nil:
		c.settle = DefaultSettle
	}
	return c
}

// maxPromptAttempts bounds how often an unrecognised answer is asked
// again before the call is denied.
const maxPromptAttempts = 5

// Approve implements policy.Approver.
func (c *ConsoleApprover) Approve(ctx context.Context, call policy.Call, d policy.Decision) (policy.Decision, error) {
	if d.Action != policy.Ask {
		return d, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	home, _ := os.UserHomeDir()
	sh := callShape(call, shell.Options{Workspace: c.ws, Home: home})
	if c.session.allows(sh) {
		return policy.Decision{Action: policy.Allow, Rule: "approver:session", Reason: call.Spec.Name + " was approved earlier in this session"}, nil
	}
	canAlways := c.ws != "" && c.opts.Approved != nil && (len(sh.argvs) > 0 || !call.Spec.Effects.Exec) && AlwaysLifts(d)
	if c.term != nil {
		ttyFlush(c.term) // what was typed before the question is not for it
	}
	c.show(call, d, canAlways)
	settled := c.opts.Now().Add(c.settle)
	for attempt := 0; attempt < maxPromptAttempts; {
		answer, err := c.readLine(ctx)
		if err != nil {
			return c.denied(call, "denied: no answer ("+err.Error()+")"), ctx.Err()
		}
		if c.opts.Now().Before(settled) {
			fmt.Fprintf(c.out, "(ignored \"%s\": it came before you could read the question; answer again)\n%s", compact(answer, 80), choices(canAlways))
			continue
		}
		attempt++
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "":
			fmt.Fprint(c.out, "Enter alone does not answer: type y, s, n")
			if canAlways {
				fmt.Fprint(c.out, " or a")
			}
			fmt.Fprint(c.out, ".\n")
		case "y", "yes":
			return c.allowed(call, "approved once by the user", "approver:console"), nil
		case "s", "session":
			c.session.remember(sh)
			return c.allowed(call, "approved by the user for this session", "approver:session"), nil
		case "a", "always":
			if !canAlways {
				break
			}
			if err := c.always(ctx, call, sh); err != nil {
				fmt.Fprintf(c.out, "rein could not save the rule: %s\n", termsafe.Line(err.Error()))
				break
			}
			c.session.remember(sh)
			return c.allowed(call, "approved by the user always for this project", "approver:always"), nil
		case "n", "no":
			fmt.Fprint(c.out, "Reason for the model (optional, Enter to skip): ")
			reason, err := c.readLine(ctx)
			if err != nil && ctx.Err() != nil {
				return c.denied(call, "denied by the user"), ctx.Err()
			}
			msg := "denied by the user"
			if r := strings.TrimSpace(reason); r != "" {
				msg += ": " + r
			}
			return c.denied(call, msg), nil
		}
		fmt.Fprint(c.out, choices(canAlways))
	}
	return c.denied(call, "denied: no valid answer from the user"), nil
}

func (c *ConsoleApprover) allowed(call policy.Call, why, rule string) policy.Decision {
	return policy.Decision{Action: policy.Allow, Reason: call.Spec.Name + " was " + why, Rule: rule}
}

func (c *ConsoleApprover) denied(call policy.Call, why string) policy.Decision {
	return policy.Decision{Action: policy.Deny, Reason: call.Spec.Name + " was " + why, Rule: "approver:console"}
}

func choices(always bool) string {
	if always {
		return "Allow? [y]es once, [s]ession, [a]lways for this project, [n]o: "
	}
	return "Allow? [y]es once, [s]ession, [n]o: "
}

// show prints the call: tool, its command (whole, wrapped at the
// terminal's width, never clipped) or arguments, and the reason. Every
// field is model-controlled (the reason quotes the command) and is shown
// escaped (termsafe.Line), so control characters cannot make the prompt
// read differently from what [y]es approves.
func (c *ConsoleApprover) show(call policy.Call, d policy.Decision, always bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nrein wants to run %s\n", termsafe.Line(call.Spec.Name))
	width := c.width()
	eff := call.Spec.Effects
	shownCmd, escaped := false, false
	if eff.Exec && eff.CommandArg != "" {
		if cmds, _ := policy.CommandLines(call); len(cmds) > 0 {
			for _, cmd := range cmds {
				shown := termsafe.Line(cmd)
				escaped = escaped || shown != cmd
				writeWrapped(&b, "  command: ", shown, width)
			}
			shownCmd = true
		}
	}
	if !shownCmd {
		writeWrapped(&b, "  args: ", termsafe.Line(canonicalJSON(call.Args)), width)
	}
	writeWrapped(&b, "  why: ", termsafe.Line(d.Reason), width)
	if escaped {
		b.WriteString(`  (characters of the command are shown escaped: \r \n \t \xNN \uNNNN, and \\ for a backslash)` + "\n")
	}
	b.WriteString(choices(always))
	io.WriteString(c.out, b.String())
}

// width is the column the question wraps at.
func (c *ConsoleApprover) width() int {
	if c.opts.Width > 0 {
		return c.opts.Width
	}
	if c.term != nil {
		if w := ttyWidth(c.term); w >= 20 {
			return w
		}
	}
	return 100
}

// writeWrapped writes label and text, wrapped at width runes; the
// continuation lines are indented under the text's start, and every
// character of text is written.
func writeWrapped(b *strings.Builder, label, text string, width int) {
	indent := strings.Repeat(" ", utf8.RuneCountInString(label))
	room := max(width-len(indent), 10)
	r := []rune(text)
	b.WriteString(label)
	for {
		n := min(len(r), room)
		b.WriteString(string(r[:n]) + "\n")
		if r = r[n:]; len(r) == 0 {
			return
		}
		b.WriteString(indent)
	}
}

// compact shows text on one line, cut to max runes, every control or
// invisible character escaped.
func compact(s string, max int) string { return termsafe.Line(clip(s, max)) }

// clip cuts s to max runes, marking the cut.
func clip(s string, max int) string {
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

var errInputClosed = errors.New("input closed")

// Close releases the approver's reader goroutine: once nothing will ask
// again, the line it holds is dropped and it returns (a Read already in
// progress on the input returns first — at the next line or the input's
// end). Approve after Close answers as if the input had ended. Close is
// safe to call more than once and from any goroutine.
func (c *ConsoleApprover) Close() error {
	c.stopOnce.Do(func() { close(c.stop) })
	return nil
}

// readLine returns the next line of input, or an error when the input
// ends or ctx is done.
func (c *ConsoleApprover) readLine(ctx context.Context) (string, error) {
	if c.opts.ReadLine != nil {
		return c.opts.ReadLine(ctx)
	}
	c.once.Do(func() {
		c.lines = make(chan string)
		c.done = make(chan struct{})
		go func() {
			defer close(c.done)
			r := bufio.NewReader(c.in)
			for {
				line, err := r.ReadString('\n')
				if line != "" || err == nil {
					select {
					case c.lines <- strings.TrimRight(line, "\r\n"):
					case <-c.stop:
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	})
	select {
	case <-c.stop: // before a line the reader may be offering at the same time
		return "", errInputClosed
	default:
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-c.stop:
		return "", errInputClosed
	case line := <-c.lines:
		return line, nil
	case <-c.done:
		select {
		case line := <-c.lines:
			return line, nil
		default:
			return "", errInputClosed
		}
	}
}

// always writes the exact rule for the call to the project configuration,
// records its approval outside the project, and prints it.
func (c *ConsoleApprover) always(ctx context.Context, call policy.Call, sh shape) error {
	var tools []policy.ToolRule
	var commands []policy.CommandRule
	if len(sh.argvs) == 0 {
		tools = []policy.ToolRule{{Name: call.Spec.Name, Action: "allow"}}
	}
	for _, argv := range sh.argvs {
		if c.alreadyAllowed(ctx, call, argv) || slices.ContainsFunc(commands, func(r policy.CommandRule) bool { return slices.Equal(r.Prefix, argv) }) {
			continue
		}
		commands = append(commands, policy.CommandRule{Prefix: argv, Exact: true, Action: "allow", Match: []string{shellJoin(argv)}})
	}
	if len(tools)+len(commands) == 0 {
		return errors.New("every command is already allowed")
	}
	path := policy.ProjectConfigPath(c.ws)
	comment := fmt.Sprintf("Approved \"always for this project\" in rein on %s.", c.opts.Now().UTC().Format("2006-01-02"))
	text, err := policy.AppendRules(path, tools, commands, comment)
	if err != nil {
		return err
	}
	for _, r := range tools {
		if err := c.opts.Approved.Approve(c.ws, r.Fingerprint(c.ws), "tool "+r.Name+" allow"); err != nil {
			return err
		}
	}
	for _, r := range commands {
		if err := c.opts.Approved.Approve(c.ws, r.Fingerprint(c.ws), "command "+shellJoin(r.Prefix)+" allow (exactly)"); err != nil {
			return err
		}
	}
	fmt.Fprintf(c.out, "Added to %s:\n%s", termsafe.Line(path), termsafe.Escape(text))
	return nil
}

// AlwaysLifts reports whether an exact allow rule in the project
// configuration would lift the decision: it overrides a preset's default,
// a destructive-tool ask, and a user's ask rule for a command prefix (an
// exact rule is more specific), but not a user's ask rule for the tool as
// a whole (a tie, which the stricter rule wins), the project's own rules,
// path rules, or what the analysis could not see. The console offers
// [a]lways, and the chat dialog its "always" choice, only then.
func AlwaysLifts(d policy.Decision) bool {
	switch {
	case strings.HasPrefix(d.Rule, "preset:"), d.Rule == "annotation:destructive":
		return true
	}
	for _, p := range []string{"rule:builtin:ask ", "rule:user:ask "} {
		if rest, ok := strings.CutPrefix(d.Rule, p); ok {
			return !strings.HasPrefix(rest, "path ") && !strings.HasPrefix(rest, "tool ")
		}
	}
	return false
}

// alreadyAllowed asks the optional Decider whether one simple command is
// already allowed on its own.
func (c *ConsoleApprover) alreadyAllowed(ctx context.Context, call policy.Call, argv []string) bool {
	if c.opts.Decider == nil {
		return false
	}
	args, err := jsonObject(call.Spec.Effects.CommandArg, shellJoin(argv))
	if err != nil {
		return false
	}
	one := policy.Call{ID: call.ID, Spec: call.Spec, Args: args}
	return c.opts.Decider.Decide(ctx, one).Action == policy.Allow
}
