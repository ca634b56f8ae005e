package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/mcp/mcpserver"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// serveFlags are the flags of `rein mcp serve`.
type serveFlags struct {
	// common carries the workspace, configuration, policy and state
	// flags newHarness reads; the model flags are not registered.
	common         commonFlags
	http           string
	tools          []string
	allowRemote    bool
	allowedOrigins []string
}

func (f *serveFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	f.common.fs = fs
	fs.StringVar(&f.http, "http", "", "serve Streamable HTTP at ADDR (host:port, :port or a port; the endpoint is /mcp) instead of stdio")
	fs.StringSliceVar(&f.tools, "tools", nil, "serve only these tools (comma-separated names; default: all built-in tools)")
	fs.StringVarP(&f.common.workspace, "workspace", "C", "", "workspace directory the tools are confined to (default: the enclosing git repository's root, else the current directory)")
	fs.StringVar(&f.common.configFile, "config", "", "config file to use instead of ~/.config/rein/config.toml")
	registerProfile(fs, &f.common.profile)
	fs.StringVar(&f.common.preset, "preset", "", "policy preset: read-only, editor or full (default editor, or [policy] preset)")
	fs.StringVar(&f.common.approve, "approve", approveNever, "calls the policy asks about: never (deny them; a client that supports elicitation is asked instead) or auto (allow them); ask behaves as never, since a server has no terminal to ask on")
	fs.StringVar(&f.common.stateDir, "state-dir", "", "directory for rein's state: approved rules (default $XDG_STATE_HOME/rein or ~/.local/state/rein)")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow --http to bind an address beyond loopback (the server has no authentication: put one in front)")
	fs.StringSliceVar(&f.allowedOrigins, "allowed-origin", nil, "browser origin to accept besides loopback ones, e.g. https://app.example:8443 (repeatable)")
}

// NewMCPServeCommand returns `rein mcp serve`: rein's built-in tools (or
// the --tools subset) served over MCP on stdio, or over Streamable HTTP
// with --http, to any MCP client, in both protocol eras. Every call goes
// through rein's layered policy in the workspace; a call the policy asks
// about is put to a client that supports elicitation, and otherwise
// denied unless --approve auto.
//
// Exit codes: 0 when the stdio client disconnects, 1 a configuration or
// serving failure, 2 a usage error, 130 interrupted (SIGINT or SIGTERM;
// the HTTP server shuts down gracefully first).
func NewMCPServeCommand(a *App) *cobra.Command {
	a.defaults()
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR]",
		Short: "Expose rein's tools as an MCP server (stdio, or HTTP with --http)",
		Long: `Serve rein's built-in tools over the Model Context Protocol, so other agents
and MCP clients can use them under rein's policy.

By default the server speaks MCP on stdin and stdout (for a client that
starts rein as a subprocess). With --http ADDR it serves Streamable HTTP at
http://ADDR/mcp, bound to 127.0.0.1 unless --allow-remote is given. Both
protocol eras are served: 2026-07-28 (stateless) and the initialize
handshake (2025-11-25 and earlier).

Every call is decided by rein's policy for the workspace (-C, --preset,
[policy] in config.toml). A call the policy asks about is put to the
client as an elicitation when the client supports it (accept runs the call,
decline or cancel denies it); for other clients it is denied unless
--approve auto, which allows it without asking. Denials reach the client as
error results with the reason, and are shown on stderr.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mcpServe(cmd.Context(), &f)
		},
	}
	f.register(cmd)
	return cmd
}

// mcpServe is `rein mcp serve`.
func (a *App) mcpServe(ctx context.Context, f *serveFlags) error {
	if err := f.common.validate(); err != nil {
		return err
	}
	for _, o := range f.allowedOrigins {
		if err := mcpserver.ValidateOrigin(o); err != nil {
			return usagef("--allowed-origin: %v", err)
		}
	}
	cfg, ws, err := a.load(&f.common)
	if err != nil {
		return a.fail(err, nil)
	}
	f.common.mcpOnly = servedServers(f.tools)
	// No terminal is ever attached to the harness: stdin carries the
	// protocol (stdio) or nobody (HTTP), so ask behaves as never.
	h, err := a.newHarness(cfg, harnessOptions{workspace: ws, flags: &f.common})
	if err != nil {
		return a.fail(err, nil)
	}
	defer h.close()
	tools, err := selectTools(servable(h.tools), f.tools)
	if err != nil {
		return err
	}
	errw := &lockedWriter{w: a.Stderr}
	srv, err := mcpserver.New(mcpserver.Config{
		Tools:    tools,
		Policy:   h.engine,
		Approver: h.approver,
		// --approve auto answers for the user; otherwise the client's
		// user is asked when the client can show an elicitation.
		ElicitApprovals: approveMode(f.common.approve) != approveAuto,
		Name:            "rein",
		Version:         serverVersion(),
		Instructions:    "rein's tools, confined to the workspace " + ws + "; rein's policy decides every call and explains each denial in the result.",
		ToolTimeout:     cfg.Agent.ToolTimeout,
		MaxResultBytes:  cfg.Agent.MaxResultBytes,
		AllowRemote:     f.allowRemote,
		AllowedOrigins:  f.allowedOrigins,
		OnDecision:      denialPrinter(errw),
		TaskTools:       serveTaskTools(tools),
	})
	if err != nil {
		return a.fail(err, nil)
	}
	var serveErr error
	sig, _ := a.interruptible(ctx, func(ctx context.Context) {
		serveErr = a.serveOn(ctx, srv, f, tools, h.engine.Preset(), errw)
	})
	switch {
	case sig != nil:
		fmt.Fprintln(errw, "rein: interrupted; the MCP server stopped")
		return &exitError{code: ExitInterrupted}
	case errors.Is(serveErr, mcpserver.ErrNotLoopback):
		return usagef("--http %s is not a loopback address and the server has no authentication: bind 127.0.0.1 (the default host), or pass --allow-remote and put authentication in front", f.http)
	case errors.Is(serveErr, mcpserver.ErrAddress):
		return usagef("--http: %s", strings.TrimPrefix(serveErr.Error(), "mcpserver: "))
	case serveErr != nil:
		return a.fail(serveErr, nil)
	}
	return nil
}

// serveOn serves on stdio or, with --http, on the listener, announcing
// where on stderr.
func (a *App) serveOn(ctx context.Context, srv *mcpserver.Server, f *serveFlags, tools *tool.Set, preset policy.Preset, errw io.Writer) error {
	what := fmt.Sprintf("%d tools (%s), preset %s, approve %s", tools.Len(), strings.Join(tools.Names(), ", "), preset, approveMode(f.common.approve))
	if f.http == "" {
		fmt.Fprintf(errw, "rein mcp serve: serving %s on stdio\n", what)
		return srv.ServeStdio(ctx, a.Stdin, a.Stdout)
	}
	ln, err := srv.Listen(f.http)
	if err != nil {
		return err
	}
	fmt.Fprintf(errw, "rein mcp serve: serving %s at http://%s%s\n", what, ln.Addr(), mcpserver.EndpointPath)
	return srv.Serve(ctx, ln)
}

// servedServers is the set of MCP servers whose tools --tools names
// (server__tool), or nil without --tools: a server that serves nothing is
// not started.
func servedServers(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, n := range names {
		if server, _, ok := strings.Cut(strings.TrimSpace(n), "__"); ok && server != "" {
			out[server] = true
		}
	}
	return out
}

// approveMode names what --approve does for a server.
func approveMode(mode string) string {
	if mode == approveAuto {
		return approveAuto
	}
	return approveNever
}

// notServed are built-in tools that only make sense inside rein's own
// agent loop: task starts a sub-agent (a model the MCP client never
// configured) and todo_write keeps the loop's plan, which nothing outside
// it reads. An MCP client has its own loop and its own plan.
var notServed = map[string]string{
	"task":       "it starts a rein sub-agent, which needs rein's model and agent loop",
	"todo_write": "it keeps the plan of rein's own agent loop, which an MCP client does not have",
}

// servable is the tool set with the agent-loop tools left out.
func servable(all *tool.Set) *tool.Set {
	return all.Filter(func(s tool.Spec) bool { return notServed[s.Name] == "" })
}

// selectTools keeps the named tools, in the set's order; no names keeps
// them all. An unknown name is a usage error listing the available ones.
func selectTools(all *tool.Set, names []string) (*tool.Set, error) {
	if len(names) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if why := notServed[n]; why != "" {
			return nil, usagef("--tools: %s is not served over MCP: %s", n, why)
		}
		if _, ok := all.Spec(n); !ok {
			return nil, usagef("--tools: unknown tool %q; the built-in tools are %s", n, strings.Join(all.Names(), ", "))
		}
		want[n] = true
	}
	if len(want) == 0 {
		return nil, usagef("--tools names no tool; the built-in tools are %s", strings.Join(all.Names(), ", "))
	}
	return all.Filter(func(s tool.Spec) bool { return want[s.Name] }), nil
}

// denialPrinter shows each denial on stderr, as rein run does:
// "✗ run_command denied: <why>".
func denialPrinter(w io.Writer) func(policy.Call, policy.Decision) {
	return func(c policy.Call, d policy.Decision) {
		if d.Action == policy.Allow {
			return
		}
		why := strings.TrimPrefix(d.Reason, c.Spec.Name+" is denied: ")
		fmt.Fprintf(w, "✗ %s denied: %s\n", c.Spec.Name, compactLineMax(why, maxDenialLine))
	}
}

// serverVersion is rein's version as the server announces it ("v1.2.3",
// "devel-…").
func serverVersion() string {
	fields := strings.Fields(versionString(version, readBuildInfo()))
	if len(fields) >= 2 {
		return fields[1]
	}
	return "devel"
}

// lockedWriter serialises writes from concurrent calls, so lines do not
// interleave (mcp serve's denial lines; run's and chat's output, which MCP
// servers' goroutines write to beside the agent's).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// serveTaskTools offers run_command as a task-capable tool, so a client
// can start a long build, collect it later, and cancel it (tasks/cancel
// kills the command's process group). Other tools finish quickly.
func serveTaskTools(tools *tool.Set) map[string]mcpserver.TaskSupport {
	if _, ok := tools.Get("run_command"); !ok {
		return nil
	}
	return map[string]mcpserver.TaskSupport{"run_command": mcpserver.TaskOptional}
}
