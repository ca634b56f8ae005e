package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/memory"
)

// runEditor runs the user's editor on path. The editor value is the
// user's own environment ($VISUAL, $EDITOR — never a repository's config
// or anything the model can change), run through sh so "code --wait"
// works; the path is passed as an argument, never spliced. It runs
// outside the sandbox on purpose, as git runs core.editor: it is the
// user's program, started by the user's `rein memory edit`, on a
// temporary file outside the workspace.
func runEditor(a *App, editor, path string) error {
	cmd := exec.Command("sh", "-c", editor+` "$1"`, "sh", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.Stdin, a.Stdout, a.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the editor %q failed: %w", editor, err)
	}
	return nil
}

func (c *memoryCmd) exportCommand() *cobra.Command {
	var all, markdown bool
	var scope string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write memories to stdout as JSON lines, or Markdown for .rein/memory.md",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(func(ctx context.Context) error {
				es, err := c.list(ctx, scope, all)
				if err != nil {
					return err
				}
				if markdown {
					return memory.WriteMarkdown(termsafe.NewWriter(c.app.Stdout), es)
				}
				return memory.WriteJSONLines(termsafe.NewJSONWriter(c.app.Stdout), es)
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every workspace's memories")
	cmd.Flags().StringVar(&scope, "scope", "", "only workspace or user memories")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "a Markdown list (commit it as .rein/memory.md to share notes with a team)")
	return cmd
}

func (c *memoryCmd) importCommand() *cobra.Command {
	var markdown bool
	var scope string
	cmd := &cobra.Command{
		Use:   "import [FILE|-]",
		Short: "Add memories from JSON lines (rein memory export) or Markdown bullets",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(func(ctx context.Context) error {
				var r io.Reader = c.app.Stdin
				if len(args) == 1 && args[0] != "-" {
					f, err := os.Open(args[0])
					if err != nil {
						return err
					}
					defer f.Close()
					r = f
				}
				return c.importFrom(ctx, r, markdown, memory.Scope(scope))
			})
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "read Markdown bullets (one note each) instead of JSON lines")
	cmd.Flags().StringVar(&scope, "scope", "", "store every note in this scope (workspace or user); default: each entry's own, workspace for Markdown")
	return cmd
}

// importFrom stores fresh entries for what r holds. Imported ids, times
// and workspaces are not trusted: workspace entries land in this
// workspace, and a note imported from a file keeps its source kind only
// when it says tool-derived (a mark is never lost on the way through).
func (c *memoryCmd) importFrom(ctx context.Context, r io.Reader, markdown bool, scope memory.Scope) error {
	read := memory.ReadJSONLines
	if markdown {
		read = memory.ReadMarkdown
	}
	es, err := read(r)
	if err != nil {
		return err
	}
	n := 0
	for _, e := range es {
		src := memory.Source{Kind: memory.SourceUser}
		if e.Source.Kind == memory.SourceTool {
			src.Kind = memory.SourceTool
		}
		s := e.Scope
		if scope != "" {
			s = scope
		}
		if s == "" {
			s = memory.ScopeWorkspace
		}
		if _, err := c.store.Put(ctx, memory.Entry{Scope: s, Workspace: c.workspaceKey, Text: e.Text, Tags: e.Tags, Source: src}); err != nil {
			return fmt.Errorf("after %d of %d imported: %w", n, len(es), err)
		}
		n++
	}
	fmt.Fprintf(c.app.Stderr, "imported %d memories\n", n)
	return nil
}
