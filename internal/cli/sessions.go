package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/telemetry"
	"github.com/reinharness/rein/telemetry/redact"
	"github.com/reinharness/rein/workspace"
)

// NewSessionsCommand returns `rein sessions list|show ID|rm ID…`, which
// inspect and delete the sessions stored under the state directory.
func NewSessionsCommand(a *App) *cobra.Command {
	var dirFlag string
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show and delete stored sessions",
		Long: `Every run and chat is recorded as a session in the state directory
($XDG_STATE_HOME/rein or ~/.local/state/rein; --state-dir overrides it).
Resume one with rein run --session ID or --continue (the latest of the
workspace); --fork continues a copy. An ID may be shortened to any unique
prefix.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&dirFlag, "state-dir", "", "directory for rein's state (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	sc := &sessionsCmd{app: a, dirFlag: &dirFlag}
	cmd.AddCommand(sc.listCommand(), sc.showCommand(), sc.rmCommand(), sc.exportCommand())
	return cmd
}

// sessionsCmd holds what the sessions subcommands share.
type sessionsCmd struct {
	app     *App
	dirFlag *string
}

// open opens the store; ok is false when there is no store yet (nothing
// was ever recorded), which the subcommands report without creating one.
func (c *sessionsCmd) open(ctx context.Context) (store *session.SQLite, dir string, ok bool, err error) {
	dir = host.StateDir(*c.dirFlag, c.app.Getenv)
	if dir == "" {
		return nil, "", false, errors.New("cannot find rein's state directory: set HOME or XDG_STATE_HOME, or pass --state-dir")
	}
	path := filepath.Join(dir, session.DatabaseFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, dir, false, nil
	}
	// A session recorded with other credentials (or by an older rein)
	// is shown redacted of the environment's too.
	redact.Register(workspace.CredentialEnv(c.app.environ(), minEnvSecret)...)
	store, err = session.Open(ctx, session.Config{Path: path})
	if err != nil {
		return nil, dir, false, err
	}
	return store, dir, true, nil
}

// failed prints err as one line and returns exit status 1, or 2 for a
// usage error.
func (c *sessionsCmd) failed(err error) error {
	return c.app.fail(err, nil)
}

func (c *sessionsCmd) listCommand() *cobra.Command {
	var (
		ws     string
		limit  int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List sessions across workspaces, most recent first",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			filter := session.Filter{Limit: limit}
			if ws != "" {
				abs, err := c.app.workspace(ws)
				if err != nil {
					return err
				}
				filter.Workspace = abs
			}
			store, _, ok, err := c.open(cmd.Context())
			if err != nil {
				return c.failed(err)
			}
			var list []session.Info
			if ok {
				defer store.Close()
				if list, err = store.List(cmd.Context(), filter); err != nil {
					return c.failed(err)
				}
			}
			if asJSON {
				return writeJSONLines(termsafe.NewJSONWriter(c.app.Stdout), list)
			}
			if len(list) == 0 {
				c.explainEmpty(cmd.Context(), store, filter.Workspace)
				return nil
			}
			printSessions(termsafe.NewWriter(c.app.Stdout), list)
			return nil
		},
	}
	cmd.Flags().StringVarP(&ws, "workspace", "C", "", "only sessions of this workspace directory")
	cmd.Flags().IntVar(&limit, "limit", session.DefaultListLimit, "show at most this many sessions (0 or less: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per session")
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if limit <= 0 {
			limit = -1
		}
		return nil
	}
	return cmd
}

// printSessions prints a table: id, last update, status, events,
// workspace, title. The workspace and the title (the first prompt, which
// may be a repository's or a model's text) are escaped to one line.
func printSessions(w io.Writer, list []session.Info) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tSTATUS\tEVENTS\tWORKSPACE\tTITLE")
	for _, in := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", in.ID, in.Updated.Local().Format("2006-01-02 15:04"),
			in.Status, in.Events, termsafe.Line(in.Workspace), termsafe.Line(host.ClipRunes(in.Title, 60)))
	}
	tw.Flush()
}

// explainEmpty says why the list is empty: nothing recorded at all, or
// nothing in the workspace asked for while other workspaces hold sessions
// (the usual surprise after starting rein somewhere else).
func (c *sessionsCmd) explainEmpty(ctx context.Context, store *session.SQLite, workspace string) {
	others := 0
	if store != nil && workspace != "" {
		all, err := store.List(ctx, session.Filter{Limit: -1})
		if err == nil {
			others = len(all)
		}
	}
	if others == 0 {
		fmt.Fprintln(c.app.Stderr, "no sessions yet; rein run and rein chat record them")
		return
	}
	fmt.Fprintf(c.app.Stderr, "no sessions in %s; other workspaces hold %s (rein sessions list without -C shows them)\n",
		termsafe.Line(workspace), plural(others, "session"))
}

func (c *sessionsCmd) showCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a session's conversation (--json: its events)",
		Args:  exactlyOneID("show"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			store, _, ok, err := c.open(ctx)
			if err != nil {
				return c.failed(err)
			}
			if !ok {
				return c.failed(fmt.Errorf("%w: no session %q; nothing has been recorded yet", session.ErrNotFound, args[0]))
			}
			defer store.Close()
			info, err := store.Get(ctx, args[0])
			if err != nil {
				return c.failed(err)
			}
			if asJSON {
				return c.showJSON(ctx, store, info.ID)
			}
			return c.showText(ctx, store, info)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the stored events, one JSON object per line")
	return cmd
}

func (c *sessionsCmd) showJSON(ctx context.Context, store session.Store, id string) error {
	w := termsafe.NewJSONWriter(c.app.Stdout)
	for r, err := range store.Events(ctx, id) {
		if err != nil {
			return c.failed(err)
		}
		line, err := shownJSON(r.Event)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// showText prints the session's header and a transcript: prompts,
// answers, tool calls with their decisions and results, and outcomes.
// All of it is the model's, tools' and servers' text: it goes through
// termsafe, and one-line fields are escaped to one line.
func (c *sessionsCmd) showText(ctx context.Context, store session.Store, info session.Info) error {
	w := termsafe.NewWriter(c.app.Stdout)
	fmt.Fprintf(w, "session   %s\nworkspace %s\n", info.ID, info.Workspace)
	if info.Parent != "" {
		fmt.Fprintf(w, "forked    from %s\n", info.Parent)
	}
	fmt.Fprintf(w, "created   %s\nupdated   %s\nstatus    %s\nmodel     %s\ntokens    %d in, %d out\nevents    %d\n",
		info.Created.Local().Format(time.DateTime), info.Updated.Local().Format(time.DateTime), info.Status,
		orDash(info.Model), info.Usage.InputTokens, info.Usage.OutputTokens, info.Events)
	tree := newTranscriptTree()
	for r, err := range store.Events(ctx, info.ID) {
		if err != nil {
			return c.failed(err)
		}
		tree.add(r.Event)
	}
	tree.print(w)
	return nil
}

// showEvent prints one event of a transcript, or nothing for events that
// only matter to machines.
func showEvent(w io.Writer, ev agent.Event) {
	switch ev.Type {
	case agent.EventMessage:
		if ev.Message == nil {
			return
		}
		switch ev.Message.Role {
		case model.RoleUser:
			fmt.Fprintf(w, "\n> %s\n", indent(redact.String(ev.Message.JoinedText())))
		case model.RoleAssistant:
			if t := redact.String(ev.Message.Text()); t != "" {
				fmt.Fprintf(w, "\n%s\n", t)
			}
		}
	case agent.EventToolCall:
		if c := ev.ToolCall; c != nil {
			fmt.Fprintf(w, "  → %s %s\n", termsafe.Line(c.Name), termsafe.Line(host.ClipRunes(argsText(c.Args), maxToolLine)))
		}
	case agent.EventToolDecision:
		if d := ev.Decision; d != nil && d.Action != "allow" {
			fmt.Fprintf(w, "    %s by %s: %s\n", d.Action, termsafe.Line(orDash(d.By)), termsafe.Line(host.ClipRunes(d.Reason, maxDenialLine)))
		}
	case agent.EventToolResult:
		if r := ev.ToolResult; r != nil {
			mark := "←"
			if r.IsError {
				mark = "✗"
			}
			fmt.Fprintf(w, "  %s %s\n", mark, termsafe.Line(host.ClipRunes(strings.Join(strings.Fields(r.Content), " "), maxToolLine)))
		}
	case agent.EventCompaction:
		if ci := ev.Compaction; ci != nil {
			fmt.Fprintf(w, "  [context: %s kept %d messages, omitted %d]\n", ci.Strategy, ci.KeptMessages, ci.OmittedMessages)
		}
	case agent.EventSessionCompleted:
		if o := ev.Outcome; o != nil {
			line := fmt.Sprintf("  [run %s after %s, %s]", o.Kind, plural(o.Steps, "model call"), plural(o.ToolCalls, "tool call"))
			if o.Reason != "" {
				line += ": " + termsafe.Line(o.Reason)
			}
			fmt.Fprintln(w, line)
		}
	case agent.EventError:
		fmt.Fprintf(w, "  [error: %s]\n", termsafe.Line(textclip.FirstLine(redact.String(ev.Err))))
	}
}

func (c *sessionsCmd) rmCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "rm ID…",
		Short: "Delete sessions and their event logs",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("rm needs at least one session ID; rein sessions list shows them")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			store, dir, ok, err := c.open(ctx)
			if err != nil {
				return c.failed(err)
			}
			if !ok {
				return c.failed(fmt.Errorf("%w: no session %q; nothing has been recorded yet", session.ErrNotFound, args[0]))
			}
			defer store.Close()
			for _, id := range args {
				info, err := store.Get(ctx, id)
				if err == nil {
					err = store.Delete(ctx, info.ID)
				}
				if err != nil {
					return c.failed(err)
				}
				if err := os.Remove(telemetry.LogPath(dir, info.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
					fmt.Fprintf(c.app.Stderr, "rein: warning: removing the event log of %s: %v\n", info.ID, err)
				}
				fmt.Fprintf(c.app.Stderr, "deleted session %s\n", info.ID)
			}
			return nil
		},
	}
}

// exactlyOneID is the argument check of commands taking one session ID.
func exactlyOneID(name string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usagef("%s takes one session ID (got %d arguments); rein sessions list shows them", name, len(args))
		}
		return nil
	}
}

// writeJSONLines writes each value as one line of JSON.
func writeJSONLines[T any](w io.Writer, vs []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}

// shownJSON is v as sessions show --json prints it: with the shortest
// string encoding, "2>&1", not "2\u003e\u00261", also in arguments an
// older rein stored HTML-escaped (a json.RawMessage keeps its escapes).
// The caller's JSONWriter then escapes what a terminal obeys.
func shownJSON(v any) ([]byte, error) {
	line, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	val := jsontext.Value(line)
	if err := val.Format(); err != nil {
		return nil, err
	}
	return val, nil
}

// argsText is a tool call's arguments as the model would have written
// them: sessions recorded by an older rein hold them HTML-escaped
// ("2\u003e\u00261" for "2>&1"), which reformatting to the shortest
// string encoding undoes, keeping the order of the keys. Arguments that
// do not parse are shown as they are.
func argsText(args json.RawMessage) string {
	v := jsontext.Value(bytes.Clone(args))
	if err := v.Format(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)); err != nil {
		return string(args)
	}
	return string(v)
}

func indent(s string) string { return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
