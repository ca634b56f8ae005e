package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/mcp"
)

// trustStore returns the store of trusted workspace-defined MCP servers
// under the state directory (flag, else the default).
func (a *App) trustStore(stateDirFlag string) *mcp.TrustStore {
	return mcp.OpenTrust(filepath.Join(stateDir(stateDirFlag, a.Getenv), mcp.TrustFile))
}

// warnUntrusted says, once per server, that a workspace-defined server was
// not started and how to allow it.
func (a *App) warnUntrusted(untrusted []mcp.ServerConfig) {
	for _, sc := range untrusted {
		fmt.Fprintf(a.Stderr, "rein: warning: MCP server %s (%s) is defined by the workspace and was not started; review it, then run: rein mcp trust %s\n",
			sc.Name, sc.Source, sc.Name)
	}
}

// describeServer says what starting sc runs or reaches, for the user to
// review before trusting it. Secret values are not shown.
func describeServer(sc mcp.ServerConfig) string {
	if sc.URL != "" {
		return "connects to " + sc.URL
	}
	parts := append([]string{sc.Command}, sc.Args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\n'\"$`\\|&;<>()*?[]{}~") {
			parts[i] = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	s := "runs " + strings.Join(parts, " ")
	if sc.Cwd != "" {
		s += " in " + sc.Cwd
	}
	if len(sc.Env) > 0 {
		s += " with environment " + sc.Env.String()
	}
	return s
}

func (a *App) mcpTrustCommand() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "trust [SERVER...]",
		Short: "Allow MCP servers defined by the workspace to start",
		Long: `A repository's .mcp.json and .rein/config.toml can define MCP servers, and
starting a stdio server runs its command. rein starts such servers only after
you trusted exactly what they run; a change to the command, arguments,
environment, directory, URL or headers asks again.

Without SERVER, list the workspace's servers and whether they are trusted.
With SERVER names, show what each runs and record it as trusted.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.format != formatText {
				return usagef("rein mcp trust prints text only")
			}
			cfg, ws, err := a.load(&f.common)
			if err != nil {
				return a.fail(err, nil)
			}
			servers, err := mcp.LoadServers(cfg, ws, a.Getenv)
			if err != nil {
				return a.fail(err, nil)
			}
			store := a.trustStore(f.stateDir)
			byName := map[string]mcp.ServerConfig{}
			var project []string
			for _, sc := range servers {
				if sc.Project {
					byName[sc.Name] = sc
					project = append(project, sc.Name)
				}
			}
			if len(args) == 0 {
				if len(project) == 0 {
					fmt.Fprintln(a.Stdout, "this workspace defines no MCP servers")
					return nil
				}
				for _, name := range project {
					sc := byName[name]
					state := "not trusted"
					if store.Trusted(sc) {
						state = "trusted"
					}
					fmt.Fprintf(a.Stdout, "%s\t%s\t%s (%s)\n", name, state, describeServer(sc), sc.Source)
				}
				return nil
			}
			for _, name := range args {
				sc, ok := byName[name]
				if !ok {
					return usagef("%q is not an MCP server defined by this workspace (its servers: %s); servers in your own config need no trust", name, strings.Join(project, ", "))
				}
				if err := store.Trust(sc); err != nil {
					return a.fail(err, nil)
				}
				fmt.Fprintf(a.Stdout, "trusted %s: %s (%s)\n", name, describeServer(sc), sc.Source)
			}
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
