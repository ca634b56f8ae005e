package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/workspace"
)

// undoCommand is `rein undo [--session ID] [N]`.
func (a *App) undoCommand() *cobra.Command {
	var sessionID, dirFlag, wsFlag string
	cmd := &cobra.Command{
		Use:   "undo [--session ID] [N]",
		Short: "Revert the file changes of the last N tool calls of a session (default 1)",
		Long: `Revert the file changes of the newest N tool calls (default 1) that changed
files in a session: the latest session of the workspace (-C, default the
enclosing git repository's root, else the current directory), or the one
given by --session. Calls of every run of the
session count, newest first; a call already undone is skipped, so undoing
again goes one call further back.

Each call's files are restored together or not at all, from the contents the
session store kept (up to 8 MiB per file and 256 MiB per session). A file
that changed since the call (by hand, a command or a later call), or whose
earlier content was too large to keep, is refused by name and left as it is.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("expected at most one argument N, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 1
			if len(args) == 1 {
				var err error
				if n, err = undoCount(args[0]); err != nil {
					return usagef("rein undo N %s", err)
				}
			}
			return a.undo(cmd.Context(), sessionID, dirFlag, wsFlag, n)
		},
	}
	cmd.Flags().StringVar(&sessionID, "session", "", "the session to undo in (or a unique prefix of its id); default the latest of the workspace")
	cmd.Flags().StringVarP(&wsFlag, "workspace", "C", "", "workspace directory whose latest session is meant (default: the enclosing git repository's root, else the current directory)")
	cmd.Flags().StringVar(&dirFlag, "state-dir", "", "directory for rein's state (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	return cmd
}

// openUndoTarget opens the session store of the state directory and
// finds the session `rein undo` and `rein diff` work on (see undoTarget).
// The caller closes the store.
func (a *App) openUndoTarget(ctx context.Context, dirFlag, sessionID, wsFlag string) (*session.SQLite, session.Info, error) {
	dir := host.StateDir(dirFlag, a.Getenv)
	if dir == "" {
		return nil, session.Info{}, errors.New("cannot find rein's state directory: set HOME or XDG_STATE_HOME, or pass --state-dir")
	}
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(dir, session.DatabaseFile)})
	if err != nil {
		return nil, session.Info{}, err
	}
	info, err := a.undoTarget(ctx, store, sessionID, wsFlag)
	if err != nil {
		store.Close()
		return nil, session.Info{}, err
	}
	return store, info, nil
}

// undo is `rein undo`. It holds the session's lock while it works, so it
// never undoes under a run or chat that is changing the same session.
func (a *App) undo(ctx context.Context, sessionID, dirFlag, wsFlag string, n int) error {
	store, info, err := a.openUndoTarget(ctx, dirFlag, sessionID, wsFlag)
	if err != nil {
		return a.fail(err, nil)
	}
	defer store.Close()
	j, err := store.Journal(ctx, info.ID)
	if err != nil {
		return a.fail(err, nil)
	}
	defer j.Close()
	ws, err := workspace.Open(info.Workspace, workspace.Options{})
	if err != nil {
		return a.fail(fmt.Errorf("opening the workspace %s of session %s: %w", info.Workspace, info.ID, err), nil)
	}
	defer ws.Close()
	done, err := undoCalls(ctx, store, info.ID, ws, n)
	for _, d := range done {
		fmt.Fprintf(a.Stdout, "undid %s of %s:\n", plural(len(d.call.changes), "change"), termsafe.Line(d.call.describe()))
		for _, l := range d.lines {
			fmt.Fprintf(a.Stdout, "  %s\n", termsafe.Line(l))
		}
	}
	if err != nil {
		if len(done) > 0 {
			err = fmt.Errorf("stopped after %s: %w", plural(len(done), "call"), err)
		}
		return a.fail(err, nil)
	}
	return nil
}

// undoTarget finds the session: --session, else the latest of the
// workspace.
func (a *App) undoTarget(ctx context.Context, store *session.SQLite, id, wsFlag string) (session.Info, error) {
	if id != "" {
		return store.Get(ctx, id)
	}
	ws, err := a.workspace(wsFlag)
	if err != nil {
		return session.Info{}, err
	}
	return store.Latest(ctx, ws)
}
