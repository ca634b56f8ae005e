package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
)

// NewPermissionsCommand returns `rein permissions list|add|rm N`: the grants
// made with "always for this project" in chat's approval dialog, kept in
// the state directory per workspace (chat's /permissions shows the same).
func NewPermissionsCommand(a *App) *cobra.Command {
	var dirFlag, wsFlag string
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: `List and revoke what was allowed "always for this project"`,
		Long: `In rein chat's approval dialog, "always for this project" allows a tool,
or one exact command, in this workspace from then on. The grants are kept in
rein's state directory (permissions.json), keyed by the workspace, never in
the repository. list shows the workspace's grants, numbered; add grants a
tool (--tool NAME) or one exact command (after --), for good or, with --ttl,
for a while; rm N revokes grant N (chat's /permissions does the same).
Ended grants are ignored and dropped from the file.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&dirFlag, "state-dir", "", "directory for rein's state (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	cmd.PersistentFlags().StringVarP(&wsFlag, "workspace", "C", "", "the workspace directory (default: the enclosing git repository's root, else the current directory)")
	pc := &permissionsCmd{app: a, dirFlag: &dirFlag, wsFlag: &wsFlag}
	cmd.AddCommand(pc.listCommand(), pc.addCommand(), pc.rmCommand())
	return cmd
}

type permissionsCmd struct {
	app             *App
	dirFlag, wsFlag *string
}

// open returns the store and the workspace the grants are keyed by.
func (c *permissionsCmd) open() (*host.PermissionStore, string, error) {
	ws, err := c.app.workspace(*c.wsFlag)
	if err != nil {
		return nil, "", err
	}
	store := host.NewPermissionStore(host.StateDir(*c.dirFlag, c.app.Getenv))
	if store == nil {
		return nil, "", errors.New("cannot find rein's state directory: set HOME or XDG_STATE_HOME, or pass --state-dir")
	}
	return store, ws, nil
}

func (c *permissionsCmd) listCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the workspace's grants, numbered for rm",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			store, ws, err := c.open()
			if err != nil {
				return c.app.fail(err, nil)
			}
			ps, err := store.List(ws)
			if err != nil {
				return c.app.fail(err, nil)
			}
			if len(ps) == 0 {
				fmt.Fprintf(c.app.Stderr, "nothing is allowed \"always for this project\" in %s\n", host.CanonicalDir(ws))
				return nil
			}
			for i, p := range ps {
				fmt.Fprintf(termsafe.NewWriter(c.app.Stdout), "%d. %s (%s)\n", i+1, termsafe.Line(p.Describe()), p.When())
			}
			return nil
		},
	}
}

func (c *permissionsCmd) rmCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "rm N",
		Short: "Revoke grant N, as list numbers them",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("rm takes the number of one grant (got %d arguments); rein permissions list shows them", len(args))
			}
			if n, err := strconv.Atoi(args[0]); err != nil || n < 1 {
				return usagef("rm takes the number of a grant, as rein permissions list shows it (got %q)", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			n, _ := strconv.Atoi(args[0])
			store, ws, err := c.open()
			if err != nil {
				return c.app.fail(err, nil)
			}
			p, err := store.Remove(ws, n)
			if err != nil {
				return c.app.fail(err, nil)
			}
			fmt.Fprintf(c.app.Stderr, "revoked %s\n", termsafe.Line(p.Describe()))
			return nil
		},
	}
}

func (c *permissionsCmd) addCommand() *cobra.Command {
	var toolName, ttl string
	cmd := &cobra.Command{
		Use:   "add [--ttl 7d] (--tool NAME | -- COMMAND [ARG...])",
		Short: "Allow a tool, or one exact command, in this workspace",
		Example: `  rein permissions add --ttl 7d -- go test ./...
  rein permissions add --tool web_fetch --ttl 12h`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case toolName == "" && len(args) == 0:
				return usagef("add needs --tool NAME or the command after --, e.g. rein permissions add -- go test ./...")
			case toolName != "" && len(args) > 0:
				return usagef("add grants one thing: give --tool or a command, not both")
			case toolName != "" && !toolNameRE.MatchString(toolName):
				return usagef("--tool: %q is not a tool name", toolName)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			p := host.Permission{Tool: toolName, Command: args, Added: time.Now().UTC()}
			if cmd.Flags().Changed("ttl") {
				d, err := parseTTL(ttl)
				if err != nil {
					return usagef("--ttl: %v", err)
				}
				end := p.Added.Add(d)
				p.Expires = &end
			}
			store, ws, err := c.open()
			if err != nil {
				return c.app.fail(err, nil)
			}
			if err := store.Add(ws, p); err != nil {
				return c.app.fail(err, nil)
			}
			fmt.Fprintf(c.app.Stderr, "allowed %s in %s (%s)\n", termsafe.Line(p.Describe()), termsafe.Line(host.CanonicalDir(ws)), p.When())
			return nil
		},
	}
	cmd.Flags().StringVar(&toolName, "tool", "", "the tool to allow (any arguments)")
	cmd.Flags().StringVar(&ttl, "ttl", "", "how long the grant lasts: 90m, 12h, 7d, 2w (default: until revoked)")
	return cmd
}

// toolNameRE accepts built-in and MCP tool names (mcp__server__tool).
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// maxTTL bounds --ttl: a longer grant is a permanent one, which add
// without --ttl gives.
const maxTTL = 366 * 24 * time.Hour

// parseTTL reads a duration with day (d) and week (w) units besides Go's
// (h, m, s): "7d", "2w", "36h", "1h30m".
func parseTTL(s string) (time.Duration, error) {
	var d time.Duration
	switch {
	case strings.HasSuffix(s, "d") || strings.HasSuffix(s, "w"):
		unit := 24 * time.Hour
		if strings.HasSuffix(s, "w") {
			unit *= 7
		}
		n, err := strconv.Atoi(s[:len(s)-1])
		if err != nil || n < 0 || n > 1000 {
			return 0, fmt.Errorf("want a duration like 7d, 2w or 12h (got %q)", s)
		}
		d = time.Duration(n) * unit
	default:
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("want a duration like 7d, 2w or 12h (got %q)", s)
		}
	}
	if d < time.Minute || d > maxTTL {
		return 0, fmt.Errorf("must be between 1m and %dd (got %s); leave --ttl out for a grant until revoked", int(maxTTL/(24*time.Hour)), s)
	}
	return d, nil
}
