package cli

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/mcp"
)

// trustStore returns the store of trusted workspace-defined MCP servers
// under the state directory (flag, else the default).
func (a *App) trustStore(stateDirFlag string) *mcp.TrustStore {
	return mcp.OpenTrust(filepath.Join(host.StateDir(stateDirFlag, a.Getenv), mcp.TrustFile))
}

// warnUntrusted says, once per server, that a workspace-defined server was
// not started, why, and how to allow it.
func (a *App) warnUntrusted(untrusted []mcp.Untrusted) {
	for _, u := range untrusted {
		sc, st := u.Server, u.Status
		// The names come from the repository: shown, never obeyed.
		sc.Name, sc.Source = termsafe.Line(sc.Name), termsafe.Line(sc.Source)
		switch {
		case st.Err != nil:
			fmt.Fprintf(a.Stderr, "rein: warning: MCP server %s (%s) is defined by the workspace and was not started: %s\n",
				sc.Name, sc.Source, textclip.FirstLine(st.Err.Error()))
		case len(st.Changed) > 0:
			fmt.Fprintf(a.Stderr, "rein: warning: MCP server %s (%s) was not started: %s changed since you trusted it; review it, then run: rein mcp trust %s\n",
				sc.Name, sc.Source, pathList(st.Changed), sc.Name)
		case st.Unpinned:
			fmt.Fprintf(a.Stderr, "rein: warning: MCP server %s (%s) was not started: it was trusted before rein pinned the workspace files it runs (%s), so they were never reviewed as they are; review them, then run: rein mcp trust %s\n",
				sc.Name, sc.Source, pathList(st.Files()), sc.Name)
		default:
			fmt.Fprintf(a.Stderr, "rein: warning: MCP server %s (%s) is defined by the workspace and was not started; review it, then run: rein mcp trust %s\n",
				sc.Name, sc.Source, sc.Name)
		}
	}
}

// pathList names workspace paths (from a repository's configuration) for
// a message line: escaped, at most a few.
func pathList(paths []string) string {
	const most = 5
	var out []string
	for i, p := range paths {
		if i == most {
			out = append(out, fmt.Sprintf("and %d more", len(paths)-most))
			break
		}
		out = append(out, termText(p, 200))
	}
	return strings.Join(out, ", ")
}

// trustState says in a few words what the store says about a server.
func trustState(st mcp.TrustStatus) string {
	switch {
	case st.Err != nil:
		return "not trusted (" + textclip.FirstLine(st.Err.Error()) + ")"
	case len(st.Changed) > 0:
		return "changed: " + pathList(st.Changed)
	case st.Unpinned:
		return "not trusted: trusted before rein pinned the files it runs (" + pathList(st.Files()) + ")"
	case st.Trusted && len(st.Files()) > 0:
		return "trusted, pins " + pathList(st.Files())
	case st.Trusted:
		return "trusted"
	}
	return "not trusted"
}

// describePins says which workspace files trusting a server pinned.
func describePins(st mcp.TrustStatus) string {
	var b strings.Builder
	for _, p := range st.Pins {
		if p.Kind != mcp.PinFile {
			continue
		}
		fmt.Fprintf(&b, "  pinned %s (sha256 %s", termText(p.Path, 200), p.SHA256[:16])
		if p.Partial {
			fmt.Fprintf(&b, "; only its first %d MiB are hashed, with its size and modification time", mcp.MaxPinnedFileBytes>>20)
		}
		b.WriteString(")\n")
	}
	if st.Truncated {
		fmt.Fprintf(&b, "  only the first %d paths its command line names are pinned\n", mcp.MaxPinnedFiles)
	}
	return b.String()
}

// describeServer says what starting sc runs or reaches, for the user to
// review before trusting it: every value but credentials, which are
// shown as [redacted] (see describeEnv).
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
		s += " with environment " + describeEnv(sc.Env)
	}
	return s
}

// sandboxNote says how a trusted workspace server will run: in the
// sandbox, with or without the network the user granted.
func sandboxNote(sc mcp.ServerConfig, network bool, name string) string {
	if sc.Command == "" {
		return ""
	}
	const box = "  runs in rein's sandbox (only a server of your own config may opt out, and never one that runs a workspace file): the workspace writable, its protected paths read-only, your secret stores hidden"
	if network {
		return box + ", with network (granted with --network)\n"
	}
	return box + ", without network; if it needs the network: rein mcp trust --network " + termText(name, 80) + "\n"
}

func (a *App) mcpTrustCommand() *cobra.Command {
	var f mcpFlags
	var network bool
	cmd := &cobra.Command{
		Use:   "trust [SERVER...]",
		Short: "Allow MCP servers defined by the workspace to start",
		Long: `A repository's .mcp.json and .rein/config.toml can define MCP servers, and
starting a stdio server runs its command. rein starts such servers only after
you trusted exactly what they run; a change to the command, arguments,
environment, directory, URL or headers asks again. Trusting a server also
pins the contents of the workspace files it runs (its command when that is
in the workspace, the files its arguments name, a Python -m module, the
words of a sh -c script): when one changes, vanishes or appears, the server
is not started until you trust it again, and while it is trusted the
agent's writes to those files ask.

A stdio server runs inside rein's sandbox, like the agent's commands: the
workspace writable, its protected paths read-only, your secret stores hidden.
A workspace's server has no network unless you trust it with --network.
Every environment value is shown except credentials, and variables that can
make a program run other code (NODE_OPTIONS, LD_PRELOAD, PYTHONPATH, PATH, …)
are flagged. Only a server of your own config may set sandbox = false, and
only when nothing it runs lies in the workspace.

Without SERVER, list the workspace's servers and whether they are trusted.
With SERVER names, show what each runs and record it as trusted. The MCP
servers a workspace skill binds (the mcp_servers of its skill.json) are named
SKILL/SERVER here; they start when the skill is activated, once trusted.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.format != formatText {
				return usagef("rein mcp trust prints text only")
			}
			cfg, ws, err := a.load(&f.common)
			if err != nil {
				return a.fail(err, nil)
			}
			ws = host.CanonicalDir(ws)
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
			// The workspace's skills' servers, named SKILL/SERVER.
			skillServers := a.projectSkillServers(ws)
			for _, ref := range slices.Sorted(maps.Keys(skillServers)) {
				byName[ref] = skillServers[ref]
				project = append(project, ref)
			}
			if len(args) == 0 {
				if len(project) == 0 {
					fmt.Fprintln(termsafe.NewWriter(a.Stdout), "this workspace defines no MCP servers")
					return nil
				}
				for _, name := range project {
					sc := byName[name]
					fmt.Fprintf(termsafe.NewWriter(a.Stdout), "%s\t%s\t%s (%s)\n", name, trustState(store.Status(sc, ws)), describeServer(sc), sc.Source)
				}
				return nil
			}
			for _, name := range args {
				sc, ok := byName[name]
				if !ok {
					return usagef("%q is not an MCP server defined by this workspace (its servers: %s); servers in your own config need no trust", name, strings.Join(project, ", "))
				}
				before := store.Status(sc, ws)
				st, err := store.TrustWith(sc, ws, mcp.Grant{Network: network})
				if err != nil {
					return a.fail(err, nil)
				}
				out := termsafe.NewWriter(a.Stdout)
				fmt.Fprintf(out, "trusted %s: %s (%s)\n", name, describeServer(sc), sc.Source)
				fmt.Fprint(out, codeEnvWarning(sc.Env))
				fmt.Fprint(out, sandboxNote(sc, network, name))
				if len(before.Changed) > 0 {
					fmt.Fprintf(termsafe.NewWriter(a.Stdout), "  changed since you last trusted it: %s\n", pathList(before.Changed))
				}
				fmt.Fprint(termsafe.NewWriter(a.Stdout), describePins(st))
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&network, "network", false, "let the trusted servers' sandbox reach the network")
	return cmd
}
