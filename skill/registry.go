package skill

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/reinharness/rein/tool"
)

// Errors of Registry.
var (
	ErrAlreadyActive = errors.New("skill already active")
	ErrNotActive     = errors.New("skill not active")
)

// RegistryOptions configures a Registry.
type RegistryOptions struct {
	// Keep names tools that an active skill's allowed-tools never removes:
	// the skill tool itself, so the model can still load another skill,
	// and whatever else the harness needs to stay reachable.
	Keep []string
	// Servers, when set, starts the MCP servers a skill binds
	// (Skill.MCPServers; Skill.MCPJSON feeds them to mcp.ParseMCPJSON)
	// as the skill is activated, and is called only for skills that
	// bind some. Their tools join the skill's, under the names the
	// function gives them (the mcp package's <server>__<tool>); stop is
	// called when the skill is deactivated or the Registry closed. When
	// it fails, activation fails and it must have stopped whatever it
	// started. Nil leaves a skill's servers unstarted. Project-layer
	// skills' servers are a repository's commands: the function should
	// ask for the same trust as the project's .mcp.json servers.
	Servers func(ctx context.Context, s *Skill) (tools []tool.Tool, stop func(), err error)
}

// Registry tracks the active skills of one agent and derives the tool set
// and prompt sections they imply from a base tool set that it never
// changes. Activating a skill adds its tools (replacing, in place, a base
// tool of the same exposed name); deactivating it brings the replaced tool
// back where it was. Each active skill's allowed-tools narrows the set
// (see Narrow); skills' own tools and RegistryOptions.Keep are exempt.
//
// A Registry is safe for concurrent use. Tools returns a fresh *tool.Set
// each time, so a run already under way keeps the set it started with.
type Registry struct {
	servers func(ctx context.Context, s *Skill) ([]tool.Tool, func(), error)

	mu     sync.Mutex
	base   []tool.Tool
	keep   []string
	active []*Activation
	// starting holds the names of skills whose servers are starting,
	// so a concurrent Activate of the same skill fails at once.
	starting map[string]bool
	// stops are the active skills' server stop functions, by name.
	stops map[string]func()
}

// NewRegistry returns a registry over a snapshot of base: tools added to
// base later are not seen (build a new Registry, or pass them as a
// skill's tools).
func NewRegistry(base *tool.Set, opts RegistryOptions) *Registry {
	return &Registry{base: base.Tools(), keep: slices.Clone(opts.Keep), servers: opts.Servers,
		starting: map[string]bool{}, stops: map[string]func(){}}
}

// Activate activates s and returns its activation. It fails when s is
// already active, when Activate(s) fails (context section over its cap, a
// tool name too long), when its MCP servers do not start
// (RegistryOptions.Servers; ctx bounds starting them), and when the
// resulting tool set would be invalid.
func (r *Registry) Activate(ctx context.Context, s *Skill) (*Activation, error) {
	a, err := Activate(s)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.find(s.Name) >= 0 || r.starting[s.Name] {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: %q", ErrAlreadyActive, s.Name)
	}
	r.starting[s.Name] = true
	r.mu.Unlock()
	// Servers start without the lock: it may take seconds.
	stop, err := r.startServers(ctx, a)
	if err == nil {
		err = r.commit(a, stop)
	} else {
		r.mu.Lock()
		delete(r.starting, s.Name)
		r.mu.Unlock()
	}
	if err != nil {
		if stop != nil {
			stop() // not under the lock: stopping may block
		}
		return nil, err
	}
	return a, nil
}

// commit makes a active unless the resulting tool set would be invalid.
func (r *Registry) commit(a *Activation, stop func()) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.starting, a.Skill.Name)
	next := append(slices.Clone(r.active), a)
	if _, err := r.toolsFor(next); err != nil {
		return fmt.Errorf("skill %q: %w", a.Skill.Name, err)
	}
	r.active = next
	if stop != nil {
		r.stops[a.Skill.Name] = stop
	}
	return nil
}

// startServers starts a's skill's MCP servers, adding their tools to a.
func (r *Registry) startServers(ctx context.Context, a *Activation) (func(), error) {
	if r.servers == nil || len(a.Skill.MCPServers) == 0 {
		return nil, nil
	}
	tools, stop, err := r.servers(ctx, a.Skill)
	if err != nil {
		return nil, fmt.Errorf("skill %q: starting its MCP servers: %w", a.Skill.Name, err)
	}
	seen := map[string]bool{}
	for _, t := range a.Tools {
		seen[t.Spec().Name] = true
	}
	for _, t := range tools {
		if t == nil || seen[t.Spec().Name] {
			if stop != nil {
				stop()
			}
			return nil, fmt.Errorf("skill %q: its MCP servers gave a nil tool or a tool name twice", a.Skill.Name)
		}
		seen[t.Spec().Name] = true
		a.Tools = append(a.Tools, t)
	}
	return stop, nil
}

// Deactivate deactivates the skill called name, restoring any base tool
// its tools replaced, stops its MCP servers, and returns its activation.
// A run already under way keeps the tools it started with; calls of the
// stopped servers' tools then fail with an error result.
func (r *Registry) Deactivate(name string) (*Activation, error) {
	r.mu.Lock()
	i := r.find(name)
	if i < 0 {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: %q", ErrNotActive, name)
	}
	a := r.active[i]
	r.active = slices.Delete(slices.Clone(r.active), i, i+1)
	stop := r.stops[name]
	delete(r.stops, name)
	r.mu.Unlock()
	if stop != nil {
		stop()
	}
	return a, nil
}

// Close deactivates every active skill, stopping their MCP servers.
func (r *Registry) Close() {
	for _, a := range r.Active() {
		r.Deactivate(a.Skill.Name)
	}
}

func (r *Registry) find(name string) int {
	return slices.IndexFunc(r.active, func(a *Activation) bool { return a.Skill.Name == name })
}

// Active returns the active skills' activations in activation order.
func (r *Registry) Active() []*Activation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.active)
}

// Tools returns the tool set the active skills imply.
func (r *Registry) Tools() (*tool.Set, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.toolsFor(r.active)
}

// Shadowed returns, per active skill, the base tool names its tools
// replace, for a warning.
func (r *Registry) Shadowed() map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	base := map[string]bool{}
	for _, t := range r.base {
		base[t.Spec().Name] = true
	}
	out := map[string][]string{}
	for _, a := range r.active {
		for _, t := range a.Tools {
			if n := t.Spec().Name; base[n] {
				out[a.Skill.Name] = append(out[a.Skill.Name], n)
			}
		}
	}
	return out
}

// toolsFor overlays the activations' tools on the base, then narrows.
func (r *Registry) toolsFor(active []*Activation) (*tool.Set, error) {
	tools := slices.Clone(r.base)
	index := map[string]int{}
	for i, t := range tools {
		index[t.Spec().Name] = i
	}
	exempt := map[string]bool{}
	for _, k := range r.keep {
		exempt[k] = true
	}
	for _, a := range active {
		for _, t := range a.Tools {
			name := t.Spec().Name
			exempt[name] = true
			if i, ok := index[name]; ok {
				tools[i] = t
				continue
			}
			index[name] = len(tools)
			tools = append(tools, t)
		}
	}
	allow := map[string]bool{}
	for _, t := range tools {
		allow[t.Spec().Name] = true
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Spec().Name
	}
	for _, a := range active {
		if a.Skill.AllowedTools == nil {
			continue
		}
		kept, _ := Narrow(a.Skill.AllowedTools, names)
		for _, n := range names {
			if !exempt[n] && !slices.Contains(kept, n) {
				allow[n] = false
			}
		}
	}
	var out []tool.Tool
	for _, t := range tools {
		if allow[t.Spec().Name] {
			out = append(out, t)
		}
	}
	return tool.NewSet(out...)
}

// SystemPrompt returns the active skills' "# Skill: <name>" sections in
// activation order, or "".
func (r *Registry) SystemPrompt() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	for _, a := range r.active {
		parts = append(parts, a.Prompt)
	}
	return strings.Join(parts, "\n")
}

// ContextSections returns the active skills' "# Skill Context: <name>"
// sections in activation order, or "".
func (r *Registry) ContextSections() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	for _, a := range r.active {
		if a.Context != "" {
			parts = append(parts, a.Context)
		}
	}
	return strings.Join(parts, "\n")
}
