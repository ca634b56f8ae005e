package cli

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/workspace/sandbox"
)

// sandboxCommand is `rein sandbox`, the home of what concerns the
// sandbox itself rather than a session: for now its persistent caches
// (`rein sandbox cache du|clear`). The caches are the sandbox's (only
// sandboxed commands use them), so they are not a top-level `rein cache`,
// which would read as a cache of rein's own (models, sessions).
func (a *App) sandboxCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Inspect the sandbox's persistent tool caches",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.sandboxCacheCommand())
	return cmd
}

type cacheFlags struct {
	ws, stateDir string
	all          bool
}

func (a *App) sandboxCacheCommand() *cobra.Command {
	var f cacheFlags
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Show or clear the tool caches sandboxed commands keep per workspace",
		Long: `Sandboxed commands keep their tool caches (Go's build and module caches,
npm, pip, cargo and XDG_CACHE_HOME) under rein's state directory, one set per
workspace, so a second go test is as fast as outside the sandbox. They are
never the host's own caches. See docs/sandbox-caches.md; [sandbox] caches and
cache_size configure them.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	du := &cobra.Command{
		Use:   "du",
		Short: "Show the disk use of the workspace's caches (--all: every workspace's)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.cacheDU(f) },
	}
	clear := &cobra.Command{
		Use:   "clear [KIND...]",
		Short: "Remove the workspace's caches (--all: every workspace's); KIND is go, npm, pip, cargo or xdg",
		RunE:  func(cmd *cobra.Command, args []string) error { return a.cacheClear(f, args) },
	}
	for _, c := range []*cobra.Command{du, clear} {
		c.Flags().StringVarP(&f.ws, "workspace", "C", "", "workspace directory (default: the enclosing git repository's root, else the current directory)")
		c.Flags().StringVar(&f.stateDir, "state-dir", "", "directory for rein's state (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
		c.Flags().BoolVar(&f.all, "all", false, "every workspace's caches")
	}
	cmd.AddCommand(du, clear)
	return cmd
}

// cacheDirs returns the cache directories f names.
func (a *App) cacheDirs(f cacheFlags) ([]string, error) {
	state := host.StateDir(f.stateDir, a.Getenv)
	if state == "" {
		return nil, errors.New("cannot find rein's state directory: set HOME or XDG_STATE_HOME, or pass --state-dir")
	}
	if f.all {
		return sandbox.AllCacheDirs(state)
	}
	ws, err := a.workspace(f.ws)
	if err != nil {
		return nil, err
	}
	return []string{sandbox.CacheDir(state, host.CanonicalDir(ws))}, nil
}

func (a *App) cacheDU(f cacheFlags) error {
	dirs, err := a.cacheDirs(f)
	if err != nil {
		return a.fail(err, nil)
	}
	for _, d := range dirs {
		u, err := sandbox.DiskUsage(d)
		if err != nil {
			if !f.all {
				fmt.Fprintf(a.Stdout, "no caches yet for this workspace (%s)\n", termsafe.Line(d))
			}
			continue
		}
		name := u.Workspace
		if name == "" {
			name = "(unknown workspace)"
		}
		fmt.Fprintf(a.Stdout, "%s  %s\n", termsafe.Line(name), sandbox.FormatSize(u.Total))
		var kinds []string
		for k := range u.Bytes {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			fmt.Fprintf(a.Stdout, "  %-9s %s\n", termsafe.Line(k), sandbox.FormatSize(u.Bytes[k]))
		}
		fmt.Fprintf(a.Stdout, "  in %s\n", termsafe.Line(d))
	}
	return nil
}

func (a *App) cacheClear(f cacheFlags, kinds []string) error {
	for _, k := range kinds {
		if _, err := sandbox.ParseCacheKind(k); err != nil {
			return usagef("rein sandbox cache clear: %v", err)
		}
	}
	dirs, err := a.cacheDirs(f)
	if err != nil {
		return a.fail(err, nil)
	}
	for _, d := range dirs {
		if err := sandbox.ClearCaches(d, kinds); err != nil {
			return a.fail(fmt.Errorf("clearing %s: %w", d, err), nil)
		}
		fmt.Fprintf(a.Stdout, "cleared %s\n", termsafe.Line(d))
	}
	return nil
}
