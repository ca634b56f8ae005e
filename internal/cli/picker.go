package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/telemetry/redact"
)

// Bounds of -r without an ID: the picker lists maxPick sessions, the
// error without a terminal the noTerminalPick most recent.
const (
	maxPick        = 20
	noTerminalPick = 10
)

// resolvePick turns -r/--resume without an ID into the session the user
// picks from this workspace's most recent ones, on a terminal with the
// arrows and Enter; it sets the flags' session id. Without a terminal
// nobody can pick: the error says to pass an ID, listing the
// noTerminalPick most recent sessions. It runs before the chat's UI (and
// before the session is opened), so the list has the terminal to itself.
func (a *App) resolvePick(ctx context.Context, flags *commonFlags, cfg *config.Config, wsDir string) error {
	f := &flags.session
	if !f.pick {
		return nil
	}
	if err := f.validate(); err != nil {
		return err
	}
	registerSecrets(cfg, a.Getenv, a.environ())
	list, err := a.recentSessions(ctx, flags.stateDirFlag(), wsDir)
	if err != nil {
		return a.fail(err, nil)
	}
	if len(list) == 0 {
		return usagef("no session of %s to resume; rein sessions list shows those of all workspaces", wsDir)
	}
	now := time.Now()
	if !a.useTUI(false) {
		var b strings.Builder
		b.WriteString("rein: -r without an ID needs a terminal to pick a session from; pass the ID: rein -r ID. The most recent sessions of this workspace:\n")
		for _, in := range list[:min(len(list), noTerminalPick)] {
			fmt.Fprintf(&b, "  %s\n", pickLine(now, in))
		}
		fmt.Fprint(a.Stderr, b.String())
		return &exitError{code: ExitUsage}
	}
	items := make([]string, len(list))
	for i, in := range list {
		items[i] = pickLine(now, in)
	}
	env := os.Environ()
	if a.Getenv("NO_COLOR") != "" {
		env = append(env, "NO_COLOR=1")
	}
	// SIGINT and SIGTERM end the picker as they end a run; in raw mode
	// Ctrl-C arrives as a key, which Pick handles itself.
	pickCtx, stop := context.WithCancel(ctx)
	defer stop()
	var sig os.Signal
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case sig = <-a.Interrupts:
			stop()
		case <-pickCtx.Done():
		}
	}()
	i, err := tui.Pick(pickCtx, a.Stdin, a.Stdout, env, "Resume a session of "+wsDir+":", items)
	stop()
	<-done
	switch {
	case sig != nil || (err != nil && ctx.Err() != nil):
		fmt.Fprintln(a.Stderr, "rein: interrupted")
		return &exitError{code: ExitInterrupted}
	case errors.Is(err, tui.ErrNotPicked):
		fmt.Fprintln(a.Stderr, "rein: no session picked (rein -c continues the latest, rein -r ID a given one)")
		return &exitError{code: ExitInterrupted}
	case err != nil:
		return a.fail(fmt.Errorf("showing the sessions to pick from: %w", err), nil)
	}
	f.id, f.pick = list[i].ID, false
	return nil
}

// recentSessions lists the workspace's sessions, newest first, at most
// maxPick of them.
func (a *App) recentSessions(ctx context.Context, stateDirFlag, wsDir string) ([]session.Info, error) {
	dir := host.StateDir(stateDirFlag, a.Getenv)
	if dir == "" {
		return nil, errors.New("cannot find rein's state directory: set HOME or XDG_STATE_HOME, or pass --state-dir")
	}
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(dir, session.DatabaseFile)})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return store.List(ctx, session.Filter{Workspace: wsDir, Limit: maxPick})
}

// pickLine describes a session on one line: id, age and title, redacted
// and escaped.
func pickLine(now time.Time, in session.Info) string {
	title := in.Title
	if title == "" {
		title = "(no message)"
	}
	return fmt.Sprintf("%s  %-12s %s", in.ID, age(now, in.Updated), termsafe.Line(redact.String(host.ClipRunes(title, 60))))
}
