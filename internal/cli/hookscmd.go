package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinharness/rein/hooks"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
)

// NewHooksCommand returns `rein hooks` with its subcommands list and
// trust.
func NewHooksCommand(a *App) *cobra.Command {
	a.defaults()
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List the configured hooks, or trust the workspace's",
		Long: `Hooks are shell commands rein runs at fixed points of a run, compatible with
Claude Code's: [[hooks.EVENT]] tables in config.toml and the "hooks" object of
the workspace's .claude/settings.json and .claude/settings.local.json.

  rein hooks list     each hook: event, matcher, layer, trusted?, command
  rein hooks trust    allow the hooks and [verify] checks the workspace defines,
                      and the allow rules of its .claude/settings*.json permissions

Hooks in your own configuration always run. Hooks the workspace defines
(.rein/config.toml, .claude/settings*.json) come with the repository and run
nothing until you trusted them as they are; any change to them, or to the
workspace scripts they run, asks again. The same holds for the [verify] checks
a workspace's .rein/config.toml adds, which the policy then decides like the
agent's commands, and for the "permissions" allow rules of its Claude Code
settings (their deny and ask rules apply at once; see docs/claude-settings.md).

Every hook runs inside rein's sandbox (the workspace writable, its protected
paths read-only, your secret stores hidden, the session's network). A hook of
your own config may set sandbox = false, and only when nothing it runs lies in
the workspace; network = true or false sets its network.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.hooksListCommand(), a.hooksTrustCommand())
	return cmd
}

// loadHookSet loads the configuration the flags name, its hooks and the
// project's [verify] checks (which need the same trust).
func (a *App) loadHookSet(f *mcpFlags) (host.HookSet, string, error) {
	cfg, ws, err := a.load(&f.common)
	if err != nil {
		return host.HookSet{}, "", err
	}
	ws = host.CanonicalDir(ws)
	set, err := host.LoadHooks(cfg, ws)
	if err != nil {
		return host.HookSet{}, "", err
	}
	vs, err := host.LoadVerify(cfg)
	if err != nil {
		return host.HookSet{}, "", err
	}
	set.Checks = projectChecks(vs.Checks)
	a.warnHookConfig(set.Warnings)
	return set, ws, nil
}

func (a *App) hooksListCommand() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Show each configured hook and whether it runs",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.format != formatText {
				return usagef("rein hooks list prints text only")
			}
			set, ws, err := a.loadHookSet(&f)
			if err != nil {
				return a.fail(err, nil)
			}
			all := set.All()
			out := termsafe.NewWriter(a.Stdout)
			cp := loadClaudePerms(ws, host.HomeDir(a.Getenv))
			if len(all.Groups) == 0 && len(set.Checks) == 0 && !cp.hasProjectAllow() {
				fmt.Fprintln(out, "no hooks are configured")
				return nil
			}
			st := a.Env().HooksTrustStore(f.stateDir).Status(set.Project, ws)
			cst := checksStatus(checksStore(host.StateDir(f.stateDir, a.Getenv)), set.Checks, ws)
			// Aligned columns; the escaping writer is under the
			// tabwriter, so escapes are counted as the width they show.
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			defer tw.Flush()
			out = tw
			fmt.Fprintln(out, "EVENT\tMATCHER\tLAYER\tRUNS\tTIMEOUT\tCOMMAND\tSOURCE")
			for _, g := range all.Groups {
				runs := "yes"
				if g.Layer == hooks.LayerProject && !st.Trusted {
					runs = "no: " + untrustedWhy(st)
				}
				matcher := g.Matcher
				if matcher == "" {
					matcher = "*"
				}
				for _, h := range g.Hooks {
					state := runs
					if h.Unconfined {
						state += ", outside the sandbox"
					}
					fmt.Fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", g.Event, termText(matcher, 80), g.Layer, termsafe.Line(state),
						h.Timeout, termText(h.Command, 1<<14), termText(g.Source, 200))
				}
			}
			for _, c := range set.Checks {
				runs := "yes (decided by the policy)"
				if !cst.Trusted {
					runs = "no: " + untrustedWhy(cst)
				}
				fmt.Fprintf(out, "Verify\t-\tproject\t%s\t%s\t%s\t%s\n", termsafe.Line(runs), c.Timeout, termText(c.Script, 1<<14), termText(c.Source, 200))
			}
			a.listPermissions(out, cp, ws, f.stateDir)
			return nil
		},
	}
	registerHooksFlags(&f, cmd)
	return cmd
}

// untrustedWhy says in a few words why project hooks do not run.
func untrustedWhy(st host.TrustStatus) string { return trustWhy(st, " (rein hooks trust)") }

// trustWhy says in a few words why what a store does not trust does not
// run, hint naming the command that trusts it (or "").
func trustWhy(st host.TrustStatus, hint string) string {
	switch {
	case st.Err != nil:
		return "not trusted (" + textclip.FirstLine(st.Err.Error()) + ")"
	case len(st.Changed) > 0:
		return "changed since trusted: " + pathList(st.Changed)
	case st.Known:
		return "changed since trusted" + hint
	}
	return "not trusted" + hint
}

func (a *App) hooksTrustCommand() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Allow the hooks the workspace defines to run",
		Long: `Show every hook the workspace defines (.rein/config.toml [hooks],
.claude/settings.json, .claude/settings.local.json) and record them as
trusted, with the contents of the workspace files their commands run. When
any of it changes, the workspace's hooks run nothing until you trust them
again. The allow rules of the "permissions" of those settings files are
trusted too, pinned to the files' whole contents (their deny and ask rules
need no trust).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.format != formatText {
				return usagef("rein hooks trust prints text only")
			}
			set, ws, err := a.loadHookSet(&f)
			if err != nil {
				return a.fail(err, nil)
			}
			cp := loadClaudePerms(ws, host.HomeDir(a.Getenv))
			a.warnHookConfig(cp.warnings)
			if len(set.Project.Groups) == 0 && len(set.Checks) == 0 && !cp.hasProjectAllow() {
				fmt.Fprintln(a.Stdout, "this workspace defines no hooks; hooks in your own config need no trust")
				return nil
			}
			if cp.hasProjectAllow() {
				if err := a.trustPermissionsCmd(cp, ws, f.stateDir); err != nil {
					return a.fail(err, nil)
				}
			}
			if len(set.Checks) > 0 {
				if err := a.trustChecksCmd(set.Checks, ws, f.stateDir); err != nil {
					return a.fail(err, nil)
				}
			}
			if len(set.Project.Groups) == 0 {
				return nil
			}
			store := a.Env().HooksTrustStore(f.stateDir)
			before := store.Status(set.Project, ws)
			st, err := store.Trust(set.Project, ws)
			if err != nil {
				return a.fail(err, nil)
			}
			fmt.Fprintf(a.Stdout, "trusted %d hooks of %s:\n", set.Project.Len(), termText(ws, 200))
			for _, g := range set.Project.Groups {
				for _, h := range g.Hooks {
					fmt.Fprintf(a.Stdout, "  %s %s: runs %s (%s)\n", g.Event, termText(orStar(g.Matcher), 80), termText(h.Command, 1<<14), termText(g.Source, 200))
				}
			}
			fmt.Fprintln(termsafe.NewWriter(a.Stdout), hooksSandboxNote)
			if len(before.Changed) > 0 {
				fmt.Fprintf(a.Stdout, "  changed since you last trusted them: %s\n", termsafe.Line(pathList(before.Changed)))
			}
			for _, p := range st.Pins {
				if p.Kind == "file" {
					fmt.Fprintf(a.Stdout, "  pinned %s (sha256 %s)\n", termText(p.Path, 200), p.SHA256[:16])
				}
			}
			return nil
		},
	}
	registerHooksFlags(&f, cmd)
	return cmd
}

// hooksSandboxNote says how trusted hooks run.
const hooksSandboxNote = "  they run in rein's sandbox, like the agent's commands: the workspace writable, its protected paths read-only, your secret stores hidden, the session's network; only a hook of your own config may run outside it (sandbox = false), and never one that runs a workspace file"

// trustChecksCmd records the project's [verify] checks as trusted and
// shows them.
func (a *App) trustChecksCmd(checks []host.VerifyCheck, ws, stateDirFlag string) error {
	store := checksStore(host.StateDir(stateDirFlag, a.Getenv))
	before := checksStatus(store, checks, ws)
	if _, err := trustChecks(store, checks, ws); err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "trusted %s of %s's [verify]:\n", plural(len(checks), "check"), termText(ws, 200))
	for _, c := range checks {
		fmt.Fprintf(a.Stdout, "  runs %s (%s)\n", termText(c.Script, 1<<14), termText(c.Source, 200))
	}
	if len(before.Changed) > 0 {
		fmt.Fprintf(a.Stdout, "  changed since you last trusted them: %s\n", termsafe.Line(pathList(before.Changed)))
	}
	fmt.Fprintln(a.Stdout, "  each runs in the sandbox with the session's network, decided by the policy like the agent's commands: a hard denial is refused, and what needs approval is asked (refused under --approve never)")
	return nil
}

func orStar(m string) string {
	if strings.TrimSpace(m) == "" {
		return "*"
	}
	return m
}

// warnHookConfig prints the warnings of loading hooks, escaped: they quote
// repository files.
func (a *App) warnHookConfig(warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(a.Stderr, "rein: warning: %s\n", termText(w, 400))
	}
}

// registerHooksFlags registers the flags of the hooks subcommands: where
// the configuration and the trust store are.
func registerHooksFlags(f *mcpFlags, cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVarP(&f.common.workspace, "workspace", "C", "", "workspace directory, whose .rein/config.toml and .claude/settings*.json are read (default: the enclosing git repository's root, else the current directory)")
	fs.StringVar(&f.common.configFile, "config", "", "config file to use instead of ~/.config/rein/config.toml")
	fs.StringVar(&f.format, "output-format", formatText, "output format: text")
	fs.StringVar(&f.stateDir, "state-dir", "", "directory for rein's state, where trusted workspace hooks are recorded (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	f.common.fs = pflag.NewFlagSet("hooks", pflag.ContinueOnError)
}
