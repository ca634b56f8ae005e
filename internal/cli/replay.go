package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/session/replay"
	"github.com/reinharness/rein/telemetry/redact"
)

// NewReplayCommand returns `rein replay SESSION`: re-run a stored session
// with its recorded model answers and real tools in a scratch copy of its
// workspace, and report the first tool result that differs. Exit status 0
// means every compared result matched, 1 a divergence (or a failure).
func NewReplayCommand(a *App) *cobra.Command {
	var (
		dirFlag, wsFlag, configFile string
		ignore                      []string
		keep, exact                 bool
	)
	cmd := &cobra.Command{
		Use:   "replay SESSION",
		Short: "Re-run a session's tool calls against its recorded answers and report the first divergence",
		Long: `Re-run a stored session: every model call is answered with the recorded
assistant message and every tool call gets its recorded policy decision,
while the tools really run — in a scratch copy of the workspace, so the
workspace itself is not touched. The first tool result that differs from
the recording is reported as a unified diff (--- recorded, +++ replayed).

The copy is of the workspace as it is now (-C picks another directory);
to reproduce an incident, check out the state the session started from.
It keeps modes, owners (where allowed), access and modification times,
symbolic and hard links, and the directory's name; the copy's path is
shown as the workspace's in the replayed results.

Volatile text is masked in both results before they are compared:
durations ("exit code 0 (8ms)", "ok pkg 0.012s") and timestamps, as the
repeat guard masks them, and what no copy can reproduce — inode numbers
and devices, directory sizes and block counts ("total" of ls -l, stat's
Blocks), the parent directory's line in ls -la, ls -l's column padding.
--exact compares the results as they are. --ignore REGEX masks more
(temporary paths, ids).

Exit codes: 0 identical, 1 diverged or failed, 2 usage error, 130 interrupted.`,
		Args: exactlyOneID("replay"),
		RunE: func(cmd *cobra.Command, args []string) error {
			masks := make([]*regexp.Regexp, 0, len(ignore))
			for _, expr := range ignore {
				re, err := regexp.Compile(expr)
				if err != nil {
					return usagef("--ignore %q is not a regular expression: %v", expr, err)
				}
				masks = append(masks, re)
			}
			r := &replayCmd{app: a, dirFlag: dirFlag, wsFlag: wsFlag, configFile: configFile, masks: masks, keep: keep, exact: exact}
			return r.run(cmd.Context(), args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&dirFlag, "state-dir", "", "directory for rein's state (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	f.StringVarP(&wsFlag, "workspace", "C", "", "directory to copy instead of the session's recorded workspace")
	f.StringVar(&configFile, "config", "", "config file to use instead of ~/.config/rein/config.toml")
	f.StringArrayVar(&ignore, "ignore", nil, "regular expression whose matches are masked before comparing (repeatable)")
	f.BoolVar(&keep, "keep", false, "keep the scratch copy and print where it is")
	f.BoolVar(&exact, "exact", false, "compare results exactly: do not mask durations and timestamps")
	return cmd
}

// replayCmd is one `rein replay`.
type replayCmd struct {
	app                         *App
	dirFlag, wsFlag, configFile string
	masks                       []*regexp.Regexp
	keep                        bool
	// exact turns off the default masking of volatile text.
	exact bool
	// scratch is the copy the replay runs in, src the workspace copied;
	// results show the scratch path as src.
	scratch, src string
}

func (r *replayCmd) run(ctx context.Context, id string) error {
	a := r.app
	dir := host.StateDir(r.dirFlag, a.Getenv)
	if dir == "" {
		return a.fail(errors.New("cannot find rein's state directory: set HOME or XDG_STATE_HOME, or pass --state-dir"), nil)
	}
	path := filepath.Join(dir, session.DatabaseFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return a.fail(fmt.Errorf("%w: no session %q; nothing has been recorded in %s yet", session.ErrNotFound, id, dir), nil)
	}
	store, err := session.Open(ctx, session.Config{Path: path})
	if err != nil {
		return a.fail(err, nil)
	}
	defer store.Close()
	info, err := store.Get(ctx, id)
	if err != nil {
		return a.fail(err, nil)
	}
	src := info.Workspace
	if r.wsFlag != "" {
		if src, err = a.workspace(r.wsFlag); err != nil {
			return err
		}
	} else if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return a.fail(fmt.Errorf("the workspace of session %s, %s, is gone; pass -C DIR to replay against another copy", info.ID, src), nil)
	}
	scratch, cleanup, err := replay.Scratch(ctx, src)
	if err != nil {
		return a.fail(err, nil)
	}
	if r.keep {
		fmt.Fprintf(a.Stderr, "rein: the scratch copy stays at %s\n", scratch)
	} else {
		defer cleanup()
	}
	r.scratch, r.src = scratch, src
	cfg, h, err := r.harness(src, scratch)
	if err != nil {
		return a.fail(err, nil)
	}
	defer h.close()

	var (
		rep    *replay.Report
		runErr error
	)
	sig, forced := a.interruptible(ctx, func(ctx context.Context) {
		rep, runErr = replay.Run(ctx, replay.Config{
			Store: store, Session: info.ID, Tools: h.tools, Policy: h.engine,
			ToolTimeout: cfg.Agent.ToolTimeout, MaxResultBytes: cfg.Agent.MaxResultBytes,
			Normalize: r.normalize,
		})
	})
	switch {
	case forced, sig != nil:
		fmt.Fprintln(a.Stderr, "rein: interrupted")
		return &exitError{code: ExitInterrupted}
	case runErr != nil:
		return a.fail(runErr, nil)
	}
	return r.report(rep)
}

// harness builds the tools and the policy of a run, on the scratch copy:
// the configuration is the one the workspace src would get.
func (r *replayCmd) harness(src, scratch string) (*config.Config, *harness, error) {
	var cf commonFlags
	cf.register(pflag.NewFlagSet("replay", pflag.ContinueOnError))
	cf.workspace, cf.configFile, cf.approve = src, r.configFile, approveNever
	// A replay must not write the real memory store (its remember calls
	// would land under the scratch workspace); it runs without memory.
	cf.noMemory = true
	if r.dirFlag != "" {
		if err := cf.fs.Set("state-dir", r.dirFlag); err != nil {
			return nil, nil, err
		}
	}
	cfg, _, err := r.app.load(&cf)
	if err != nil {
		return nil, nil, err
	}
	// The recording is redacted with the run's secrets; the replay must
	// be too, or the diff shows what the recording hid.
	registerSecrets(cfg, r.app.Getenv, r.app.environ())
	h, err := r.app.newHarness(cfg, harnessOptions{workspace: scratch, flags: &cf})
	if err != nil {
		return nil, nil, err
	}
	return cfg, h, nil
}

// normalize shows the scratch path as the workspace's, masks durations,
// timestamps and what the copy cannot reproduce (unless --exact), then the
// --ignore matches.
func (r *replayCmd) normalize(s string) string {
	if r.scratch != "" && r.scratch != r.src {
		s = strings.ReplaceAll(s, r.scratch, r.src)
	}
	if !r.exact {
		s = maskUnreproducible(agent.MaskVolatile(s))
	}
	for _, re := range r.masks {
		s = re.ReplaceAllString(s, "<ignored>")
	}
	return s
}

// report prints the outcome and returns the exit status.
func (r *replayCmd) report(rep *replay.Report) error {
	a := r.app
	skipped := ""
	if rep.Skipped > 0 {
		skipped = fmt.Sprintf(" (%s not comparable: interrupted or unfinished when recorded)", plural(rep.Skipped, "call"))
	}
	if rep.Divergence == nil {
		fmt.Fprintf(termsafe.NewWriter(a.Stdout), "session %s replayed: %s identical%s\n", rep.Session.ID, plural(rep.Compared, "tool result"), skipped)
		return nil
	}
	fmt.Fprintf(termsafe.NewWriter(a.Stdout), "session %s diverged after %s%s:\n%s", rep.Session.ID,
		plural(rep.Compared-1, "identical tool result"), skipped, redact.String(rep.Divergence.String()))
	return &exitError{code: ExitFailed}
}
