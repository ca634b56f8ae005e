package cli

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/command"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/acp"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// acpSession is one ACP session: a rein session with its own harness and
// agent, in the workspace the editor named.
type acpSession struct {
	srv  *acpServer
	id   string
	cfg  *config.Config
	sr   *sessionRun
	h    *harness
	ag   *agent.Agent
	conv *agent.Conversation
	ex   *explainer
	tc   *acpToolCalls
	// outputs are the running calls' output so far (toolOutput).
	outMu   sync.Mutex
	outputs map[string]string
	// cmds are the custom commands the prompt may name.
	cmds *command.Set
	// writeThrough is set when the editor takes files (fs.writeTextFile).
	writeThrough bool

	mu     sync.Mutex
	cancel context.CancelFunc // the running turn's; nil when idle
}

func (sess *acpSession) modelCfg() config.ModelConfig {
	if sess == nil || sess.cfg == nil {
		return config.ModelConfig{}
	}
	return sess.cfg.Model
}

// open builds the session on the composition root the other front ends
// use: configuration, stored session, harness, agent.
func (s *acpServer) open(cwd, load string, extra []mcp.ServerConfig) (*acpSession, error) {
	f := s.flags
	f.workspace = cwd
	f.session = sessionFlags{id: load}
	cfg, wsDir, err := s.a.load(&f)
	if err != nil {
		return nil, err
	}
	sess := &acpSession{srv: s, cfg: cfg, ex: newExplainer(cfg.Model)}
	if sess.sr, err = s.a.openSession(s.base, &f.session, f.stateDirFlag(), cfg, wsDir); err != nil {
		return sess, err
	}
	h, err := s.a.newHarness(cfg, harnessOptions{workspace: wsDir, flags: &f, extraServers: extra,
		interaction: func(hi *headlessInteraction) mcp.Interaction {
			return &acpInteraction{headlessInteraction: hi, sess: sess}
		}})
	if err != nil {
		sess.sr.close()
		return sess, err
	}
	sess.h = h
	sess.cmds = s.a.loadCommands(wsDir)
	sess.outputs = map[string]string{}
	h.toolProgress = sess.toolOutput
	sess.sr.watchWorkspace(h.ws)
	sess.mu.Lock()
	sess.id = sess.sr.ID()
	sess.mu.Unlock()
	sess.tc = newACPToolCalls(h.ws)
	if f.approve == approveAsk {
		// The editor answers: nobody is on rein's terminal.
		h.approver = newACPApprover(sess, host.NewPermissionStore(host.StateDir(f.stateDirFlag(), s.a.Getenv)))
		if h.verify != nil {
			spec := tool.Spec{Name: commandTool}
			if t, ok := h.tools.Get(commandTool); ok {
				spec = t.Spec()
			}
			h.verify.useGate(h.modes, h.approver, spec)
		}
	}
	s.mu.Lock()
	fs := s.client.FS
	s.mu.Unlock()
	sess.useClientFS(fs)
	ag, parts, err := s.a.newAgent(cfg, h, sess.sr)
	if err != nil {
		sess.close()
		return sess, err
	}
	sess.ag, sess.conv = ag, sess.sr.Conversation()
	host.RestoreSummaries(sess.sr.Resumed(), parts.summarize, sess.conv)
	h.useModel(parts.provider, cfg.Model, sess.ex)
	return sess, nil
}

// acpServers converts the editor's MCP servers to rein's. They come from
// the user's editor, so they start as the user's own servers would, never
// under a repository's trust rules.
func acpServers(in []acp.MCPServer) ([]mcp.ServerConfig, error) {
	var out []mcp.ServerConfig
	for _, s := range in {
		if s.Name == "" {
			return nil, acp.Errorf(acp.CodeInvalidParams, "an MCP server needs a name")
		}
		sc := mcp.ServerConfig{Name: s.Name}
		switch s.Type {
		case "", "stdio":
			if s.Command == "" {
				return nil, acp.Errorf(acp.CodeInvalidParams, "MCP server %q needs a command", s.Name)
			}
			sc.Command, sc.Args, sc.Transport = s.Command, s.Args, mcp.TransportStdio
			sc.Env = mcp.Secrets{}
			for _, e := range s.Env {
				sc.Env[e.Name] = e.Value
			}
		case "http":
			if s.URL == "" {
				return nil, acp.Errorf(acp.CodeInvalidParams, "MCP server %q needs a url", s.Name)
			}
			sc.URL, sc.Transport = s.URL, mcp.TransportStreamable
			sc.Headers = mcp.Secrets{}
			for _, h := range s.Headers {
				sc.Headers[h.Name] = h.Value
			}
		default:
			return nil, acp.Errorf(acp.CodeInvalidParams, "MCP server %q: transport %q is not offered (stdio and http are)", s.Name, s.Type)
		}
		out = append(out, sc)
	}
	return out, nil
}

// prompt runs one turn. A second prompt while one runs is refused: the
// conversation has one writer.
func (sess *acpSession) prompt(ctx context.Context, blocks []acp.ContentBlock) (*acp.PromptResult, error) {
	text, err := promptText(blocks)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sess.mu.Lock()
	if sess.cancel != nil {
		sess.mu.Unlock()
		return nil, errBusy
	}
	sess.cancel = cancel
	sess.mu.Unlock()
	defer func() {
		sess.mu.Lock()
		sess.cancel = nil
		sess.mu.Unlock()
	}()
	if err := sess.h.mcp.refresh(ctx); err != nil && ctx.Err() == nil {
		return nil, acp.Errorf(acp.CodeInternalError, "%s", textclip.FirstLine(sess.ex.scrub(err.Error())))
	}
	text, opts, release, err := sess.expandPrompt(ctx, text, sess.srv.a.Stderr)
	if err != nil {
		return nil, err
	}
	if release != nil {
		defer release()
	}
	out, runErr := drain(sess.ag.RunWith(retriesTo(ctx, sess.srv.a.Stderr), sess.conv, text, opts), sess.event)
	switch {
	case ctx.Err() != nil:
		return &acp.PromptResult{StopReason: acp.StopCancelled}, nil
	case out == nil || out.Kind == agent.Failed:
		if runErr == nil && out != nil && out.Err != "" {
			return nil, acp.Errorf(acp.CodeInternalError, "%s", textclip.FirstLine(sess.ex.scrub(out.Err)))
		}
		if runErr == nil {
			return nil, acp.Errorf(acp.CodeInternalError, "the turn ended without an outcome")
		}
		return nil, acp.Errorf(acp.CodeInternalError, "%s", sess.ex.errorLine(runErr))
	}
	if out.Kind != agent.Complete && out.Kind != agent.Cancelled {
		// Say why the turn stopped short: ACP's stop reasons do not.
		sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateAgentMessage, Chunk: ptr(acp.TextBlock("\n\nrein: " + sess.ex.outcomeLine(out, sess.cfg)))})
	}
	return &acp.PromptResult{StopReason: stopReason(out)}, nil
}

func ptr[T any](v T) *T { return &v }

// cancelTurn cancels the running turn, if any: the model stream, the
// running tools and their sub-agents all end with its context.
func (sess *acpSession) cancelTurn() {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.cancel != nil {
		sess.cancel()
	}
}

// setMode switches the session's preset.
func (sess *acpSession) setMode(id string) error {
	p, err := sess.h.modes.Set(policy.Preset(id))
	if err != nil {
		return acp.Errorf(acp.CodeInvalidParams, "unknown mode %q (read-only, editor or full)", id)
	}
	sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateCurrentMode, CurrentModeID: string(p)})
	return nil
}

// send notifies the client of one update; a client that left is noticed
// by the connection, so the error is dropped here.
func (sess *acpSession) send(u acp.SessionUpdate) {
	_ = sess.srv.conn.Notify(acp.MethodSessionUpdate, acp.SessionNotification{SessionID: sess.id, Update: u})
}

// replay sends a loaded session's history as updates, so the editor shows
// the conversation it resumes.
func (sess *acpSession) replay() {
	for _, m := range sess.conv.Messages() {
		for _, p := range m.Parts {
			switch {
			case p.Kind == model.PartText && m.Role == model.RoleUser:
				sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateUserMessage, Chunk: ptr(acp.TextBlock(p.Text))})
			case p.Kind == model.PartText && m.Role == model.RoleAssistant:
				sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateAgentMessage, Chunk: ptr(acp.TextBlock(p.Text))})
			case p.Kind == model.PartReasoning:
				sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateAgentThought, Chunk: ptr(acp.TextBlock(p.Text))})
			case p.ToolCall != nil:
				tc := sess.tc.describe(*p.ToolCall)
				tc.Status = acp.StatusCompleted
				sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateToolCall, ToolCall: tc})
			case p.ToolResult != nil:
				sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateToolCallUpdate, ToolCall: resultUpdate(*p.ToolResult, nil)})
			}
		}
	}
}

// event maps one agent event to the session's updates. Sub-agents'
// events stay inside their task call.
func (sess *acpSession) event(ev agent.Event) {
	if ev.AgentPath != "" {
		return
	}
	switch ev.Type {
	case agent.EventTextDelta:
		sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateAgentMessage, Chunk: ptr(acp.TextBlock(ev.Text))})
	case agent.EventReasoningDelta:
		sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateAgentThought, Chunk: ptr(acp.TextBlock(ev.Text))})
	case agent.EventToolCall:
		if ev.ToolCall == nil {
			return
		}
		sess.tc.started(ev.ToolCall.ID, ev.IdempotencyKey)
		tc := sess.tc.describe(*ev.ToolCall)
		tc.Status = acp.StatusPending
		sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateToolCall, ToolCall: tc})
	case agent.EventToolDecision:
		if ev.Decision != nil && ev.Decision.Action == "allow" {
			sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateToolCallUpdate, ToolCall: acp.ToolCall{ToolCallID: ev.Decision.CallID, Status: acp.StatusInProgress}})
		}
	case agent.EventToolResult:
		if ev.ToolResult == nil {
			return
		}
		sess.outputDone(ev.ToolResult.CallID)
		diffs := sess.tc.diffs(ev.ToolResult.CallID)
		sess.writeThroughClient(diffs)
		sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateToolCallUpdate, ToolCall: resultUpdate(*ev.ToolResult, diffs)})
	case agent.EventPlanUpdated:
		entries := []acp.PlanEntry{}
		for _, it := range ev.Plan {
			entries = append(entries, acp.PlanEntry{Content: it.Content, Priority: "medium", Status: string(it.Status)})
		}
		sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdatePlan, Entries: entries})
	}
}

// maxToolText bounds the text of a tool result shown in the editor.
const maxToolText = 64 << 10

// resultUpdate is the tool_call_update of a finished call: its text, then
// the diffs of the files it changed.
func resultUpdate(r model.ToolResult, diffs []acp.ToolCallContent) acp.ToolCall {
	tc := acp.ToolCall{ToolCallID: r.CallID, Status: acp.StatusCompleted}
	if r.IsError {
		tc.Status = acp.StatusFailed
	}
	text := r.Content
	if len(text) > maxToolText {
		text = text[:maxToolText] + "\n… (clipped)"
	}
	if text != "" {
		tc.Content = append(tc.Content, acp.ToolCallContent{Type: "content", Content: ptr(acp.TextBlock(text))})
	}
	tc.Content = append(tc.Content, diffs...)
	if raw, err := json.Marshal(map[string]any{"content": r.Content, "is_error": r.IsError}); err == nil {
		tc.RawOutput = raw
	}
	return tc
}

// close cancels the turn and releases the session.
func (sess *acpSession) close() {
	sess.cancelTurn()
	if sess.h != nil {
		sess.h.close()
	}
	if sess.sr != nil {
		sess.sr.close()
	}
}
