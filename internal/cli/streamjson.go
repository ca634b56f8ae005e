package cli

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/workspace"
)

// streamLine is one stream-json line: the agent event as it always was,
// plus the fields a driving program needs and would otherwise have to dig
// out of text. Every addition is omitted where it does not apply, so the
// lines of earlier versions parse the same.
type streamLine struct {
	agent.Event
	// *streamInit is set on session.started: what Claude Code's
	// system/init carries.
	*streamInit
	// ExitCode and DurationMS are set on a run_command tool.result.
	ExitCode   *int   `json:"exit_code,omitempty"`
	DurationMS *int64 `json:"duration_ms,omitempty"`
	// Files are the files a tool.result's call changed.
	Files []fileStat `json:"files,omitempty"`
	// Cause is an error event's raw error; Event.Err is then the one-line
	// message text output prints.
	Cause string `json:"cause,omitempty"`
}

// streamInit describes the session a run starts in.
type streamInit struct {
	Version    string            `json:"version"`
	Model      string            `json:"model"`
	Provider   string            `json:"provider"`
	Workspace  string            `json:"workspace"`
	Preset     string            `json:"preset"`
	Tools      []string          `json:"tools"`
	MCPServers []streamMCPServer `json:"mcp_servers"`
}

// streamMCPServer is one configured MCP server and its state.
type streamMCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// fileStat is one file a call changed. The line counts are absent when the
// workspace journal did not keep the contents (over its per-file cap).
type fileStat struct {
	Path         string `json:"path"`
	Kind         string `json:"kind"`
	LinesAdded   *int   `json:"lines_added,omitempty"`
	LinesRemoved *int   `json:"lines_removed,omitempty"`
}

// streamContext is what the stream renderer knows beside the events.
type streamContext struct {
	// init describes the session; it is called at each session.started,
	// after the MCP servers were refreshed, so their tools are listed.
	init func() *streamInit
	// ws is the workspace whose journal says which files a call changed.
	ws *workspace.Workspace

	mu      sync.Mutex
	seenSeq int64
	// keys maps call ids to idempotency keys, which name the call in the
	// workspace journal; pending holds changes not yet reported, by key.
	keys    map[string]string
	pending map[string][]workspace.Change
}

// harnessStreamContext builds the stream context of a run from its harness.
func harnessStreamContext(cfg modelInfo, h *harness) *streamContext {
	sc := &streamContext{ws: h.ws, keys: map[string]string{}, pending: map[string][]workspace.Change{}}
	if cs := h.ws.Changes(); len(cs) > 0 {
		sc.seenSeq = cs[len(cs)-1].Seq
	}
	sc.init = func() *streamInit {
		return &streamInit{
			Version: versionString(version, readBuildInfo()), Model: cfg.model, Provider: cfg.provider,
			Workspace: h.ws.Dir(), Preset: string(h.engine.Preset()), Tools: h.tools.Names(), MCPServers: h.mcp.serverStates(),
		}
	}
	return sc
}

// modelInfo names the model and provider a run uses.
type modelInfo struct{ model, provider string }

// line builds the stream line of ev.
func (sc *streamContext) line(ev agent.Event) streamLine {
	l := streamLine{Event: ev}
	if sc == nil {
		return l
	}
	switch ev.Type {
	case agent.EventSessionStarted:
		if sc.init != nil {
			l.streamInit = sc.init()
		}
	case agent.EventToolCall:
		if ev.ToolCall != nil && ev.IdempotencyKey != "" {
			sc.mu.Lock()
			sc.keys[ev.ToolCall.ID] = ev.IdempotencyKey
			sc.mu.Unlock()
		}
	case agent.EventToolResult:
		if ev.ToolResult == nil {
			break
		}
		if ev.ToolResult.Name == "run_command" && len(ev.ToolStructured) > 0 {
			var out struct {
				ExitCode   *int   `json:"exit_code"`
				DurationMS *int64 `json:"duration_ms"`
			}
			if json.Unmarshal(ev.ToolStructured, &out) == nil {
				l.ExitCode, l.DurationMS = out.ExitCode, out.DurationMS
			}
		}
		l.Files = sc.filesOf(ev.ToolResult.CallID)
	}
	return l
}

// filesOf returns the changes the call made, from the workspace journal.
func (sc *streamContext) filesOf(callID string) []fileStat {
	if sc.ws == nil {
		return nil
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	key, ok := sc.keys[callID]
	if !ok {
		return nil // a read-only call changes nothing
	}
	delete(sc.keys, callID)
	for _, c := range sc.ws.ChangesSince(sc.seenSeq) {
		sc.seenSeq = c.Seq
		sc.pending[c.CallID] = append(sc.pending[c.CallID], c)
	}
	changes := sc.pending[key]
	delete(sc.pending, key)
	var out []fileStat
	for _, c := range changes {
		fs := fileStat{Path: c.Path, Kind: c.Kind()}
		if added, removed, ok := lineCounts(c); ok {
			fs.LinesAdded, fs.LinesRemoved = &added, &removed
		}
		out = append(out, fs)
	}
	return out
}

// lineCounts counts the lines a change added and removed, from a unified
// diff of its two sides; ok is false when a side's content was not kept.
func lineCounts(c workspace.Change) (added, removed int, ok bool) {
	if (c.Before.Exists && !c.Before.Stored) || (c.After.Exists && !c.After.Stored) {
		return 0, 0, false
	}
	d := workspace.UnifiedDiff("a", "b", c.Before.Data, c.After.Data)
	for i, l := range strings.Split(d, "\n") {
		if i < 2 { // the ---/+++ header
			continue
		}
		switch {
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed, true
}

// serverStates lists the configured MCP servers and their states, waiting
// briefly for servers still connecting (the run does not wait for them).
func (t *mcpTools) serverStates() []streamMCPServer {
	out := []streamMCPServer{}
	if t == nil || t.m == nil {
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	for _, st := range t.m.Status(ctx) {
		out = append(out, streamMCPServer{Name: st.Name, Status: string(st.State)})
	}
	return out
}

// equipRenderer gives the json and stream-json renderers what they show
// beside the events: the session's description and the workspace journal
// (stream-json), the model's prices (json's cost).
func equipRenderer(r renderer, cfg *config.Config, h *harness) {
	switch r := r.(type) {
	case *streamRenderer:
		r.sc = harnessStreamContext(modelInfo{model: cfg.Model.Model, provider: cfg.Model.Provider}, h)
	case *jsonRenderer:
		r.t.inputPrice, r.t.outputPrice = cfg.Model.InputPrice, cfg.Model.OutputPrice
	case *claudeStreamRenderer:
		r.sc = harnessStreamContext(modelInfo{model: cfg.Model.Model, provider: cfg.Model.Provider}, h)
		r.t.inputPrice, r.t.outputPrice = cfg.Model.InputPrice, cfg.Model.OutputPrice
	}
}
