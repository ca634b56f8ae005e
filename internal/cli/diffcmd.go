package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/telemetry/redact"
)

// diffCommand is `rein diff [--session ID] [--stat]`.
func (a *App) diffCommand() *cobra.Command {
	var sessionID, dirFlag, wsFlag string
	var stat bool
	cmd := &cobra.Command{
		Use:   "diff [--session ID] [--stat]",
		Short: "Show the file changes a session made, as a unified diff",
		Long: `Show the net file changes of a session's tool calls as a git-style unified
diff: the latest session of the workspace (-C, default the enclosing git
repository's root, else the current directory), or the one given by
--session. Every run of a resumed session counts; calls undone with /undo or
rein undo do not, so the diff is what undo would revert. File writes of
run_command are included (see docs/diff.md for how they are detected and
the bound on it). --stat prints a summary per file instead.

The diff is coloured on a terminal (not with NO_COLOR) and plain otherwise.
Contents come from the session store (kept up to 8 MiB per file) or the
workspace; a state kept by neither is named by its hash.

Exit codes: 0 shown (or no changes), 1 failed, 2 usage error.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("rein diff takes no arguments (got %q); pass --session ID", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.diff(cmd.Context(), sessionID, dirFlag, wsFlag, stat)
		},
	}
	f := cmd.Flags()
	f.StringVar(&sessionID, "session", "", "the session to show (or a unique prefix of its id); default the latest of the workspace")
	f.StringVarP(&wsFlag, "workspace", "C", "", "workspace directory whose latest session is meant (default: the enclosing git repository's root, else the current directory)")
	f.StringVar(&dirFlag, "state-dir", "", "directory for rein's state (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	f.BoolVar(&stat, "stat", false, "print the lines added and removed per file instead of the diff")
	return cmd
}

func (a *App) diff(ctx context.Context, sessionID, dirFlag, wsFlag string, stat bool) error {
	store, info, err := a.openUndoTarget(ctx, dirFlag, sessionID, wsFlag)
	if err != nil {
		return a.fail(err, nil)
	}
	defer store.Close()
	d, err := sessionDiff(ctx, store, info.ID, info.Workspace)
	if err != nil {
		return a.fail(err, nil)
	}
	if d == "" {
		fmt.Fprintf(a.Stderr, "rein: session %s: %s\n", info.ID, errNoChanges)
		return nil
	}
	if stat {
		d = diffStat(d)
	}
	// File contents are untrusted text: secrets redacted (as chat's
	// /diff does), escaped, then coloured.
	d = termsafe.Text(redact.String(d))
	if isTerminal(a.Stdout) && a.Getenv("NO_COLOR") == "" && !stat {
		d = colorDiff(d)
	}
	if !strings.HasSuffix(d, "\n") {
		d += "\n"
	}
	_, err = io.WriteString(a.Stdout, d)
	return err
}

// colorDiff colours a unified diff for a terminal with SGR codes (the
// text is escaped already: only these codes are raw).
func colorDiff(d string) string {
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	for i, l := range lines {
		code := ""
		switch {
		case strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
			code = "1"
		case strings.HasPrefix(l, "@@"):
			code = "36"
		case strings.HasPrefix(l, "+"):
			code = "32"
		case strings.HasPrefix(l, "-"):
			code = "31"
		}
		if code != "" {
			lines[i] = "\x1b[" + code + "m" + l + "\x1b[0m"
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
