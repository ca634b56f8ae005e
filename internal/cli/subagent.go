package cli

import (
	"context"
	"fmt"
	"sync"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/tool"
)

// addTaskTool adds the task tool (sub-agents) to set, with the custom
// agents of the user's and the workspace's agent directories, unless
// agent.max_subagent_depth is 0.
func (h *harness) addTaskTool(cfg *config.Config, getenv func(string) string, set *tool.Set) error {
	h.children = &childEvents{}
	if cfg.Agent.MaxSubagentDepth <= 0 {
		return nil
	}
	h.agents, h.agentWarnings = host.LoadAgentDefs(getenv, h.ws.Dir(), set.Names())
	h.agents, h.agentWarnings = h.profiles.apply(h.agents, h.agentWarnings, set.Names())
	task, err := agent.NewTaskTool(agent.TaskConfig{
		Agents:       host.SubagentDefs(h.agents),
		MaxDepth:     cfg.Agent.MaxSubagentDepth,
		MaxTreeSteps: cfg.Agent.MaxTreeSteps,
	})
	if err != nil {
		return fmt.Errorf("building the task tool: %w", err)
	}
	return set.Add(task)
}

// childEvents is the hook that shows sub-agents' events in the run's
// output: the renderer of a run or chat is set once it exists. The root's
// hooks receive a tree's events one at a time (agent.NewTaskTool), so the
// renderer is never called concurrently by it.
type childEvents struct {
	mu   sync.Mutex
	show func(agent.Event)
}

// render makes the sub-agents' events go to show (nil: nowhere).
func (c *childEvents) render(show func(agent.Event)) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.show = show
}

// OnEvent implements agent.Hook; the root's own events are rendered by
// the loop's consumer.
func (c *childEvents) OnEvent(_ context.Context, ev agent.Event) {
	if ev.AgentPath == "" {
		return
	}
	c.mu.Lock()
	show := c.show
	c.mu.Unlock()
	if show != nil {
		show(ev)
	}
}
