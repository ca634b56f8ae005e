package cli

import (
	"log/slog"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/history"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/provider"
	"github.com/reinharness/rein/model/transport"
)

// newProvider builds the model provider the configuration selects, with
// the configured bounds on every wait and on the answer's size.
func newProvider(m config.ModelConfig) (model.Provider, error) {
	return provider.New(m.Provider, provider.Settings{
		Endpoint:         m.Endpoint,
		APIKey:           m.APIKey.Reveal(),
		Model:            m.Model,
		MaxTokens:        m.MaxTokens,
		ContextWindow:    m.ContextWindow,
		MaxResponseBytes: m.MaxResponseBytes,
		HTTP:             httpConfig(m),
	})
}

// httpConfig maps the [model] bounds onto transport, whose zero values mean
// "default": config's request_timeout 0 (none) and retry_budget 0 (no
// retries) become transport's negative values.
func httpConfig(m config.ModelConfig) transport.Config {
	noneIfZero := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1
		}
		return d
	}
	return transport.Config{
		ConnectTimeout: m.ConnectTimeout,
		HeaderTimeout:  m.HeaderTimeout,
		IdleTimeout:    m.IdleTimeout,
		RequestTimeout: noneIfZero(m.RequestTimeout),
		RetryBudget:    noneIfZero(m.RetryBudget),
	}
}

// agentParts are the pieces of a run that live beside the agent.
type agentParts struct {
	// summarize is the Summarize strategy when it is the configured one:
	// chat's /compact and a resume's restored summaries use it.
	summarize *history.Summarize
	// provider is the agent's model provider (MCP sampling uses it too).
	provider model.Provider
	// instructions are the instruction files loaded (the banner, /status).
	instructions []history.LoadedFile
}

// newAgent wires the configured provider, the harness's tools, policy,
// approver and system prompt, the AGENTS.md instructions, the context
// strategy, the session's journal and hooks, and the limits into an agent.
func (a *App) newAgent(cfg *config.Config, h *harness, sr *sessionRun) (*agent.Agent, *agentParts, error) {
	p, err := newProvider(cfg.Model)
	if err != nil {
		return nil, nil, err
	}
	cs, err := host.LoadContextSettings(cfg)
	if err != nil {
		return nil, nil, err
	}
	strategy, sum := host.NewContextStrategy(cs, p, cfg.Model.Model)
	instructions, err := a.runInstructions(cfg, h)
	if err != nil {
		return nil, nil, err
	}
	params := model.Request{Temperature: cfg.Model.Temperature, MaxTokens: cfg.Model.MaxTokens, ReasoningEffort: cfg.Model.ReasoningEffort}
	ac := agent.Config{
		Provider:       p,
		Model:          cfg.Model.Model,
		System:         h.system,
		Instructions:   instructions.Text,
		Params:         params,
		Tools:          h.tools,
		Policy:         h.modes,
		Approver:       h.approver,
		MaxSteps:       cfg.Agent.MaxSteps,
		Timeout:        cfg.Agent.Timeout,
		TokenBudget:    cfg.Agent.TokenBudget,
		MaxParallel:    cfg.Agent.MaxParallelTools,
		ToolTimeout:    cfg.Agent.ToolTimeout,
		MaxResultBytes: cfg.Agent.MaxResultBytes,
		ContextWindow:  cfg.Model.ContextWindow,
		RepeatLimit:    cfg.Agent.RepeatLimit,
		// 0 in the configuration is "off" (loopflags.go).
		MaxConsecutiveDenials: agentDenials(cfg.Agent.MaxConsecutiveDenials),
		Context:               strategy,
		// The loop's warnings (a hook's unusable updatedInput, a
		// recovered panic) are rein's own warning lines on stderr.
		Logger:       slog.New(&warningHandler{w: a.Stderr}),
		ToolProgress: h.toolProgress,
	}
	if sr != nil {
		ac.Journal = sr
		ac.Hooks = []agent.Hook{sr}
	}
	if h.children != nil {
		ac.Hooks = append(ac.Hooks, h.children)
	}
	if h.mem != nil {
		var id func() string
		if sr != nil {
			id = sr.ID
		}
		ac.Hooks = append(ac.Hooks, h.mem.bind(id))
	}
	if h.verify != nil {
		ac.Verifier, ac.MaxVerifyAttempts = h.verify, h.maxVerify
		ac.Hooks = append(ac.Hooks, h.verify)
	}
	if err := a.wireHooks(cfg, h, sr, &ac); err != nil {
		return nil, nil, err
	}
	ag, err := agent.New(ac)
	if err != nil {
		return nil, nil, err
	}
	return ag, &agentParts{summarize: sum, provider: p, instructions: instructions.Files}, nil
}
