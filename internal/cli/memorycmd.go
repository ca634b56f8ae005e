package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/memory"
)

// NewMemoryCommand returns `rein memory list|search|show|add|rm|edit|
// export|import`: the long-term memory the remember/recall/forget tools
// keep, in rein's state directory (memory.db), per workspace and per user.
func NewMemoryCommand(a *App) *cobra.Command {
	c := &memoryCmd{app: a}
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "List, search and edit rein's memory of earlier sessions",
		Long: `rein keeps short notes across sessions: the model writes them with the
remember tool, you with chat's #text or rein memory add. Workspace notes are
seen only in their workspace; user notes everywhere. Secrets are redacted
before storage. Notes copied from tool results are marked tool-derived.
See docs/memory.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&c.dir, "state-dir", "", "directory for rein's state (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	pf.StringVarP(&c.ws, "workspace", "C", "", "the workspace directory (default: the enclosing git repository's root, else the current directory)")
	pf.BoolVar(&c.jsonOut, "json", false, "print entries as JSON lines")
	cmd.AddCommand(c.listCommand(), c.searchCommand(), c.showCommand(), c.addCommand(), c.rmCommand(), c.editCommand(), c.exportCommand(), c.importCommand())
	return cmd
}

type memoryCmd struct {
	app          *App
	dir, ws      string
	jsonOut      bool
	store        *memory.SQLite
	workspaceKey string
}

// open opens the store and resolves the workspace key; the caller closes.
func (c *memoryCmd) open() error {
	ws, err := c.app.workspace(c.ws)
	if err != nil {
		return err
	}
	state := host.StateDir(c.dir, c.app.Getenv)
	if state == "" {
		return errors.New("cannot find rein's state directory: set HOME or XDG_STATE_HOME, or pass --state-dir")
	}
	s, err := memory.OpenSQLite(context.Background(), memory.Config{Path: state + "/" + memory.DatabaseFile})
	if err != nil {
		return err
	}
	c.store, c.workspaceKey = s, host.CanonicalDir(ws)
	return nil
}

// run opens the store, runs fn and closes it, reporting errors as rein's.
func (c *memoryCmd) run(fn func(ctx context.Context) error) error {
	if err := c.open(); err != nil {
		return c.app.fail(err, nil)
	}
	defer c.store.Close()
	if err := fn(context.Background()); err != nil {
		return c.app.fail(err, nil)
	}
	return nil
}

func (c *memoryCmd) print(es []memory.Entry) error {
	if c.jsonOut {
		return memory.WriteJSONLines(termsafe.NewJSONWriter(c.app.Stdout), es)
	}
	if len(es) == 0 {
		fmt.Fprintln(c.app.Stderr, "no memories")
		return nil
	}
	w := termsafe.NewWriter(c.app.Stdout)
	for _, e := range es {
		fmt.Fprintln(w, termsafe.Line(memory.IndexLine(e, 120)+" ("+e.Updated.Format("2006-01-02")+")"))
	}
	return nil
}

func (c *memoryCmd) listCommand() *cobra.Command {
	var all bool
	var scope string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List this workspace's and the user's memories, newest first",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(func(ctx context.Context) error {
				es, err := c.list(ctx, scope, all)
				if err != nil {
					return err
				}
				return c.print(es)
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every workspace's memories")
	cmd.Flags().StringVar(&scope, "scope", "", "only workspace or user memories")
	return cmd
}

// list returns the memories of scope (all scopes when ""), of every
// workspace when all is set.
func (c *memoryCmd) list(ctx context.Context, scope string, all bool) ([]memory.Entry, error) {
	f, err := c.filter(scope, all)
	if err != nil {
		return nil, err
	}
	return c.store.List(ctx, f)
}

func (c *memoryCmd) filter(scope string, all bool) (memory.Filter, error) {
	f := memory.Filter{Workspace: c.workspaceKey, AllWorkspaces: all, Limit: memory.MaxLimit}
	switch scope {
	case "":
	case "workspace", "user":
		f.Scope = memory.Scope(scope)
	default:
		return f, usagef("--scope %q must be workspace or user", scope)
	}
	return f, nil
}

func (c *memoryCmd) searchCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "search QUERY",
		Short: `Search memories (words, "phrases", tag:NAME)`,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(func(ctx context.Context) error {
				hits, err := c.store.Search(ctx, strings.Join(args, " "), memory.Filter{Workspace: c.workspaceKey})
				if err != nil {
					return err
				}
				es := make([]memory.Entry, len(hits))
				for i, h := range hits {
					es[i] = h.Entry
				}
				return c.print(es)
			})
		},
	}
}

func (c *memoryCmd) showCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show one memory in full",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(func(ctx context.Context) error {
				e, err := c.store.Get(ctx, args[0])
				if err != nil {
					return err
				}
				if c.jsonOut {
					return memory.WriteJSONLines(termsafe.NewJSONWriter(c.app.Stdout), []memory.Entry{e})
				}
				w := termsafe.NewWriter(c.app.Stdout)
				fmt.Fprintf(w, "id:       %s\nscope:    %s\n", e.ID, e.Scope)
				if e.Workspace != "" {
					fmt.Fprintf(w, "workspace: %s\n", termsafe.Line(e.Workspace))
				}
				fmt.Fprintf(w, "source:   %s %s\ntags:     %s\ncreated:  %s\nupdated:  %s\n\n%s\n", e.Source.Kind, e.Source.SessionID,
					termsafe.Line(strings.Join(e.Tags, ", ")), e.Created.Format("2006-01-02 15:04:05Z"), e.Updated.Format("2006-01-02 15:04:05Z"), termsafe.Line(e.Text))
				return nil
			})
		},
	}
}

func (c *memoryCmd) addCommand() *cobra.Command {
	var scope string
	var tags []string
	cmd := &cobra.Command{
		Use:   "add TEXT",
		Short: "Add a memory (workspace scope unless --scope user)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(func(ctx context.Context) error {
				e, err := c.store.Put(ctx, memory.Entry{Scope: memory.Scope(scope), Workspace: c.workspaceKey, Text: strings.Join(args, " "), Tags: tags, Source: memory.Source{Kind: memory.SourceUser}})
				if err != nil {
					return err
				}
				fmt.Fprintf(c.app.Stdout, "%s\n", termsafe.Line(e.ID))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "workspace", "workspace or user")
	cmd.Flags().StringSliceVar(&tags, "tag", nil, "a tag (repeatable)")
	return cmd
}

func (c *memoryCmd) rmCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "rm ID...",
		Short: "Remove memories",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(func(ctx context.Context) error {
				for _, id := range args {
					if err := c.store.Delete(ctx, id); err != nil {
						return err
					}
					fmt.Fprintf(c.app.Stderr, "removed %s\n", id)
				}
				return nil
			})
		},
	}
}

func (c *memoryCmd) editCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "edit ID [TEXT|-]",
		Short: "Replace a memory's text (TEXT, - for stdin, or $VISUAL/$EDITOR)",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(func(ctx context.Context) error {
				e, err := c.store.Get(ctx, args[0])
				if err != nil {
					return err
				}
				text, err := c.newText(e.Text, args[1:])
				if err != nil {
					return err
				}
				e.Text, e.Source = text, memory.Source{Kind: memory.SourceUser}
				if _, err := c.store.Put(ctx, e); err != nil {
					return err
				}
				fmt.Fprintf(c.app.Stderr, "updated %s\n", e.ID)
				return nil
			})
		},
	}
}

// newText is edit's replacement text: the argument, stdin for "-", or
// what the user leaves in $VISUAL/$EDITOR.
func (c *memoryCmd) newText(old string, args []string) (string, error) {
	if len(args) == 1 && args[0] != "-" {
		return args[0], nil
	}
	if len(args) == 1 {
		b, err := io.ReadAll(io.LimitReader(c.app.Stdin, 1<<20))
		return string(b), err
	}
	return editInEditor(c.app, old)
}

func editInEditor(a *App, old string) (string, error) {
	editor := a.Getenv("VISUAL")
	if editor == "" {
		editor = a.Getenv("EDITOR")
	}
	if editor == "" {
		return "", usagef("give the new text (or - for stdin), or set $EDITOR")
	}
	f, err := os.CreateTemp("", "rein-memory-*.md")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(old + "\n"); err != nil {
		f.Close()
		return "", err
	}
	f.Close()
	if err := runEditor(a, editor, f.Name()); err != nil {
		return "", err
	}
	b, err := os.ReadFile(f.Name())
	return string(b), err
}
