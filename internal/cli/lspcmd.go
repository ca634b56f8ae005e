package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/lsp"
)

// lspCommand is `rein lsp`: the language servers a run would start, and
// trust for the workspace's own.
func (a *App) lspCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "List the language servers, or trust the workspace's",
		Long: `Language servers give the model diagnostics after its edits and the
diagnostics, definition, references, symbols and hover tools (docs/lsp.md).

  rein lsp list     each server: name, layer, starts?, command, file endings
  rein lsp trust    allow the [lsp.NAME] servers the workspace's
                    .rein/config.toml defines

Servers of your own configuration, and gopls, typescript-language-server,
pyright and rust-analyzer found on PATH, start on first use. Servers the
workspace defines come with the repository and start nothing until you trusted
them as they are; any change to them, or to the workspace files they run, asks
again. Every server runs in rein's sandbox, as the agent's commands do.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.lspListCommand(), a.lspTrustCommand())
	return cmd
}

// loadLSPFor loads the configuration the flags name and its [lsp]
// settings, for the canonical workspace.
func (a *App) loadLSPFor(f *mcpFlags) (host.LspSettings, string, error) {
	if f.format != formatText {
		return host.LspSettings{}, "", usagef("rein lsp prints text only")
	}
	cfg, ws, err := a.load(&f.common)
	if err != nil {
		return host.LspSettings{}, "", err
	}
	st, err := host.LoadLSP(cfg, a.Getenv)
	return st, host.CanonicalDir(ws), err
}

func (a *App) lspListCommand() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Show each language server and whether it starts",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, ws, err := a.loadLSPFor(&f)
			if err != nil {
				return a.fail(err, nil)
			}
			if len(st.Servers) == 0 && len(st.Project) == 0 {
				fmt.Fprintln(a.Stdout, "no language server is configured or found on PATH (gopls, typescript-language-server, pyright-langserver, rust-analyzer)")
				return nil
			}
			trust := lspTrust(a.lspTrustStore(f.stateDir), st.Project, ws)
			tw := tabwriter.NewWriter(termsafe.NewWriter(a.Stdout), 0, 4, 2, ' ', 0)
			defer tw.Flush()
			fmt.Fprintln(tw, "NAME\tLAYER\tSTARTS\tCOMMAND\tFILES")
			row := func(c lsp.Config, layer, starts string) {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termText(c.Name, 80), layer, termsafe.Line(starts),
					termText(strings.Join(append([]string{c.Command}, c.Args...), " "), 1<<12), strings.Join(c.Extensions, " "))
			}
			for _, c := range st.Project {
				starts := "yes"
				if !trust.Trusted {
					starts = "no: " + trustWhy(trust, "") + " (rein lsp trust)"
				}
				row(c, "project", starts)
			}
			for _, c := range st.Servers {
				if trust.Trusted && projectHas(st.Project, c.Name) {
					continue // replaced by the project's
				}
				row(c, "user", "yes")
			}
			return nil
		},
	}
	registerHooksFlags(&f, cmd)
	return cmd
}

func (a *App) lspTrustCommand() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Allow the language servers the workspace defines to start",
		Long: `Show every [lsp.NAME] server the workspace's .rein/config.toml defines and
record them as trusted, with the contents of the workspace files they run. When
any of it changes, they start nothing until you trust them again.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, ws, err := a.loadLSPFor(&f)
			if err != nil {
				return a.fail(err, nil)
			}
			if len(st.Project) == 0 {
				fmt.Fprintln(a.Stdout, "this workspace defines no language servers; servers in your own config need no trust")
				return nil
			}
			store := a.lspTrustStore(f.stateDir)
			tr, err := store.TrustPins(ws, lspFingerprint(st.Project), lspPins(st.Project, ws))
			if err != nil {
				return a.fail(err, nil)
			}
			out := termsafe.NewWriter(a.Stdout)
			fmt.Fprintf(out, "trusted %s of %s:\n", plural(len(st.Project), "language server"), termText(ws, 200))
			for _, c := range st.Project {
				fmt.Fprintf(out, "  %s: runs %s for %s\n", termText(c.Name, 80), termText(strings.Join(append([]string{c.Command}, c.Args...), " "), 1<<12), strings.Join(c.Extensions, " "))
			}
			fmt.Fprintln(out, "  they run in rein's sandbox, like the agent's commands: the workspace writable, its protected paths read-only, your secret stores hidden")
			for _, p := range tr.Pins {
				if p.Kind == "file" {
					fmt.Fprintf(out, "  pinned %s (sha256 %s)\n", termText(p.Path, 200), p.SHA256[:16])
				}
			}
			return nil
		},
	}
	registerHooksFlags(&f, cmd)
	return cmd
}

// projectHas reports whether the project defines a server named name.
func projectHas(project []lsp.Config, name string) bool {
	for _, c := range project {
		if c.Name == name {
			return true
		}
	}
	return false
}
