package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/telemetry/redact"
)

// Stream formats of `--output-format stream-json` (--stream-format).
const (
	streamFormatRein   = "rein"
	streamFormatClaude = "claude"
)

// validateStreamFormat checks --stream-format and --include-partial-messages
// against the output format: both describe stream-json lines only.
func validateStreamFormat(format string, in runInput) error {
	switch in.streamFormat {
	case streamFormatRein, "":
	case streamFormatClaude:
		if format != formatStreamJSON {
			return usagef("--stream-format claude needs --output-format stream-json (json output carries Claude Code's result fields already)")
		}
	default:
		return usagef("--stream-format must be rein or claude (got %q)", in.streamFormat)
	}
	if in.partialMessages && in.streamFormat != streamFormatClaude {
		return usagef("--include-partial-messages needs --output-format stream-json --stream-format claude (rein's own stream-json streams text.delta lines always)")
	}
	return nil
}

// claudeStreamRenderer prints a run as Claude Code's stream-json does:
// a system/init line, one assistant line per model answer (its text,
// thinking and tool_use blocks), one user line per batch of tool
// results, and a result line at the end of each turn. Events Claude Code
// has no line for (decisions, plans, checks, file changes) are left out;
// a compaction is a system/compact_boundary line. Sub-agents' messages
// carry their task call's id as parent_tool_use_id.
//
// Secrets are removed as in rein's stream-json: every event goes through
// redact.Memo before it is shaped, and writeJSONLine scrubs the known
// values and makes the line terminal-safe. Partial messages' text deltas
// go through a secret.Stream per agent, as streamRenderer's do; thinking
// deltas are redacted one by one, as rein's reasoning.delta lines are.
type claudeStreamRenderer struct {
	w       io.Writer
	ex      *explainer
	memo    *redact.Memo
	sc      *streamContext
	t       *resultTracker
	partial bool
	// model names the model in assistant messages (set from init).
	model string
	// usage is each agent's last reported call usage, by AgentPath.
	usage map[string]model.Usage
	// answers, order and lastDelta hold back streamed text per agent
	// (see streamRenderer).
	answers   map[string]*secret.Stream
	order     []string
	lastDelta map[string]agent.Event
}

func newClaudeStreamRenderer(w io.Writer, ex *explainer, partial bool) *claudeStreamRenderer {
	return &claudeStreamRenderer{
		w: w, ex: ex, memo: &redact.Memo{}, t: newResultTracker(), partial: partial,
		usage: map[string]model.Usage{}, answers: map[string]*secret.Stream{}, lastDelta: map[string]agent.Event{},
	}
}

// claudeInit is Claude Code's system/init line, with rein's own
// description of the session beside it.
type claudeInit struct {
	Type           string            `json:"type"`
	Subtype        string            `json:"subtype"`
	CWD            string            `json:"cwd"`
	SessionID      string            `json:"session_id"`
	Tools          []string          `json:"tools"`
	MCPServers     []streamMCPServer `json:"mcp_servers"`
	Model          string            `json:"model"`
	PermissionMode string            `json:"permissionMode"`
	SlashCommands  []string          `json:"slash_commands"`
	APIKeySource   string            `json:"apiKeySource"`
	OutputStyle    string            `json:"output_style"`
	UUID           string            `json:"uuid"`
	ReinVersion    string            `json:"rein_version"`
	Provider       string            `json:"provider"`
	Preset         string            `json:"preset"`
}

// claudeLine is an assistant, user or stream_event line.
type claudeLine struct {
	Type            string  `json:"type"`
	Message         any     `json:"message,omitempty"`
	Event           any     `json:"event,omitempty"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

// claudeAssistant is an Anthropic Messages API message.
type claudeAssistant struct {
	ID           string        `json:"id"`
	Type         string        `json:"type"`
	Role         string        `json:"role"`
	Model        string        `json:"model"`
	Content      []claudeBlock `json:"content"`
	StopReason   string        `json:"stop_reason"`
	StopSequence *string       `json:"stop_sequence"`
	Usage        jsonUsage     `json:"usage"`
}

// claudeUser is the user message that carries tool results.
type claudeUser struct {
	Role    string        `json:"role"`
	Content []claudeBlock `json:"content"`
}

// claudeBlock is one content block: text, thinking, redacted_thinking,
// tool_use or tool_result.
type claudeBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
}

func (r *claudeStreamRenderer) event(ev agent.Event) {
	r.t.observe(ev)
	if ev.Type == agent.EventTextDelta {
		if r.partial {
			r.delta(ev)
		}
		return
	}
	r.flushDeltas()
	ev = r.memo.Event(ev)
	switch ev.Type {
	case agent.EventReasoningDelta:
		if r.partial && ev.Text != "" {
			r.writeStreamEvent(ev, map[string]string{"type": "thinking_delta", "thinking": ev.Text})
		}
	case agent.EventSessionStarted:
		if ev.AgentPath == "" {
			r.writeInit(ev)
		}
	case agent.EventUsage:
		if ev.Usage != nil {
			r.usage[ev.AgentPath] = *ev.Usage
		}
	case agent.EventMessage:
		r.writeMessage(ev)
	case agent.EventCompaction:
		if ev.AgentPath == "" && ev.Compaction != nil {
			writeJSONLine(r.w, r.ex, map[string]any{
				"type": "system", "subtype": "compact_boundary", "session_id": ev.RunID, "uuid": newUUID(),
				"compact_metadata": map[string]any{"trigger": "auto", "pre_tokens": ev.Compaction.EstimatedTokens},
			})
		}
	}
}

func (r *claudeStreamRenderer) writeInit(ev agent.Event) {
	in := claudeInit{
		Type: "system", Subtype: "init", SessionID: ev.RunID, Tools: []string{}, MCPServers: []streamMCPServer{},
		SlashCommands: []string{}, APIKeySource: "none", OutputStyle: "default", UUID: newUUID(), PermissionMode: "default",
	}
	if r.sc != nil && r.sc.init != nil {
		si := r.sc.init()
		in.CWD, in.Model, in.ReinVersion, in.Provider, in.Preset = si.Workspace, si.Model, si.Version, si.Provider, si.Preset
		in.PermissionMode = permissionMode(si.Preset)
		if si.Tools != nil {
			in.Tools = si.Tools
		}
		if si.MCPServers != nil {
			in.MCPServers = si.MCPServers
		}
		r.model = si.Model
	}
	writeJSONLine(r.w, r.ex, in)
}

// permissionMode names a policy preset by the Claude Code permission
// mode closest to it: read-only asks before any change (default),
// editor edits files without asking (acceptEdits), full runs commands
// too (bypassPermissions; rein's hard denials still hold).
func permissionMode(preset string) string {
	switch preset {
	case "editor":
		return "acceptEdits"
	case "full":
		return "bypassPermissions"
	}
	return "default"
}

// writeMessage writes an assistant answer or a batch of tool results;
// user messages (the prompt, nudges) are not echoed, as in Claude Code.
func (r *claudeStreamRenderer) writeMessage(ev agent.Event) {
	m := ev.Message
	if m == nil {
		return
	}
	line := claudeLine{SessionID: ev.RunID, UUID: newUUID()}
	if ev.ParentCallID != "" {
		parent := ev.ParentCallID
		line.ParentToolUseID = &parent
	}
	switch m.Role {
	case model.RoleAssistant:
		line.Type, line.Message = "assistant", r.assistant(ev.AgentPath, *m)
	case model.RoleTool:
		line.Type, line.Message = "user", claudeUser{Role: "user", Content: toolResultBlocks(*m)}
	default:
		return
	}
	writeJSONLine(r.w, r.ex, line)
}

// assistant shapes an answer as an Anthropic message, with the usage its
// call reported.
func (r *claudeStreamRenderer) assistant(agentPath string, m model.Message) claudeAssistant {
	out := claudeAssistant{ID: "msg_" + randomHex(12), Type: "message", Role: "assistant", Model: r.model, Content: []claudeBlock{}, StopReason: "end_turn"}
	for _, p := range m.Parts {
		switch p.Kind {
		case model.PartText:
			text := p.Text
			out.Content = append(out.Content, claudeBlock{Type: "text", Text: &text})
		case model.PartReasoning:
			if p.Redacted != "" {
				out.Content = append(out.Content, claudeBlock{Type: "redacted_thinking", Data: p.Redacted})
				continue
			}
			text, sig := p.Text, p.Signature
			out.Content = append(out.Content, claudeBlock{Type: "thinking", Thinking: &text, Signature: &sig})
		case model.PartToolCall:
			if p.ToolCall == nil {
				continue
			}
			out.Content = append(out.Content, claudeBlock{Type: "tool_use", ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: toolInput(p.ToolCall.Args)})
			out.StopReason = "tool_use"
		}
	}
	if u, ok := r.usage[agentPath]; ok {
		out.Usage = jsonUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheCreationInputTokens: u.CacheWriteTokens, CacheReadInputTokens: u.CacheReadTokens}
		delete(r.usage, agentPath)
	}
	return out
}

// toolInput is a call's arguments as a tool_use input, which is always
// an object: arguments that are not one are passed as {"arguments": raw}.
func toolInput(args json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) == nil && obj != nil {
		return args
	}
	b, _ := json.Marshal(map[string]string{"arguments": string(args)})
	return b
}

// toolResultBlocks shapes a tool message's results as tool_result blocks.
func toolResultBlocks(m model.Message) []claudeBlock {
	out := []claudeBlock{}
	for _, p := range m.Parts {
		if p.Kind != model.PartToolResult || p.ToolResult == nil {
			continue
		}
		content, isErr := p.ToolResult.Content, p.ToolResult.IsError
		out = append(out, claudeBlock{Type: "tool_result", ToolUseID: p.ToolResult.CallID, Content: &content, IsError: &isErr})
	}
	return out
}

// delta holds back a text delta in its agent's secret.Stream and writes
// what the stream releases as a stream_event.
func (r *claudeStreamRenderer) delta(ev agent.Event) {
	a := r.answers[ev.AgentPath]
	if a == nil {
		a = &secret.Stream{}
		r.answers[ev.AgentPath], r.order = a, append(r.order, ev.AgentPath)
	}
	r.lastDelta[ev.AgentPath] = ev
	r.writeDelta(ev, a.Write(ev.Text))
}

// flushDeltas writes the text each stream held back.
func (r *claudeStreamRenderer) flushDeltas() {
	for _, path := range r.order {
		r.writeDelta(r.lastDelta[path], r.answers[path].Flush())
	}
}

func (r *claudeStreamRenderer) writeDelta(ev agent.Event, text string) {
	if text == "" {
		return
	}
	r.writeStreamEvent(ev, map[string]string{"type": "text_delta", "text": r.memo.String(text)})
}

// writeStreamEvent writes a content_block_delta stream_event.
func (r *claudeStreamRenderer) writeStreamEvent(ev agent.Event, delta map[string]string) {
	line := claudeLine{Type: "stream_event", SessionID: ev.RunID, UUID: newUUID(), Event: map[string]any{
		"type": "content_block_delta", "index": 0, "delta": delta,
	}}
	if ev.ParentCallID != "" {
		parent := ev.ParentCallID
		line.ParentToolUseID = &parent
	}
	writeJSONLine(r.w, r.ex, line)
}

// finish writes the turn's result line and starts the next turn's
// measures (stream-json input runs several turns on one renderer).
func (r *claudeStreamRenderer) finish(out *agent.Outcome, problem string) {
	r.flushDeltas()
	writeJSONLine(r.w, r.ex, r.t.result(r.ex, out, problem))
	r.t.reset()
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
