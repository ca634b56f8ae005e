package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/approve"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/lsp"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/policy/netrules"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/skill"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/tools"
	"github.com/reinharness/rein/tools/basic"
	toolsfs "github.com/reinharness/rein/tools/fs"
	"github.com/reinharness/rein/tools/web"
	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// harness is what a run or chat gives the agent besides the model: the
// workspace with its journal, the coding toolset, the policy and the
// approver. close releases the workspace.
type harness struct {
	ws       *workspace.Workspace
	tools    *tool.Set
	engine   *policy.Engine
	modes    *policy.Switch // engine under the session's current preset (chat's modes, chatmode.go)
	approver policy.Approver
	// system is the system prompt: the configured one, or the default
	// coding prompt.
	system string
	// mcp adds the configured MCP servers' tools to tools; nil when none
	// are configured.
	mcp *mcpTools
	// gate serialises the questions put to the user on the terminal;
	// console answers MCP servers' elicitation and sampling requests
	// there. Both are nil when nobody can be asked.
	gate    *promptGate
	console *consoleInteraction
	// verify is the verification gate, nil when no check is configured
	// or --no-verify was given; maxVerify its max_attempts.
	verify    *verifier
	maxVerify int
	// agents are the custom agents the task tool offers, agentWarnings
	// the files skipped or shadowed; children shows sub-agents' events.
	agents        []host.AgentDef
	agentWarnings []string
	children      *childEvents
	// profiles loads the named profiles custom agents run under
	// (agentprofile.go); nil when none can be (mcp serve).
	profiles *profileLoader
	// steer runs the configured hooks (set by wireHooks); nil when none
	// may run.
	steer agent.Steering
	// skills are the discovered skills: disclosed in the system prompt,
	// loaded with the skill tool, read through skill:// paths;
	// skillServers starts the MCP servers of one activated explicitly.
	skills       *skill.Catalog
	skillServers skillServersFunc
	// network are the merged [network] host rules.
	network netrules.Rules
	// toolProgress is agent.Config.ToolProgress: the terminal UI's live
	// tail of running commands; nil in line mode, whose stdout stays clean.
	toolProgress func(callID, tool, text string)
	// mem is the long-term memory (memorywire.go); nil when off.
	mem *memoryWiring
	// appendPrompt is --append-system-prompt's text (appendprompt.go),
	// added after the instructions; "" when not given.
	appendPrompt string
	// lsp runs the language servers (lspwire.go); nil when none is
	// configured or found. lspTrust holds the project servers the user
	// trusted (rein lsp trust).
	lsp      *lsp.Manager
	lspTrust *host.TrustStore
	// headless answers the MCP servers when nobody can be asked
	// (headlesssampling.go); console replaces it in a chat.
	headless *headlessInteraction
}

// harnessOptions are the inputs of newHarness beyond the configuration.
type harnessOptions struct {
	workspace string
	flags     *commonFlags
	// lines is the terminal's line source when stdin is a terminal (the
	// console approver reads its answers from it); nil otherwise.
	lines *lineSource
	// askServers puts MCP servers' elicitation and sampling requests to
	// the user through lines (chat on a terminal); otherwise they are
	// declined.
	askServers bool
	// front is chat's terminal UI: approvals are asked in its dialog and
	// answers is the line source of MCP servers' questions. Nil in line
	// mode.
	front   *tuiFront
	answers func(context.Context) (string, error)
	// prompt is the run's first prompt, if known: the memory index
	// ranks the memories matching it first.
	prompt string
	// extraServers are MCP servers the front end adds to the
	// configuration's (an ACP editor's own): user-layer, so they start
	// without the trust a repository's servers need.
	extraServers []mcp.ServerConfig
	// interaction, when set, answers the MCP servers instead of the
	// headless answers it is given (rein acp: the editor asks its user).
	interaction func(*headlessInteraction) mcp.Interaction
}

// newHarness opens the workspace under the configured sandbox and builds
// the toolset, the layered policy and the approver. Warnings (ignored
// project settings) go to stderr.
func (a *App) newHarness(cfg *config.Config, o harnessOptions) (*harness, error) {
	home := host.HomeDir(a.Getenv)
	sb, err := host.LoadSandbox(cfg, o.workspace, home)
	if err != nil {
		return nil, err
	}
	layers, err := host.PolicyLayers(cfg, o.flags.preset)
	if err != nil {
		return nil, err
	}
	network, networkWarnings, err := host.LoadNetworkRules(cfg)
	if err != nil {
		return nil, err
	}
	state := host.StateDir(o.flags.stateDirFlag(), a.Getenv)
	perms := host.NewPermissionStore(state)
	var granted []policy.Layer
	if l, ok, err := perms.Layer(o.workspace); err != nil {
		return nil, fmt.Errorf("reading the permissions granted in chat: %w", err)
	} else if ok {
		granted = append(granted, l)
	}
	layers = append(layers, granted...)
	approved, err := host.OpenApproved(state)
	if err != nil {
		return nil, err
	}
	// The MCP servers are checked against the trust store before the
	// workspace opens, so the files trusted servers run can be protected.
	plan, err := a.planMCP(cfg, o.workspace, o.flags)
	if err != nil {
		return nil, err
	}
	plan.servers = append(plan.servers, o.extraServers...)
	// One engine decides for the canonical workspace; it is built before
	// the workspace opens because its preset sets the sandbox's default
	// network. Writes to protected paths ask (the built-in list, the files
	// trusted MCP servers run, rein's and the shell's configuration when
	// the workspace holds them), and commands may not change them at all.
	real := host.CanonicalDir(o.workspace)
	// Claude Code's permissions: deny and ask at once, a project's allow
	// once trusted (claudeperm.go).
	claude := a.claudePermissions(real, home, state)
	layers = append(layers, claude.layers...)
	network.Allow = append(network.Allow, claude.network.Allow...)
	network.Deny = append(network.Deny, claude.network.Deny...)
	networkWarnings = append(networkWarnings, claude.warnings...)
	protected := append(host.ProtectedAs(plan.trustedServerFiles(), "a trusted MCP server runs it"),
		a.Env().ProtectedInWorkspace(real, home, o.flags.stateDirFlag(), o.flags.configFile)...)
	protected = append(protected, host.ProtectedAs(host.HookFiles(cfg, real), "a hook runs it")...)
	engine, err := policy.NewEngine(policy.EngineConfig{
		Workspace: real, Home: home, Layers: layers, Approved: trustedApprovals{approved, claude.trusted}, Protected: protected, Network: network,
	})
	if err != nil {
		return nil, err
	}
	roPaths := sandbox.DefaultProtected(real)
	for _, p := range protected {
		roPaths = append(roPaths, p.Path)
	}
	hidden := a.sandboxHidden(home, state, o.flags.configFile)
	ws, err := workspace.Open(o.workspace, workspace.Options{
		Sandbox:          sb.Mode,
		SandboxReadable:  sb.Readable,
		SandboxWritable:  sb.Writable,
		SandboxNetwork:   sb.AllowNetwork(string(engine.Preset())),
		SandboxHidden:    hidden,
		SandboxProtected: roPaths,
		SandboxLimits:    sb.Limits,
		SandboxCaches:    host.WorkspaceCaches(sb, state, real, a.Stderr),
		// The session store keeps before-images up to this size for undo
		// across runs; the journal must hold them until they are stored.
		JournalFileBytes: session.DefaultMaxImageBytes,
		Logger:           slog.New(&warningHandler{w: a.Stderr}),
	})
	if err != nil {
		return nil, err
	}
	h := &harness{ws: ws, engine: engine, modes: policy.NewSwitch(engine), skills: a.discoverSkills(o.workspace),
		skillServers: a.skillServers(ws, real, o.flags.stateDirFlag()), network: network}
	// A custom agent's profile gets an engine built as this one, from
	// the profile's configuration.
	h.profiles = &profileLoader{a: a, flags: o.flags, workspace: o.workspace, parent: cfg, preset: engine.Preset(),
		engine: func(c *config.Config) (*policy.Engine, error) {
			ls, err := host.PolicyLayers(c, o.flags.preset)
			if err != nil {
				return nil, err
			}
			net, _, err := host.LoadNetworkRules(c)
			if err != nil {
				return nil, err
			}
			net.Allow = append(net.Allow, claude.network.Allow...)
			net.Deny = append(net.Deny, claude.network.Deny...)
			return policy.NewEngine(policy.EngineConfig{Workspace: real, Home: home, Layers: append(append(ls, granted...), claude.layers...),
				Approved: trustedApprovals{approved, claude.trusted}, Protected: protected, Network: net})
		}}
	a.warnSkills(h.skills)
	if h.mem, err = openMemory(cfg, state, real, o.flags.noMemory); err != nil {
		if !errors.Is(err, errMemoryUnavailable) {
			ws.Close()
			return nil, err
		}
		// Memory is a help, never a reason to refuse a run.
		fmt.Fprintf(a.Stderr, "rein: warning: %s\n", textclip.FirstLine(err.Error()))
	}
	if h.appendPrompt, err = a.readAppendPrompt(o.flags); err != nil {
		h.mem.close()
		ws.Close()
		return nil, err
	}
	h.lspTrust = a.lspTrustStore(o.flags.stateDirFlag())
	if err := h.build(cfg, a.Getenv, o.prompt); err != nil {
		h.mem.close()
		ws.Close()
		return nil, err
	}
	vs, err := host.LoadVerify(cfg)
	if err != nil {
		ws.Close()
		return nil, err
	}
	// A repository's checks run only once trusted, like its hooks.
	vs = a.trustedChecks(vs, real, state)
	if !o.flags.noVerify {
		h.verify, h.maxVerify = newVerifier(ws, vs, newExplainer(cfg.Model).scrub), vs.MaxAttempts
		if h.verify != nil {
			h.verify.mode = h.modes.Preset
		}
	}
	h.headless = &headlessInteraction{out: a.Stderr}
	var in mcp.Interaction = h.headless
	if o.interaction != nil {
		in = o.interaction(h.headless)
	}
	if o.lines != nil && o.askServers {
		h.gate = newPromptGate()
		read := o.lines.readLine
		if o.answers != nil {
			read = o.answers
		}
		h.console = newConsoleInteraction(h.gate, read, a.Stderr)
		h.console.openURL = a.openBrowser
		in = h.console
	}
	if h.mcp, err = a.startMCP(plan, ws, h.tools, in); err != nil {
		ws.Close()
		return nil, err
	}
	for _, w := range append(append(append(append(sb.Warnings, h.engine.Warnings()...), vs.Warnings...), h.agentWarnings...), networkWarnings...) {
		fmt.Fprintf(a.Stderr, "rein: warning: %s\n", textclip.FirstLine(w))
	}
	if o.front != nil {
		h.toolProgress = o.front.toolOutput
	}
	if o.front != nil && o.flags.approve == approveAsk {
		h.approver = newDialogApprover(o.front, ws, perms, h.modes)
		if h.gate != nil {
			h.approver = &gatedApprover{gate: h.gate, inner: h.approver}
		}
	} else if o.lines != nil && o.flags.approve == approveAsk {
		h.approver = approve.Console(strings.NewReader(""), a.Stderr, approve.ConsoleOptions{
			Workspace: ws.Dir(), Approved: approved, Decider: h.modes, ReadLine: o.lines.readLine,
			Terminal: terminalFile(a.Stdin),
		})
		if h.gate != nil {
			h.approver = &gatedApprover{gate: h.gate, inner: h.approver}
		}
	} else {
		h.approver = headlessApprover(o.flags.approve)
	}
	if h.verify != nil {
		var spec tool.Spec
		if t, ok := h.tools.Get(commandTool); ok {
			spec = t.Spec()
		} else {
			spec = tool.Spec{Name: commandTool}
		}
		h.verify.useGate(h.modes, h.approver, spec)
	}
	return h, nil
}

// build assembles the tools and the system prompt.
func (h *harness) build(cfg *config.Config, getenv func(string) string, prompt string) error {
	// Skills' files are read-only under skill://NAME/PATH, each confined
	// to its skill's folder.
	topts := tools.Options{FS: toolsfs.Options{Mounts: []toolsfs.Mount{skillMount(h.skills)}}, Exec: runCommandOptions(cfg)}
	builtin := append(tools.Coding(h.ws, topts), basic.Tools()...)
	// web_fetch follows the [network] rules the policy decides it by.
	builtin = append(builtin, web.New(web.Options{Rules: h.network}))
	if len(h.skills.Names()) > 0 {
		builtin = append(builtin, skill.NewTool(h.skills, skill.ToolOptions{}))
	}
	// The plan tool keeps the model's plan in the session (plan.updated
	// events, shown as a checklist) and on every request.
	builtin = append(builtin, agent.PlanTool())
	builtin = append(builtin, h.mem.tools()...)
	builtin, lspWarnings, err := h.wireLSP(cfg, getenv, builtin)
	if err != nil {
		return err
	}
	set, err := tool.NewSet(builtin...)
	if err != nil {
		return fmt.Errorf("building the built-in tools: %w", err)
	}
	if err := h.addTaskTool(cfg, getenv, set); err != nil {
		return err
	}
	h.agentWarnings = append(h.agentWarnings, lspWarnings...) // printed with them
	disabled, err := host.LoadDisabledTools(cfg, set.Names())
	if err != nil {
		return err
	}
	set.Remove(disabled...)
	h.tools = set
	h.system = cfg.Agent.SystemPrompt
	if h.system == "" {
		h.system = host.DefaultSystemPrompt(h.ws.Dir(), set.Names(), h.engine.Preset())
	}
	h.system = withProjectInstructions(h.system, cfg)
	h.system = withTeamMemory(h.system, h.ws.Dir())
	if _, ok := set.Get(skill.ToolName); ok {
		// Only names and descriptions, capped; the skill tool gives the rest.
		if sec := skill.PromptSection(h.skills.Skills(), cfg.Model.ContextWindow); sec != "" {
			h.system += "\n\n" + strings.TrimRight(sec, "\n")
		}
	}
	// Last, so a Temporal worker can swap it per session (refreshSystem).
	if sec := h.mem.systemSection(set, prompt); sec != "" {
		h.system += "\n\n" + sec
	}
	return nil
}

// withProjectInstructions appends a project layer's agent.system_prompt to
// the system prompt as the project's instructions, labelled like the
// AGENTS.md files memory injects: a repository adds to rein's (or the
// user's) system prompt, never replaces it.
func withProjectInstructions(system string, cfg *config.Config) string {
	text, _ := cfg.ProjectInstructions()
	if strings.TrimSpace(text) == "" {
		return system
	}
	return system + "\n\n# Instructions from .rein/config.toml (the project's [agent] system_prompt)\n\n" + strings.TrimSpace(text)
}

// headlessApprover is the approver when no one can be asked: ask
// behaves as never.
func headlessApprover(mode string) policy.Approver {
	if mode == approveAuto {
		return policy.Auto()
	}
	return policy.Never()
}

// useModel lets approved sampling requests of MCP servers run on the
// agent's provider p.
func (h *harness) useModel(p model.Provider, m config.ModelConfig, ex *explainer) {
	name := m.Model
	if name == "" {
		name = m.Provider // the server's default model; its name is unknown
	}
	s := &sampler{provider: p, model: m.Model, name: name, maxTokens: m.MaxTokens, ex: ex, policy: h.engine}
	if h.console != nil {
		h.console.useModel(s)
	}
	if h.headless != nil {
		h.headless.useModel(s)
	}
}

// quiet reports whether a question holds the terminal.
func (h *harness) quiet() bool { return h.gate != nil && h.gate.busy() }

func (h *harness) close() {
	if h.lsp != nil {
		h.lsp.Close()
	}
	h.mcp.close()
	h.mem.close()
	h.ws.Close()
}

// warningHandler prints the workspace's warnings (the one-time "sandbox
// unavailable" notice) as rein's own warning lines on stderr.
type warningHandler struct{ w io.Writer }

// Enabled implements slog.Handler: warnings and errors only.
func (h *warningHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

// Handle implements slog.Handler.
func (h *warningHandler) Handle(_ context.Context, r slog.Record) error {
	msg := strings.TrimPrefix(r.Message, "rein: ")
	_, err := fmt.Fprintf(h.w, "rein: warning: %s\n", textclip.FirstLine(msg))
	return err
}

// WithAttrs implements slog.Handler; attributes are not shown.
func (h *warningHandler) WithAttrs([]slog.Attr) slog.Handler { return h }

// WithGroup implements slog.Handler; groups are not shown.
func (h *warningHandler) WithGroup(string) slog.Handler { return h }
