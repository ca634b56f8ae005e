package temporalcli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	engine "github.com/reinharness/rein/engine/temporal"
	"github.com/reinharness/rein/internal/cli"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/telemetry/redact"
)

// submitFlags are rein submit's own flags.
type submitFlags struct {
	tf                    temporalFlags
	workspace, preset, id string
	model, format         string
	follow                bool
	approvalTimeout       time.Duration
	maxSteps              int
	batch, out            string
	concurrency           int
}

func submitCommand(a *cli.App) *cobra.Command {
	var f submitFlags
	cmd := &cobra.Command{
		Use:   "submit --temporal HOST:PORT [flags] PROMPT | --batch tasks.jsonl --out results.jsonl",
		Short: "Start a session on a Temporal service (or one per line of a batch) and print its id",
		Long: `rein submit starts a session as a Temporal workflow served by rein worker
processes, prints its id and exits; --follow streams its events until it ends,
with rein run's output and exit status.

--batch FILE runs one session per line of FILE ({"prompt": "...", "id": "...",
"workspace": "..."}), at most --concurrency at once across all workers, and
appends each result to --out as it finishes. A line's session id is derived
from the file, so running the batch again collects its sessions instead of
running them twice.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.Fail(submit(a, cmd.Context(), &f, args))
		},
	}
	fl := cmd.Flags()
	f.tf.register(fl)
	fl.StringVar(&f.workspace, "workspace", "", "the workspace the session works in, as its workers name it (default the current directory's base name)")
	fl.StringVar(&f.preset, "preset", "", "policy preset: read-only, editor or full (default: the workspace's)")
	fl.StringVar(&f.id, "id", "", "the session id (default a new one)")
	fl.StringVarP(&f.model, "model", "m", "", "model name (default: the workers' configuration)")
	fl.StringVar(&f.format, "format", cli.FormatText, "with --follow: text or stream-json")
	fl.BoolVar(&f.follow, "follow", false, "stream the session's events until it ends, and exit with its status")
	fl.DurationVar(&f.approvalTimeout, "approval-timeout", 0, "deny a call nobody approved within this (default [temporal] approval_timeout, 10m)")
	fl.IntVar(&f.maxSteps, "max-steps", 0, "maximum model calls of the session (default: the workspace's)")
	fl.StringVar(&f.batch, "batch", "", "run one session per line of this JSONL file")
	fl.StringVar(&f.out, "out", "", "with --batch: the JSONL file the results are written to")
	fl.IntVar(&f.concurrency, "concurrency", 4, "with --batch: sessions running at once")
	return cmd
}

func submit(a *cli.App, ctx context.Context, f *submitFlags, args []string) error {
	switch {
	case f.batch == "" && len(args) != 1:
		return cli.Usagef("rein submit needs a PROMPT (or --batch FILE)")
	case f.batch != "" && len(args) > 0:
		return cli.Usagef("--batch takes its prompts from the file; drop the PROMPT argument")
	case f.batch != "" && f.out == "":
		return cli.Usagef("--batch needs --out FILE for the results")
	case f.batch != "" && (f.follow || f.id != ""):
		return cli.Usagef("--follow and --id apply to one session, not to --batch")
	case f.concurrency < 1 || f.concurrency > 1000:
		return cli.Usagef("--concurrency must be between 1 and 1000")
	case f.format != cli.FormatText && f.format != cli.FormatStreamJSON:
		return cli.Usagef("--format must be text or stream-json")
	case f.approvalTimeout < 0 || f.maxSteps < 0:
		return cli.Usagef("--approval-timeout and --max-steps cannot be negative")
	}
	c, s, cfg, dir, err := temporalClient(a, &f.tf)
	if err != nil {
		return err
	}
	defer c.Close()
	// A prompt enters the workflow history, the session's store: known
	// credentials are redacted from it, as rein run's session does.
	a.RegisterSecrets(cfg)
	in := engine.SessionInput{
		Workspace: f.workspace, Queue: s.queue, Preset: f.preset, Model: f.model, MaxSteps: f.maxSteps,
		ApprovalTimeout: s.approvalTimeout, HeartbeatTimeout: s.heartbeatTimeout, MaxHistory: s.maxHistory,
	}
	if f.approvalTimeout > 0 {
		in.ApprovalTimeout = f.approvalTimeout
	}
	if in.Workspace == "" {
		in.Workspace = filepath.Base(dir)
	}
	if f.batch != "" {
		return submitBatch(a, ctx, c, f, in)
	}
	prompt, err := a.ReadPrompt(args[0])
	if err != nil {
		return err
	}
	in.Prompt = redact.String(prompt)
	id := f.id
	if id == "" {
		id = session.NewID()
	} else if err := validateName("--id", id); err != nil {
		return err
	}
	if err := engine.Start(ctx, c, id, in); err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout, id)
	if !f.follow {
		return nil
	}
	return followSession(a, ctx, c, id, f.format, cfg)
}

// followSession streams a session's events through rein run's renderer
// and exits with its status. An interrupt stops following, not the
// session.
func followSession(a *cli.App, ctx context.Context, c client.Client, id, format string, cfg *config.Config) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	r := a.NewEventRenderer(format, cfg)
	res, err := engine.Follow(ctx, c, id, 0, func(raw json.RawMessage) error {
		var ev agent.Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("session %s sent an event rein cannot read: %w", id, err)
		}
		r.Event(ev)
		return nil
	})
	if ctx.Err() != nil {
		fmt.Fprintf(a.Stderr, "rein: stopped following %s; the session goes on (rein status %s)\n", id, id)
		return cli.ExitWith(cli.ExitInterrupted)
	}
	if err != nil {
		return err
	}
	out := &agent.Outcome{Kind: res.Outcome, Text: res.Text, Steps: res.Steps, ToolCalls: res.ToolCalls, Usage: res.Usage, Err: res.Error, Reason: res.Reason}
	r.Finish(out, res.Error)
	if code := cli.ExitCode(res.Outcome); code != cli.ExitOK {
		if res.Reason != "" || res.Error != "" {
			fmt.Fprintf(a.Stderr, "rein: session %s ended %s: %s\n", id, res.Outcome, cli.OneLine(cmp.Or(res.Error, res.Reason)))
		}
		return cli.ExitWith(code)
	}
	return nil
}

// submitBatch runs a batch file.
func submitBatch(a *cli.App, ctx context.Context, c client.Client, f *submitFlags, in engine.SessionInput) error {
	abs, err := filepath.Abs(f.batch)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return fmt.Errorf("reading the batch: %w", err)
	}
	tasks, lines, err := engine.ParseTasks(abs, data)
	if err != nil {
		return cli.Usagef("%s", err.Error())
	}
	out, err := os.OpenFile(f.out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("opening the results file: %w", err)
	}
	defer out.Close()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	fmt.Fprintf(a.Stderr, "rein submit: %d sessions, %d at once\n", len(tasks), f.concurrency)
	sum, err := engine.RunBatch(ctx, engine.BatchConfig{Client: c, Tasks: tasks, Lines: lines, Template: in, Concurrency: f.concurrency, Out: out})
	rate := 0.0
	if s := sum.Elapsed.Seconds(); s > 0 {
		rate = float64(sum.Sessions) / s
	}
	fmt.Fprintf(a.Stderr, "rein submit: %d sessions, %d complete, %d other outcomes, %d not run in %.1fs (%.2f sessions/s)\n",
		sum.Sessions, sum.Complete, sum.Other, sum.Errors, sum.Elapsed.Seconds(), rate)
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(a.Stderr, "rein submit: interrupted; the sessions started go on, and running the batch again collects them")
		return cli.ExitWith(cli.ExitInterrupted)
	case err != nil:
		return err
	case sum.Errors > 0:
		return cli.ExitWith(cli.ExitFailed)
	}
	return out.Close()
}

func statusCommand(a *cli.App) *cobra.Command {
	var (
		tf     temporalFlags
		format string
	)
	cmd := &cobra.Command{
		Use:   "status --temporal HOST:PORT ID",
		Short: "Show a Temporal session's state, pending approvals and outcome",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != cli.FormatText && format != cli.FormatJSON {
				return cli.Usagef("--format must be text or json")
			}
			c, _, _, _, err := temporalClient(a, &tf)
			if err != nil {
				return a.Fail(err)
			}
			defer c.Close()
			return a.Fail(printStatus(a, cmd.Context(), c, args[0], format))
		},
	}
	tf.register(cmd.Flags())
	cmd.Flags().StringVar(&format, "format", cli.FormatText, "text or json")
	return cmd
}

func printStatus(a *cli.App, ctx context.Context, c client.Client, id, format string) error {
	closed, err := engine.Closed(ctx, c, id)
	if err != nil {
		return err
	}
	st, qerr := engine.Query(ctx, c, id)
	if qerr != nil {
		if closed == "" {
			return qerr
		}
		st = &engine.Status{ID: id} // terminated before it could answer
	}
	if closed != "" && closed != "completed" {
		st.State = closed
	}
	if format == cli.FormatJSON {
		b, err := json.Marshal(st)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.Stdout, "%s\n", b)
		return nil
	}
	fmt.Fprintf(a.Stdout, "%s: %s (%d events)\n", id, st.State, st.Events)
	for _, p := range st.Pending {
		fmt.Fprintf(a.Stdout, "  waiting for approval: call %s: %s %s — %s\n    rein approve %s %s allow|deny\n",
			p.CallID, p.Tool, clip(string(p.Args), 200), p.Reason, id, p.CallID)
	}
	for _, ch := range st.Children {
		fmt.Fprintf(a.Stdout, "  sub-agent: %s\n", ch)
	}
	if o := st.Outcome; o != nil {
		fmt.Fprintf(a.Stdout, "  outcome: %s after %d model calls, %d tool calls\n", o.Outcome, o.Steps, o.ToolCalls)
		if o.Reason != "" || o.Error != "" {
			fmt.Fprintf(a.Stdout, "  reason: %s\n", cli.OneLine(cmp.Or(o.Error, o.Reason)))
		}
		if o.Text != "" {
			fmt.Fprintf(a.Stdout, "  answer: %s\n", clip(cli.OneLine(o.Text), 300))
		}
	}
	return nil
}

// clip shortens s to n bytes at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func cancelCommand(a *cli.App) *cobra.Command {
	var tf temporalFlags
	cmd := &cobra.Command{
		Use:   "cancel --temporal HOST:PORT ID",
		Short: "Cancel a Temporal session and its sub-agents",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, _, _, err := temporalClient(a, &tf)
			if err != nil {
				return a.Fail(err)
			}
			defer c.Close()
			if err := engine.Cancel(cmd.Context(), c, args[0]); err != nil {
				return a.Fail(err)
			}
			fmt.Fprintf(a.Stderr, "rein: cancellation of %s requested\n", args[0])
			return nil
		},
	}
	tf.register(cmd.Flags())
	return cmd
}

func approveCommand(a *cli.App) *cobra.Command {
	var (
		tf     temporalFlags
		reason string
	)
	cmd := &cobra.Command{
		Use:   "approve --temporal HOST:PORT ID CALL allow|deny",
		Short: "Answer a tool call a Temporal session waits to have approved",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			var allow bool
			switch strings.ToLower(args[2]) {
			case "allow", "yes", "y":
				allow = true
			case "deny", "no", "n":
			default:
				return cli.Usagef("the answer must be allow or deny, not %q", args[2])
			}
			c, _, _, _, err := temporalClient(a, &tf)
			if err != nil {
				return a.Fail(err)
			}
			defer c.Close()
			msg, err := engine.Approve(cmd.Context(), c, args[0], engine.ApproveInput{CallID: args[1], Allow: allow, Reason: reason, By: "cli"})
			if err != nil {
				return a.Fail(err)
			}
			fmt.Fprintf(a.Stderr, "rein: %s\n", msg)
			return nil
		},
	}
	tf.register(cmd.Flags())
	cmd.Flags().StringVar(&reason, "reason", "", "the reason the model reads")
	return cmd
}
