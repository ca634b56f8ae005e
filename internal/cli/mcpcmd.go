package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/telemetry/redact"
)

// maxStdinArgs bounds arguments read from stdin ("rein mcp call S T -").
const maxStdinArgs = 16 << 20

// mcpFlags are the flags of the mcp subcommands: where the configuration
// is, and the output format.
type mcpFlags struct {
	common commonFlags
	format string
	json   bool // format is json
	// stateDir holds the trust store of workspace-defined servers and
	// the servers' sign-ins.
	stateDir string
	// signIn lets the command run an OAuth sign-in when a server demands
	// one (rein mcp call --login).
	signIn bool
	// untrusted are the workspace's servers that were left out for want
	// of trust (rein mcp list shows them).
	untrusted []mcp.Untrusted
	// cfg is the loaded configuration (set by mcpServers): its
	// [sandbox] confines the servers the command starts.
	cfg *config.Config
}

func (f *mcpFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVarP(&f.common.workspace, "workspace", "C", "", "workspace directory, whose .mcp.json and .rein/config.toml are read (default: the enclosing git repository's root, else the current directory)")
	fs.StringVar(&f.common.configFile, "config", "", "config file to use instead of ~/.config/rein/config.toml")
	registerProfile(fs, &f.common.profile)
	fs.StringVar(&f.format, "output-format", formatText, "output format: text or json")
	fs.StringVar(&f.stateDir, "state-dir", "", "directory for rein's state, where trusted workspace servers are recorded (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	// The model and limit flags do not apply here; an empty flag set makes
	// the configuration loader see none of them as given.
	f.common.fs = pflag.NewFlagSet("mcp", pflag.ContinueOnError)
}

// NewMCPCommand returns `rein mcp` with its subcommands list, call and
// prompt, which inspect and exercise the configured MCP servers
// ([mcp_servers.NAME] tables and the workspace's .mcp.json).
//
// Servers are asked nothing interactively: elicitation and sampling
// requests are declined. Exit codes: 0 success, 1 a server or tool
// failure (an is_error result included), 2 a usage error such as an
// unknown server, 130 interrupted.
func NewMCPCommand(a *App) *cobra.Command {
	a.defaults()
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Inspect and call the configured MCP servers, or serve rein's tools over MCP",
		Long: `Inspect and call the MCP servers configured in [mcp_servers.NAME] tables of
config.toml and in the workspace's .mcp.json.

  rein mcp list                          each server: state, transport, era, tools
  rein mcp call SERVER TOOL [JSON]       call a tool (JSON arguments, - for stdin)
  rein mcp prompt SERVER [PROMPT [JSON]] list a server's prompts, or get one
  rein mcp trust [SERVER...]             allow servers the workspace defines to start
  rein mcp login SERVER                  sign in to a remote server (OAuth)
  rein mcp logout SERVER                 forget a server's stored sign-in
  rein mcp serve [--http ADDR]           expose rein's tools as an MCP server

Servers defined by the workspace (.mcp.json, .rein/config.toml) run commands a
repository chose: rein starts them only after rein mcp trust.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.mcpListCommand(), a.mcpCallCommand(), a.mcpPromptCommand(), a.mcpTrustCommand(), a.mcpLoginCommand(), a.mcpLogoutCommand(), NewMCPServeCommand(a))
	return cmd
}

func (a *App) mcpListCommand() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the configured MCP servers with their state, era and tools",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			servers, ws, err := a.mcpServers(&f)
			if err != nil {
				return a.fail(err, nil)
			}
			var statuses []mcp.Status
			err = a.withManager(cmd.Context(), servers, ws, &f, func(ctx context.Context, m *mcp.Manager) error {
				statuses = m.Status(ctx)
				return nil
			})
			if err != nil {
				return err
			}
			statuses = withUntrusted(statuses, f.untrusted)
			if f.json {
				return a.printJSON(statusJSON(statuses))
			}
			printStatuses(termsafe.NewWriter(a.Stdout), statuses)
			printIcons(a.Stdout, a.terminalImages(), statuses)
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

func (a *App) mcpCallCommand() *cobra.Command {
	var (
		f       mcpFlags
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "call SERVER TOOL [JSON]",
		Short: "Call a tool of an MCP server and print its result",
		Long: `Call a tool of an MCP server and print its result. TOOL is the server's own
name for the tool (or rein's SERVER__TOOL name); JSON is the arguments object
(default {}), or - to read it from stdin. An is_error result is printed to
stderr and exits 1.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 || len(args) > 3 {
				return usagef("usage: rein mcp call SERVER TOOL [JSON]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := a.callArgs(args[2:])
			if err != nil {
				return err
			}
			return a.mcpOne(cmd.Context(), &f, args[0], func(ctx context.Context, m *mcp.Manager) error {
				if timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, timeout)
					defer cancel()
				}
				res, err := m.CallTool(ctx, args[0], args[1], raw)
				if err != nil {
					return err
				}
				if f.json {
					if err := a.printJSON(struct {
						Content    string          `json:"content"`
						IsError    bool            `json:"is_error"`
						Structured json.RawMessage `json:"structured,omitempty"`
					}{res.Content, res.IsError, res.Structured}); err != nil {
						return err
					}
				} else if res.IsError {
					fmt.Fprintln(a.Stderr, strings.TrimRight(redact.String(res.Content), "\n"))
				} else {
					fmt.Fprintln(termsafe.NewWriter(a.Stdout), strings.TrimRight(redact.String(res.Content), "\n"))
				}
				if res.IsError {
					return &exitError{code: ExitFailed}
				}
				return nil
			})
		},
	}
	f.register(cmd)
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "time limit for the call, e.g. 30s (default: the server's tool_timeout, else none)")
	cmd.Flags().BoolVar(&f.signIn, "login", false, "sign in (OAuth, in a browser) when the server asks for it, also for more scopes")
	return cmd
}

func (a *App) mcpPromptCommand() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "prompt SERVER [PROMPT [JSON]]",
		Short: "List the prompts of an MCP server, or get one filled in",
		Long: `Without PROMPT, list the prompts SERVER offers and their arguments. With
PROMPT, get it filled in with JSON (an object of string arguments, default
{}) and print its messages.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 3 {
				return usagef("usage: rein mcp prompt SERVER [PROMPT [JSON]]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var promptArgs map[string]string
			if len(args) == 3 {
				raw, err := a.callArgs(args[2:])
				if err != nil {
					return err
				}
				if err := json.Unmarshal(raw, &promptArgs); err != nil {
					return usagef("prompt arguments must be a JSON object of strings, e.g. '{\"name\":\"x\"}' (%v)", err)
				}
			}
			return a.mcpOne(cmd.Context(), &f, args[0], func(ctx context.Context, m *mcp.Manager) error {
				if len(args) == 1 {
					prompts, err := m.Prompts(ctx, args[0])
					if err != nil {
						return err
					}
					if f.json {
						return a.printJSON(prompts)
					}
					printPrompts(termsafe.NewWriter(a.Stdout), prompts)
					return nil
				}
				res, err := m.GetPrompt(ctx, args[0], args[1], promptArgs)
				if err != nil {
					return err
				}
				if f.json {
					return a.printJSON(res)
				}
				out := termsafe.NewWriter(a.Stdout)
				for i, msg := range res.Messages {
					if i > 0 {
						fmt.Fprintln(out)
					}
					fmt.Fprintf(out, "[%s]\n%s\n", termsafe.Line(string(msg.Role)), strings.TrimRight(redact.String(msg.Text), "\n"))
				}
				return nil
			})
		},
	}
	f.register(cmd)
	return cmd
}

// mcpServers checks the output format and loads the configured servers
// and the workspace.
func (a *App) mcpServers(f *mcpFlags) ([]mcp.ServerConfig, string, error) {
	switch f.format {
	case formatText, formatJSON:
		f.json = f.format == formatJSON
	default:
		return nil, "", usagef("--output-format must be text or json (got %q)", f.format)
	}
	cfg, ws, err := a.load(&f.common)
	if err != nil {
		return nil, "", err
	}
	registerSecrets(cfg, a.Getenv, a.environ()) // a server's output is printed
	ws = host.CanonicalDir(ws)
	servers, err := mcp.LoadServers(cfg, ws, a.Getenv)
	if err != nil {
		return nil, "", err
	}
	trusted, untrusted, _ := a.trustStore(f.stateDir).SplitTrusted(servers, ws)
	a.warnUntrusted(untrusted)
	if err := checkUnconfinedServers(trusted, ws); err != nil {
		return nil, "", err
	}
	f.untrusted, f.cfg = untrusted, cfg
	return trusted, ws, nil
}

// mcpOne runs fn with a Manager holding only the named server, so that
// the other servers are not started. An unknown server is a usage error.
func (a *App) mcpOne(ctx context.Context, f *mcpFlags, name string, fn func(context.Context, *mcp.Manager) error) error {
	servers, ws, err := a.mcpServers(f)
	if err != nil {
		return a.fail(err, nil)
	}
	var names []string
	for _, sc := range servers {
		if sc.Name == name {
			sc.Disabled = false // asked for by name
			return a.withManager(ctx, []mcp.ServerConfig{sc}, ws, f, fn)
		}
		names = append(names, sc.Name)
	}
	if len(names) == 0 {
		return usagef("no MCP servers are configured: add an [mcp_servers.NAME] table to config.toml or a .mcp.json to the workspace")
	}
	return usagef("unknown MCP server %q; configured: %s", name, strings.Join(names, ", "))
}

// withManager runs fn with a Manager for servers, interruptibly, and
// turns its error into rein's one-line report. Stored sign-ins are used
// and refreshed; a sign-in flow runs only when f.signIn allows one.
func (a *App) withManager(ctx context.Context, servers []mcp.ServerConfig, ws string, f *mcpFlags, fn func(context.Context, *mcp.Manager) error) error {
	mc := a.mcpConfig(servers, ws, mcp.Decline{})
	if f.cfg != nil {
		// The servers start in the workspace's sandbox, as in a run.
		sw, err := a.serverWorkspace(f.cfg, ws, f.stateDir, f.common.configFile)
		if err != nil {
			return a.fail(err, nil)
		}
		defer sw.Close()
		mc.Confine = mcpConfiner(sw, a.nestingDepth())
	}
	mc.Tokens = a.tokenStore(f.stateDir)
	if f.signIn && len(servers) == 1 && servers[0].UsesOAuth() && mc.Tokens != nil {
		lb, sc, err := a.withLoopback(servers[0])
		if err != nil {
			return a.fail(err, nil)
		}
		defer lb.close()
		sc.StartupTimeout = max(sc.StartupTimeout, defaultLoginTimeout) // a person signs in
		mc.Servers, mc.Authorizer = []mcp.ServerConfig{sc}, lb
	}
	m, err := mcp.New(mc)
	if err != nil {
		return a.fail(err, nil)
	}
	defer m.Close()
	var runErr error
	sig, forced := a.interruptible(ctx, func(ctx context.Context) { runErr = fn(ctx, m) })
	switch {
	case forced || (sig != nil && (runErr == nil || errors.Is(runErr, context.Canceled))):
		fmt.Fprintf(a.Stderr, "rein: interrupted (%v)\n", sig)
		return &exitError{code: ExitInterrupted}
	case runErr == nil:
		return nil
	}
	var ee *exitError
	if errors.As(runErr, &ee) {
		return runErr
	}
	if errors.Is(runErr, mcp.ErrUnknownServer) {
		return &usageError{msg: runErr.Error()}
	}
	return a.fail(runErr, nil)
}

// callArgs returns the JSON arguments: the argument, stdin for "-", or
// {} when absent. They must be a JSON object.
func (a *App) callArgs(args []string) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	data := []byte(args[0])
	if args[0] == "-" {
		var err error
		data, err = io.ReadAll(io.LimitReader(a.Stdin, maxStdinArgs+1))
		if err != nil {
			return nil, fmt.Errorf("reading the arguments from stdin: %w", err)
		}
		if len(data) > maxStdinArgs {
			return nil, usagef("the arguments on stdin are larger than %d MiB", maxStdinArgs>>20)
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, usagef("the arguments must be a JSON object, e.g. '{\"path\":\"README.md\"}'")
	}
	return json.RawMessage(data), nil
}

// printJSON writes v as indented JSON, with the characters a terminal
// obeys (C1, DEL, bidi) as \uXXXX escapes: still the same JSON.
func (a *App) printJSON(v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	// What a server sends is redacted like everything rein prints.
	_, err = fmt.Fprintf(termsafe.NewJSONWriter(a.Stdout), "%s\n", redact.JSON(data))
	return err
}

// statusView is the JSON form of an mcp.Status.
type statusView struct {
	Name          string   `json:"name"`
	State         string   `json:"state"`
	Transport     string   `json:"transport"`
	Era           string   `json:"era,omitempty"`
	ServerName    string   `json:"server_name,omitempty"`
	ServerVersion string   `json:"server_version,omitempty"`
	Tools         []string `json:"tools"`
	// Tasks maps an exposed tool with task support to how rein calls
	// it (mcp.TaskUse); Hidden lists the tools withheld because they
	// must run as tasks and rein cannot run tasks with the server.
	Tasks     map[string]mcp.TaskUse `json:"tasks,omitempty"`
	Hidden    []hiddenView           `json:"hidden,omitempty"`
	Resources bool                   `json:"resources"`
	Prompts   bool                   `json:"prompts"`
	Required  bool                   `json:"required,omitempty"`
	Source    string                 `json:"source,omitempty"`
	Error     string                 `json:"error,omitempty"`
}

// hiddenView is the JSON form of an mcp.HiddenTool.
type hiddenView struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

func statusJSON(sts []mcp.Status) []statusView {
	out := make([]statusView, 0, len(sts))
	for _, st := range sts {
		v := statusView{
			Name: st.Name, State: string(st.State), Transport: string(st.Transport), Era: st.Era,
			ServerName: st.ServerName, ServerVersion: st.ServerVersion, Tools: st.Tools,
			Resources: st.Resources, Prompts: st.Prompts, Required: st.Required, Source: st.Source,
			Tasks: st.Tasks,
		}
		for _, h := range st.Hidden {
			v.Hidden = append(v.Hidden, hiddenView{Name: h.Name, Reason: h.Reason})
		}
		if v.Tools == nil {
			v.Tools = []string{}
		}
		if st.Err != nil && st.State != mcp.StateConnected {
			v.Error = textclip.FirstLine(st.Err.Error())
			if errors.Is(st.Err, mcp.ErrNeedsLogin) {
				v.State, v.Error = stateNeedsLogin, needsLoginHint(st.Name)
			}
		}
		out = append(out, v)
	}
	return out
}

// printStatuses renders `rein mcp list`: a table, then each server's
// tools or error. Names, the server's own name and version, tool names
// and errors are the server's or the repository's text: each is escaped
// to one line (w escapes the rest).
func printStatuses(w io.Writer, sts []mcp.Status) {
	if len(sts) == 0 {
		fmt.Fprintln(w, "No MCP servers are configured: add an [mcp_servers.NAME] table to config.toml or a .mcp.json to the workspace.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tTRANSPORT\tERA\tTOOLS\tSERVES")
	for _, st := range sts {
		era := st.Era
		if era == "" {
			era = "-"
		}
		serves := st.ServerName
		if st.ServerVersion != "" {
			serves += " " + st.ServerVersion
		}
		state := string(st.State)
		if needsLogin(st) {
			state = stateNeedsLogin
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", termsafe.Line(st.Name), state, st.Transport, termsafe.Line(era), len(st.Tools), termsafe.Line(serves))
	}
	tw.Flush()
	for _, st := range sts {
		switch {
		case needsLogin(st):
			fmt.Fprintf(w, "\n%s %s\n", termsafe.Line(st.Name), termsafe.Line(needsLoginHint(st.Name)))
		case st.State != mcp.StateConnected && st.Err != nil:
			fmt.Fprintf(w, "\n%s\n", termsafe.Line(textclip.FirstLine(st.Err.Error())))
		default:
			printTools(w, st)
		}
	}
}

// taskLabels mark, in `rein mcp list`, how a task-capable tool is called.
var taskLabels = map[mcp.TaskUse]string{
	mcp.TaskUseRequired:      "task",
	mcp.TaskUseAsTask:        "task: optional, called as a task",
	mcp.TaskUseServerDecides: "task: optional, the server decides",
	mcp.TaskUseDirect:        "task: optional, called directly",
}

// printTools lists a connected server's tools, each task-capable one
// marked with how rein calls it, then the tools it withholds for want of
// tasks, with the reason.
func printTools(w io.Writer, st mcp.Status) {
	if len(st.Tools) > 0 {
		names := make([]string, len(st.Tools))
		for i, name := range st.Tools {
			names[i] = termsafe.Line(name)
			if label, ok := taskLabels[st.Tasks[name]]; ok {
				names[i] += " [" + label + "]"
			}
		}
		fmt.Fprintf(w, "\n%s tools: %s\n", termsafe.Line(st.Name), strings.Join(names, ", "))
	}
	if len(st.Hidden) > 0 {
		fmt.Fprintf(w, "\n%s hides %d tool(s) rein cannot run as tasks:\n", termsafe.Line(st.Name), len(st.Hidden))
		for _, h := range st.Hidden {
			fmt.Fprintf(w, "  %s: %s\n", termsafe.Line(h.Name), termsafe.Line(h.Reason))
		}
	}
}

func printPrompts(w io.Writer, prompts []mcp.Prompt) {
	if len(prompts) == 0 {
		fmt.Fprintln(w, "The server offers no prompts.")
		return
	}
	for _, p := range prompts {
		fmt.Fprintf(w, "%s", termsafe.Line(p.Name))
		if p.Description != "" {
			fmt.Fprintf(w, " — %s", termsafe.Line(textclip.FirstLine(p.Description)))
		}
		fmt.Fprintln(w)
		for _, arg := range p.Arguments {
			req := ""
			if arg.Required {
				req = " (required)"
			}
			fmt.Fprintf(w, "    %s%s", termsafe.Line(arg.Name), req)
			if arg.Description != "" {
				fmt.Fprintf(w, ": %s", termsafe.Line(textclip.FirstLine(arg.Description)))
			}
			fmt.Fprintln(w)
		}
	}
}
