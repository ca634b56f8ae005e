package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// mcpTools connects the configured MCP servers in the background and adds
// their tools to a run's tool set as they come up. The policy sees them as
// external tools: they ask unless a [[policy.tools]] rule allows them.
type mcpTools struct {
	app *App
	m   *mcp.Manager
	set *tool.Set
	// added holds the names already in set; servers that connect later
	// add theirs before a later run (a chat's next turn).
	mu    sync.Mutex
	added map[string]bool
	// progress shows the calls' progress notifications and the notes of
	// servers that connected late; nil drops them (json output, or
	// between runs).
	progress atomic.Pointer[progressReporter]
	// logShow is the least level of server log messages shown as text
	// (see mcpnotify.go); unset or "": none.
	logShow atomic.Pointer[string]
	// updates are the resource changes the model has not been told of.
	updates pendingUpdates
	// onChange is told when a server connects or fails (the chat's
	// status line); nil: nobody.
	onChange atomic.Pointer[func()]
	// wait is how long the first refresh waits for servers that are not
	// required (--mcp-wait, [mcp] startup_wait; see mcpstartup.go); inChat
	// makes it the chat's. settled is set once a refresh gave a run its
	// tools (a chat: at once): servers that connect after it are noted.
	wait    startupWait // guarded by mu
	settled bool        // guarded by mu
	// reported holds the servers whose failure was reported: the end of
	// the run does not name them again.
	reported map[string]bool // guarded by mu
}

// mcpPlan is what a run's MCP servers need decided before the workspace
// is opened: the servers that may start (workspace-defined servers the
// user has not trusted as they are now are left out, with a warning) and
// the workspace files those servers run.
type mcpPlan struct {
	servers []mcp.ServerConfig
	files   []string
	// tokens holds the servers' OAuth sign-ins (see mcplogin.go).
	tokens mcp.TokenStore
	wait   startupWait
}

// planMCP loads the servers of [mcp_servers] and .mcp.json for workspace
// (absolute) and checks them against the trust store.
func (a *App) planMCP(cfg *config.Config, workspace string, flags *commonFlags) (*mcpPlan, error) {
	stateDirFlag := flags.stateDirFlag()
	workspace = host.CanonicalDir(workspace)
	servers, err := mcp.LoadServers(cfg, workspace, a.Getenv)
	if err != nil {
		return nil, err
	}
	if servers, err = a.withinNesting(servers); err != nil {
		return nil, err
	}
	if flags.mcpOnly != nil {
		servers = slices.DeleteFunc(servers, func(sc mcp.ServerConfig) bool { return !flags.mcpOnly[sc.Name] })
	}
	// A repository's own servers start only once the user trusted them.
	trusted, untrusted, files := a.trustStore(stateDirFlag).SplitTrusted(servers, workspace)
	a.warnUntrusted(untrusted)
	if err := checkUnconfinedServers(trusted, workspace); err != nil {
		return nil, err
	}
	wait, warnings, err := loadStartupWait(cfg, flags.mcpWait, flags.fs != nil && flags.fs.Changed("mcp-wait"))
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(a.Stderr, "rein: warning: %s\n", textclip.FirstLine(w))
	}
	return &mcpPlan{servers: trusted, files: files, tokens: a.tokenStore(stateDirFlag), wait: wait}, nil
}

// trustedServerFiles returns the workspace files (absolute, symlinks
// resolved as the workspace is) that the MCP servers allowed to start run
// or name: the scripts and configuration the user trusted. Writes to them
// ask under every preset (policy.EngineConfig.Protected), and the sandbox
// keeps them read-only: a change detector, so that what the user reviewed
// is what runs (the servers themselves run in the sandbox).
func (p *mcpPlan) trustedServerFiles() []string {
	if p == nil {
		return nil
	}
	return p.files
}

// startMCP starts the planned servers, or returns nil when there are
// none. Connecting starts at once, so servers come up while the rest of
// the run is set up. in answers the servers' elicitation and sampling
// requests: the console in a chat on a terminal, mcp.Decline{} wherever
// nobody can be asked.
func (a *App) startMCP(plan *mcpPlan, ws *workspace.Workspace, set *tool.Set, in mcp.Interaction) (*mcpTools, error) {
	if plan == nil || len(plan.servers) == 0 {
		return nil, nil
	}
	mt := &mcpTools{app: a, set: set, added: map[string]bool{}, wait: plan.wait, reported: map[string]bool{}}
	mc := a.mcpConfig(plan.servers, ws.Dir(), in)
	mc.Confine = mcpConfiner(ws, a.nestingDepth())
	mc.Tokens = plan.tokens // never an Authorizer: a run does not start sign-ins
	mc.OnConnected = func(server string) {
		go mt.join(server)
		mt.changed()
	}
	mc.OnProgress = func(_ context.Context, p mcp.Progress) {
		mt.progress.Load().report(p)
	}
	mc.OnProblem = mt.problem
	mc.OnServerLog, mc.OnResourceUpdated = mt.onServerLog, mt.onResourceUpdated
	var err error
	mt.m, err = mcp.New(mc)
	if err != nil {
		return nil, err
	}
	mt.m.Start()
	return mt, nil
}

// checkUnconfinedServers refuses a user server's sandbox = false when
// what it runs lies in the workspace (see checkOutsideWorkspace).
func checkUnconfinedServers(servers []mcp.ServerConfig, ws string) error {
	for _, sc := range servers {
		if sc.Unconfined && !sc.Project && !sc.Disabled && sc.Command != "" {
			if err := host.CheckOutsideWorkspace(ws, serverDir(sc, ws), append([]string{sc.Command}, sc.Args...)); err != nil {
				return fmt.Errorf("MCP server %s (%s) has sandbox = false, refused: %v; only a server whose every file lies outside the workspace may run outside the sandbox: install it outside the workspace and name it by its full path, or remove sandbox = false", sc.Name, sc.Source, err)
			}
		}
	}
	return nil
}

// serverDir is the directory sc starts in.
func serverDir(sc mcp.ServerConfig, ws string) string {
	switch {
	case sc.Cwd == "":
		return ws
	case filepath.IsAbs(sc.Cwd):
		return sc.Cwd
	}
	return filepath.Join(ws, sc.Cwd)
}

// mcpConfiner starts every stdio server in its own instance of ws's
// sandbox, with a private TMPDIR and caches. The network: a
// workspace-defined server gets it only when its trust grant says so
// (rein mcp trust --network); a server of the user's own config keeps it
// unless network = false. Only a user server with sandbox = false, whose
// files all lie outside the workspace, runs unconfined.
func mcpConfiner(ws *workspace.Workspace, depth int) func(mcp.ServerConfig) (mcp.Confinement, error) {
	return func(sc mcp.ServerConfig) (mcp.Confinement, error) {
		dir := serverDir(sc, ws.Dir())
		if sc.Unconfined && !sc.Project {
			if err := host.CheckOutsideWorkspace(host.CanonicalDir(ws.Dir()), dir, append([]string{sc.Command}, sc.Args...)); err != nil {
				return mcp.Confinement{}, fmt.Errorf("sandbox = false refused: %w", err)
			}
			return mcp.Confinement{Policy: sandbox.Policy{Mode: sandbox.Off}, Env: []string{nestingEnv(depth)}}, nil
		}
		network := !sc.Project
		if sc.Network != nil {
			network = *sc.Network
		}
		pol, err := ws.SandboxPolicy(network, dir)
		if err != nil {
			return mcp.Confinement{}, err
		}
		if !sc.Project {
			// A server of your own that lives in a hidden directory (a
			// skill under rein's config directory) sees that directory;
			// a workspace's server never un-hides anything.
			prog := programPath(sc.Command, dir)
			pol.Hidden = unhide(pol.Hidden, dir, prog)
			// One that lives under /tmp (a checkout there) sees its own
			// tree: the sandbox's /tmp is otherwise empty.
			pol.Visible = tmpRoots(host.CanonicalDir(ws.Dir()), append([]string{prog}, sc.Args...))
		}
		env, err := ws.SandboxEnv(nil, false)
		if err != nil {
			return mcp.Confinement{}, err
		}
		return mcp.Confinement{Policy: pol, Env: append(env, nestingEnv(depth))}, nil
	}
}

// serverWorkspace opens ws for confining the MCP servers a command other
// than a run starts (rein mcp list, call, prompt): the configured
// [sandbox] mode, readable and writable directories, the default
// protected paths and rein's hidden ones, as a run has them.
func (a *App) serverWorkspace(cfg *config.Config, ws, stateDirFlag, configFile string) (*workspace.Workspace, error) {
	home := host.HomeDir(a.Getenv)
	sb, err := host.LoadSandbox(cfg, ws, home)
	if err != nil {
		return nil, err
	}
	real := host.CanonicalDir(ws)
	ro := sandbox.DefaultProtected(real)
	for _, p := range a.Env().ProtectedInWorkspace(real, home, stateDirFlag, configFile) {
		ro = append(ro, p.Path)
	}
	return workspace.Open(ws, workspace.Options{
		Sandbox: sb.Mode, SandboxReadable: sb.Readable, SandboxWritable: sb.Writable,
		SandboxHidden:    a.sandboxHidden(home, host.StateDir(stateDirFlag, a.Getenv), configFile),
		SandboxProtected: ro,
		SandboxCaches:    host.WorkspaceCaches(sb, host.StateDir(stateDirFlag, a.Getenv), real, a.Stderr),
		Logger:           slog.New(&warningHandler{w: a.Stderr}),
	})
}

// sandboxHidden is what every sandbox rein starts hides: the usual
// secret stores, rein's config and state, and a --config file.
func (a *App) sandboxHidden(home, state, configFile string) []string {
	hidden := sandbox.DefaultHidden(home, filepath.Dir(config.UserConfigPath(a.Getenv)), state)
	if configFile != "" {
		if abs, err := filepath.Abs(configFile); err == nil {
			hidden = append(hidden, abs)
		}
	}
	return hidden
}

// unhide returns hidden without the entries that contain one of paths.
func unhide(hidden []string, paths ...string) []string {
	var out []string
	for _, h := range hidden {
		if !slices.ContainsFunc(paths, func(p string) bool { return p != "" && host.InDir(p, h) }) {
			out = append(out, h)
		}
	}
	return out
}

// tmpRoots returns, for every absolute path of paths under /tmp that
// exists (symlinks followed) outside the workspace ws, the directory right
// below /tmp holding it — unless that directory holds the workspace, whose
// neighbours (a test's home) stay out of sight.
func tmpRoots(ws string, paths []string) []string {
	var roots []string
	for _, p := range paths {
		if !filepath.IsAbs(p) || host.InDir(p, ws) {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		for _, q := range []string{p, real} {
			rest, ok := strings.CutPrefix(q, "/tmp/")
			if !ok || rest == "" {
				continue
			}
			root := "/tmp/" + strings.SplitN(rest, "/", 2)[0]
			if !host.InDir(ws, root) && !slices.Contains(roots, root) {
				roots = append(roots, root)
			}
		}
	}
	return roots
}

// programPath resolves a server's command as it will start in dir
// (symlinks followed; "" when it cannot be found).
func programPath(command, dir string) string {
	p := command
	switch {
	case p == "":
		return ""
	case !strings.ContainsRune(p, filepath.Separator):
		lp, err := exec.LookPath(p)
		if err != nil {
			return ""
		}
		p = lp
	case !filepath.IsAbs(p):
		p = filepath.Join(dir, p)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// mcpConfig is the Manager configuration every command shares: rein's
// identity, the workspace as the servers' directory, rein's environment
// (servers get a filtered copy) and who answers the servers' questions.
func (a *App) mcpConfig(servers []mcp.ServerConfig, workspace string, in mcp.Interaction) mcp.Config {
	return mcp.Config{
		Servers:       servers,
		ClientVersion: versionString(version, readBuildInfo()),
		Interaction:   in,
		WorkDir:       workspace,
		Getenv:        a.Getenv,
		// The App's environment, not the process's: an App given its
		// own (a test, an embedding program) hands servers only that.
		// One that lists none leaves nil, which the Manager takes as
		// rein's own (os.Environ), as hooks do.
		Environ: a.environ(),
	}
}

// refresh adds the tools of every server that is up. It waits, for all
// servers in parallel and counted from rein's start, for a required
// server until its startup timeout, and for one that is not required as
// long as the start-up wait says: in a headless run by default also
// until its startup timeout (a server still starting normally is not
// lost; one that fails or hangs is reported once and left out), in a
// chat by default not at all. A required server that is not up fails the
// run. Servers that come up later join through join.
func (mt *mcpTools) refresh(ctx context.Context) error {
	if mt == nil {
		return nil
	}
	mt.mu.Lock()
	wait := mt.wait
	mt.mu.Unlock()
	var (
		ts  []tool.Tool
		err error
	)
	if wait.set {
		ts, err = mt.m.ToolsWithin(ctx, wait.d)
	} else {
		ts, err = mt.m.Tools(ctx)
	}
	if err != nil {
		return err
	}
	mt.mu.Lock()
	defer mt.mu.Unlock()
	mt.settled = true
	fresh, gone := syncTools(mt.added, ts)
	mt.set.Remove(gone...)
	if len(fresh) == 0 {
		return nil
	}
	if err := mt.set.Add(fresh...); err != nil {
		return fmt.Errorf("adding MCP tools: %w", err)
	}
	return nil
}

// join adds the tools of a server that has just connected. The agent
// reads the set again before its next model call, so they are offered
// from then on; once a run has its tools, the late arrival is noted in
// the output. A reconnection after a crash adds nothing new and says
// nothing.
func (mt *mcpTools) join(server string) {
	ts := mt.m.ServerTools(server)
	mt.mu.Lock()
	var fresh []tool.Tool
	var names []string
	for _, t := range ts {
		if name := t.Spec().Name; !mt.added[name] {
			fresh = append(fresh, t)
			names = append(names, name)
		}
	}
	if len(fresh) == 0 {
		mt.mu.Unlock()
		return
	}
	if err := mt.set.Add(fresh...); err != nil {
		mt.mu.Unlock()
		fmt.Fprintf(mt.app.Stderr, "rein: warning: MCP server %s: adding its tools: %s\n", server, textclip.FirstLine(err.Error()))
		return
	}
	for _, name := range names {
		mt.added[name] = true
	}
	settled := mt.settled
	mt.mu.Unlock()
	if settled {
		mt.progress.Load().connected(server, names)
	}
}

// reportMissing names, once at the end of a run, the servers still
// connecting: the run went without their tools, and their own timeout
// (which reports a failure) has not passed yet.
func (mt *mcpTools) reportMissing() {
	if mt == nil {
		return
	}
	for _, name := range mt.m.Connecting() {
		mt.mu.Lock()
		done := mt.reported[name]
		mt.mu.Unlock()
		if done {
			continue // its failure or timeout was reported already
		}
		fmt.Fprintf(mt.app.Stderr, "rein: warning: MCP server %s had not connected when the run ended; the run went without its tools\n", name)
	}
}

// syncTools compares the servers' current tools with those already added
// (which it updates) and returns the new ones and the names to remove: a
// tool its server no longer lists (its list changed) goes away, while the
// tools of a server that is down stay — it is restarted for the next call,
// and its tools fail clearly meanwhile.
func syncTools(added map[string]bool, current []tool.Tool) (fresh []tool.Tool, gone []string) {
	listed := make(map[string]bool, len(current))
	up := map[string]bool{} // servers that answered
	for _, t := range current {
		name := t.Spec().Name
		listed[name] = true
		up[serverOf(name)] = true
		if !added[name] {
			fresh = append(fresh, t)
			added[name] = true
		}
	}
	for name := range added {
		if !listed[name] && up[serverOf(name)] {
			gone = append(gone, name)
			delete(added, name)
		}
	}
	sort.Strings(gone)
	return fresh, gone
}

// serverOf returns the server part of an MCP tool's exposed name
// ("server__tool"; server names cannot contain "__").
func serverOf(name string) string {
	server, _, _ := strings.Cut(name, "__")
	return server
}

// inChat makes the start-up a chat's: the first model request waits
// only as long as the user set (--mcp-wait, [mcp] startup_wait; by
// default not at all), and servers that connect from now on are shown
// joining.
func (mt *mcpTools) inChat() {
	if mt == nil {
		return
	}
	mt.mu.Lock()
	defer mt.mu.Unlock()
	mt.settled = true
	mt.wait = startupWait{d: mt.wait.forChat(), set: true, user: mt.wait.user}
}

// problem reports a server's failure (it did not start, did not connect
// within its startup_timeout, or crashed): a warning on stderr and, in
// stream-json, an mcp.failed line. The mcp package reports each failure
// to connect once.
func (mt *mcpTools) problem(p mcp.Problem) {
	msg := textclip.FirstLine(p.Err.Error())
	fmt.Fprintf(mt.app.Stderr, "rein: warning: MCP server %s: %s\n", p.Server, msg)
	mt.mu.Lock()
	mt.reported[p.Server] = true
	mt.mu.Unlock()
	mt.progress.Load().failed(p.Server, p.Required, msg)
	mt.changed()
}

// showProgress sends the calls' progress notifications to r (nil: drop
// them).
func (mt *mcpTools) showProgress(r *progressReporter) {
	if mt != nil {
		mt.progress.Store(r)
	}
}

// close disconnects the servers.
func (mt *mcpTools) close() {
	if mt != nil {
		mt.m.Close()
	}
}

// changed tells onChange, off the caller's goroutine (the MCP manager's).
func (mt *mcpTools) changed() {
	if f := mt.onChange.Load(); f != nil {
		go (*f)()
	}
}
