package cli

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/termsafe"
)

// NewPermissionsCommand returns `rein permissions list|rm N`: the grants
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
the repository. list shows the workspace's grants, numbered; rm N revokes
grant N (chat's /permissions does the same).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&dirFlag, "state-dir", "", "directory for rein's state (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	cmd.PersistentFlags().StringVarP(&wsFlag, "workspace", "C", "", "the workspace directory (default: the enclosing git repository's root, else the current directory)")
	pc := &permissionsCmd{app: a, dirFlag: &dirFlag, wsFlag: &wsFlag}
	cmd.AddCommand(pc.listCommand(), pc.rmCommand())
	return cmd
}

type permissionsCmd struct {
	app             *App
	dirFlag, wsFlag *string
}

// open returns the store and the workspace the grants are keyed by.
func (c *permissionsCmd) open() (*permissionStore, string, error) {
	ws, err := c.app.workspace(*c.wsFlag)
	if err != nil {
		return nil, "", err
	}
	store := newPermissionStore(stateDir(*c.dirFlag, c.app.Getenv))
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
			ps, err := store.list(ws)
			if err != nil {
				return c.app.fail(err, nil)
			}
			if len(ps) == 0 {
				fmt.Fprintf(c.app.Stderr, "nothing is allowed \"always for this project\" in %s\n", canonicalDir(ws))
				return nil
			}
			for i, p := range ps {
				fmt.Fprintf(termsafe.NewWriter(c.app.Stdout), "%d. %s (%s)\n", i+1, termsafe.Line(p.describe()), p.Added.Format("2006-01-02"))
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
			p, err := store.remove(ws, n)
			if err != nil {
				return c.app.fail(err, nil)
			}
			fmt.Fprintf(c.app.Stderr, "revoked %s\n", termsafe.Line(p.describe()))
			return nil
		},
	}
}
