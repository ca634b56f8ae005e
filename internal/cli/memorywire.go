package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/memory"
	"github.com/reinharness/rein/tool"
)

// errMemoryUnavailable wraps a memory store that cannot be opened: the
// run goes on without memory, with a warning.
var errMemoryUnavailable = errors.New("the memory store is unavailable")

// memorySection is the [memory] table of a configuration file.
type memorySection struct {
	Enabled *bool `toml:"enabled"`
}

// memoryEnabled reads [memory] enabled from every layer: any layer's
// false turns memory off — a project may switch it off (tightening) but
// never back on after the user did.
func memoryEnabled(cfg *config.Config) (bool, error) {
	on := true
	for _, sec := range cfg.Sections("memory") {
		var t memorySection
		if err := sec.Decode(&t); err != nil {
			return false, err
		}
		if t.Enabled != nil && !*t.Enabled {
			on = false
		}
	}
	return on, nil
}

// memoryWiring is a harness's memory: the store, the workspace key, the
// provenance tracker fed by the agent's tool results, and the session id
// the tools record (bound once the agent exists).
type memoryWiring struct {
	store     memory.Store
	workspace string
	prov      *memory.Provenance
	mu        sync.Mutex
	sessionID func() string
	// index is the section the harness's system prompt was built with,
	// so a worker that builds its harness once can swap in a fresh one
	// per session (refreshSystem).
	index string
}

// openMemory opens the memory store unless --no-memory or [memory]
// enabled = false say not to; nil then.
func openMemory(cfg *config.Config, stateDir, workspace string, off bool) (*memoryWiring, error) {
	if off {
		return nil, nil
	}
	on, err := memoryEnabled(cfg)
	if err != nil || !on {
		return nil, err
	}
	mc := memory.Config{Path: filepath.Join(stateDir, memory.DatabaseFile)}
	w := &memoryWiring{workspace: host.CanonicalDir(workspace), prov: memory.NewProvenance()}
	if _, err := os.Stat(mc.Path); errors.Is(err, fs.ErrNotExist) {
		// Nothing to read yet: the database is created by the first
		// remember, not on the way to every first model request.
		w.store = memory.Lazy(mc)
		return w, nil
	}
	s, err := memory.OpenSQLite(context.Background(), mc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w; running without memory (--no-memory silences this)", errMemoryUnavailable, err)
	}
	w.store = s
	return w, nil
}

func (m *memoryWiring) close() {
	if m != nil {
		m.store.Close()
	}
}

// tools returns remember, recall and forget bound to this workspace.
func (m *memoryWiring) tools() []tool.Tool {
	if m == nil {
		return nil
	}
	return memory.Tools(memory.ToolsConfig{Store: m.store, Workspace: m.workspace, Provenance: m.prov, SessionID: m.session})
}

func (m *memoryWiring) session() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessionID == nil {
		return ""
	}
	return m.sessionID()
}

// bind records the session the tools write for and returns the hook that
// feeds every tool result (but the memory tools' own) to the provenance
// tracker, so text copied from one is stored marked tool-derived.
func (m *memoryWiring) bind(id func() string) agent.Hook {
	m.mu.Lock()
	m.sessionID = id
	m.mu.Unlock()
	return agent.HookFunc(func(_ context.Context, ev agent.Event) {
		if r := ev.ToolResult; r != nil && !memory.IsTool(r.Name) {
			m.prov.Observe(r.Content)
		}
	})
}

// systemSection is the capped, escaped index of the memories most
// relevant to prompt (by recency when it is empty) for the system prompt
// the harness is built with; "" when there are none or the memory tools
// are disabled.
func (m *memoryWiring) systemSection(set *tool.Set, prompt string) string {
	idx := m.indexFor(set, prompt)
	if m != nil {
		m.mu.Lock()
		m.index = idx
		m.mu.Unlock()
	}
	return idx
}

func (m *memoryWiring) indexFor(set *tool.Set, prompt string) string {
	if m == nil {
		return ""
	}
	if _, ok := set.Get(memory.RecallTool); !ok {
		return ""
	}
	idx, err := memory.Index(context.Background(), m.store, memory.IndexOptions{Workspace: m.workspace, Prompt: prompt})
	if err != nil {
		return "" // memory is a help, never a reason to refuse a run
	}
	return idx
}

// refreshSystem returns system (built with the index of an earlier
// systemSection call) with today's index in its place: a Temporal worker
// builds its harness once, and every session it starts must see the
// memories as they are when it starts.
func (m *memoryWiring) refreshSystem(system string, set *tool.Set) string {
	if m == nil {
		return system
	}
	m.mu.Lock()
	old := m.index
	m.mu.Unlock()
	fresh := m.indexFor(set, "")
	switch {
	case old != "" && strings.HasSuffix(system, "\n\n"+old):
		system = strings.TrimSuffix(system, "\n\n"+old)
	case old != "":
		return system // not the prompt this wiring built: leave it
	}
	if fresh == "" {
		return system
	}
	return system + "\n\n" + fresh
}

// teamMemoryFile is the committed, shared notes file of a workspace.
const teamMemoryFile = ".rein/memory.md"

// maxTeamMemory caps what of .rein/memory.md reaches the system prompt.
const maxTeamMemory = 16 << 10

// withTeamMemory appends the workspace's .rein/memory.md to the system
// prompt as the project's notes: a project file, so it adds to rein's
// prompt under its own label and never replaces it, like the project's
// [agent] system_prompt.
func withTeamMemory(system, workspace string) string {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return system
	}
	defer root.Close()
	data, err := root.ReadFile(teamMemoryFile)
	if err != nil || strings.TrimSpace(string(data)) == "" {
		return system
	}
	if len(data) > maxTeamMemory {
		data = append(data[:maxTeamMemory], "\n[truncated]"...)
	}
	return system + "\n\n# Project notes from " + teamMemoryFile + " (the project's shared memory)\n\n" + strings.TrimSpace(string(data))
}

// ObserveResult implements engine.ResultObserver: a worker's tool results
// feed the tool-derived rule as the agent's hook does for rein run. One
// worker serves many sessions of a workspace, so its tracker spans them:
// it marks more, never less.
func (w *temporalWorkspace) ObserveResult(ctx context.Context, preset, name, content string) {
	if memory.IsTool(name) {
		return
	}
	if p, err := w.get(ctx, preset); err == nil && p.h.mem != nil {
		p.h.mem.prov.Observe(content)
	}
}
