package mcp

import (
	"context"
	"sync"
)

// State is a server's connection state.
type State string

// States.
const (
	StateConnected  State = "connected"
	StateConnecting State = "connecting"
	StateFailed     State = "failed"
	StateDisabled   State = "disabled"
)

// Status describes one configured server for `rein mcp list`.
type Status struct {
	Name  string
	State State
	// Transport is how rein reached the server (stdio, streamable, sse),
	// or the configured transport while it has not connected.
	Transport Transport
	// Era is the negotiated protocol version ("2026-07-28",
	// "2025-11-25", …), "" before the first connection.
	Era string
	// ServerName and ServerVersion are what the server calls itself.
	ServerName, ServerVersion string
	// Tools are the exposed tool names; Resources and Prompts say whether
	// the server offers them.
	Tools []string
	// Tasks says, for each exposed tool that lists task support (by its
	// exposed name), how rein calls it; Hidden lists the tools withheld
	// because they must run as tasks and rein cannot run tasks with this
	// server.
	Tasks     map[string]TaskUse
	Hidden    []HiddenTool
	Resources bool
	Prompts   bool
	// Icon is the server's icon when it embeds one rein can draw.
	Icon     *Icon
	Err      error
	Required bool
	Source   string
}

// Status reports every configured server, in name order, waiting for each
// enabled server's first connection attempt (at most its startup timeout).
func (m *Manager) Status(ctx context.Context) []Status {
	m.Start()
	byName := map[string]*server{}
	for _, s := range m.servers {
		byName[s.cfg.Name] = s
	}
	out := make([]Status, len(m.all))
	var wg sync.WaitGroup
	for i, sc := range m.all {
		out[i] = Status{Name: sc.Name, State: StateDisabled, Transport: sc.Transport, Required: sc.Required, Source: sc.Source}
		s, ok := byName[sc.Name]
		if !ok {
			continue
		}
		wg.Go(func() {
			tools, _ := s.toolsForModel(ctx, noGrace)
			sess, era, tr, lastErr, dialing := s.state()
			st := &out[i]
			st.Era, st.Err = era, lastErr
			if tr != "" {
				st.Transport = tr
			}
			switch {
			case sess != nil:
				st.State = StateConnected
			case dialing:
				st.State = StateConnecting
			default:
				st.State = StateFailed
			}
			var exposed []*mcpTool
			for _, t := range tools {
				st.Tools = append(st.Tools, t.Spec().Name)
				if mt, ok := t.(*mcpTool); ok {
					exposed = append(exposed, mt)
				}
			}
			if sess != nil {
				s.taskStatus(st, sess, exposed)
			}
			s.mu.Lock()
			l := s.listing
			s.mu.Unlock()
			if l.info != nil {
				st.ServerName, st.ServerVersion = l.info.Name, l.info.Version
				st.Icon = serverIcon(l.info)
			}
			if l.caps != nil {
				st.Resources, st.Prompts = l.caps.Resources != nil, l.caps.Prompts != nil
			}
		})
	}
	wg.Wait()
	return out
}
