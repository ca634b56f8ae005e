package acp

import "encoding/json"

// ProtocolVersion is the ACP version this package speaks (the stable
// schema of @agentclientprotocol/sdk 2.4.0).
const ProtocolVersion = 1

// Methods the agent answers, and the ones it calls on the client.
const (
	MethodInitialize     = "initialize"
	MethodAuthenticate   = "authenticate"
	MethodSessionNew     = "session/new"
	MethodSessionLoad    = "session/load"
	MethodSessionPrompt  = "session/prompt"
	MethodSessionCancel  = "session/cancel"
	MethodSessionSetMode = "session/set_mode"

	MethodSessionUpdate     = "session/update"
	MethodRequestPermission = "session/request_permission"
	MethodReadTextFile      = "fs/read_text_file"
	MethodWriteTextFile     = "fs/write_text_file"
	MethodCreateElicitation = "elicitation/create"
)

// InitializeParams opens the connection.
type InitializeParams struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
}

// ClientCapabilities are what the client offers the agent.
type ClientCapabilities struct {
	FS       FSCapabilities `json:"fs"`
	Terminal bool           `json:"terminal,omitempty"`
	// Elicitation is nil when the client cannot ask its user; Form and
	// URL are non-nil ({}) for the modes it can.
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
}

// ElicitationCapabilities say which elicitation modes the client shows.
type ElicitationCapabilities struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// CreateElicitationParams is elicitation/create, tied to a session (and
// the tool call that asked, when known). Form mode carries
// RequestedSchema; URL mode carries URL and ElicitationID.
type CreateElicitationParams struct {
	SessionID       string          `json:"sessionId"`
	ToolCallID      string          `json:"toolCallId,omitempty"`
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// CreateElicitationResult is the client's answer: Action "accept" (with
// Content in form mode), "decline" or "cancel".
type CreateElicitationResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// FSCapabilities say which file methods the client answers.
type FSCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AuthMethods       []AuthMethod      `json:"authMethods"`
	AgentInfo         *Implementation   `json:"agentInfo,omitempty"`
}

// AgentCapabilities are what the agent offers.
type AgentCapabilities struct {
	LoadSession        bool               `json:"loadSession"`
	PromptCapabilities PromptCapabilities `json:"promptCapabilities"`
	MCPCapabilities    MCPCapabilities    `json:"mcpCapabilities"`
}

// PromptCapabilities say which content blocks a prompt may carry beyond
// text and resource links.
type PromptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

// MCPCapabilities say which MCP transports session/new accepts beyond stdio.
type MCPCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// AuthMethod is one way to authenticate.
type AuthMethod struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Implementation names a program.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// NameValue is an environment variable or an HTTP header.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MCPServer is a server the client asks the session to use: stdio
// (Command) or, with Type "http" or "sse", URL.
type MCPServer struct {
	Type    string      `json:"type,omitempty"`
	Name    string      `json:"name"`
	Command string      `json:"command,omitempty"`
	Args    []string    `json:"args,omitempty"`
	Env     []NameValue `json:"env,omitempty"`
	URL     string      `json:"url,omitempty"`
	Headers []NameValue `json:"headers,omitempty"`
}

// NewSessionParams opens a session.
type NewSessionParams struct {
	CWD        string      `json:"cwd"`
	MCPServers []MCPServer `json:"mcpServers"`
}

// LoadSessionParams resumes a stored session.
type LoadSessionParams struct {
	SessionID  string      `json:"sessionId"`
	CWD        string      `json:"cwd"`
	MCPServers []MCPServer `json:"mcpServers"`
}

// SessionResult answers session/new (with SessionID) and session/load.
type SessionResult struct {
	SessionID string        `json:"sessionId,omitempty"`
	Modes     *SessionModes `json:"modes,omitempty"`
}

// SessionModes lists the session's modes and the current one.
type SessionModes struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []SessionMode `json:"availableModes"`
}

// SessionMode is one mode.
type SessionMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// SetModeParams switches a session's mode.
type SetModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

// PromptParams is one user turn.
type PromptParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
}

// PromptResult ends a turn.
type PromptResult struct {
	StopReason string `json:"stopReason"`
}

// Stop reasons.
const (
	StopEndTurn         = "end_turn"
	StopMaxTokens       = "max_tokens"
	StopMaxTurnRequests = "max_turn_requests"
	StopRefusal         = "refusal"
	StopCancelled       = "cancelled"
)

// CancelParams cancels a session's turn.
type CancelParams struct {
	SessionID string `json:"sessionId"`
}

// ContentBlock is a piece of a prompt or of the agent's output.
type ContentBlock struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	Data     string            `json:"data,omitempty"`
	MimeType string            `json:"mimeType,omitempty"`
	URI      string            `json:"uri,omitempty"`
	Name     string            `json:"name,omitempty"`
	Resource *EmbeddedResource `json:"resource,omitempty"`
}

// EmbeddedResource is a resource's content inlined in a prompt.
type EmbeddedResource struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// TextBlock is a text content block.
func TextBlock(s string) ContentBlock { return ContentBlock{Type: "text", Text: s} }

// SessionNotification carries one session/update.
type SessionNotification struct {
	SessionID string        `json:"sessionId"`
	Update    SessionUpdate `json:"update"`
}

// SessionUpdate is one update; SessionUpdate names its kind and the other
// fields are set according to it.
type SessionUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	// Chunk is a chunk's content (message and thought chunks), sent as
	// "content" like a tool call's content list (see MarshalJSON).
	Chunk *ContentBlock `json:"-"`
	ToolCall
	// Entries is a plan's entries.
	Entries []PlanEntry `json:"entries,omitempty"`
	// CurrentModeID is a current_mode_update's mode.
	CurrentModeID string `json:"currentModeId,omitempty"`
	// AvailableCommands are an available_commands_update's commands.
	AvailableCommands []AvailableCommand `json:"availableCommands,omitempty"`
}

// AvailableCommand is a slash command the user may type.
type AvailableCommand struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Input       *CommandInput `json:"input,omitempty"`
}

// CommandInput describes a command's free-text argument.
type CommandInput struct {
	Hint string `json:"hint"`
}

// MarshalJSON writes Chunk as the update's content: the two "content"
// members, a chunk's block and a tool call's list, never meet in one update.
func (u SessionUpdate) MarshalJSON() ([]byte, error) {
	type plain SessionUpdate
	if u.Chunk == nil {
		return json.Marshal(plain(u))
	}
	return json.Marshal(struct {
		plain
		Content *ContentBlock `json:"content"`
	}{plain(u), u.Chunk})
}

// Update kinds.
const (
	UpdateUserMessage    = "user_message_chunk"
	UpdateAgentMessage   = "agent_message_chunk"
	UpdateAgentThought   = "agent_thought_chunk"
	UpdateToolCall       = "tool_call"
	UpdateToolCallUpdate = "tool_call_update"
	UpdatePlan           = "plan"
	UpdateCurrentMode    = "current_mode_update"
	UpdateCommands       = "available_commands_update"
)

// ToolCall describes a tool call in a tool_call or tool_call_update, and
// in a permission request.
type ToolCall struct {
	ToolCallID string             `json:"toolCallId,omitempty"`
	Title      string             `json:"title,omitempty"`
	Kind       string             `json:"kind,omitempty"`
	Status     string             `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
}

// Tool call statuses.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// ToolCallContent is a tool call's output: Type "content" (Content) or
// "diff" (Path, OldText, NewText).
type ToolCallContent struct {
	Type    string        `json:"type"`
	Content *ContentBlock `json:"content,omitempty"`
	Path    string        `json:"path,omitempty"`
	// OldText is nil for a file the edit creates.
	OldText *string `json:"oldText,omitempty"`
	NewText *string `json:"newText,omitempty"`
}

// ToolCallLocation is a file a tool call touches.
type ToolCallLocation struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// PlanEntry is one item of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// RequestPermissionParams asks the user about a tool call.
type RequestPermissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCall           `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

// PermissionOption is one answer the user may give.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// Permission option kinds.
const (
	AllowOnce    = "allow_once"
	AllowAlways  = "allow_always"
	RejectOnce   = "reject_once"
	RejectAlways = "reject_always"
)

// RequestPermissionResult is the user's answer.
type RequestPermissionResult struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // "selected" or "cancelled"
		OptionID string `json:"optionId,omitempty"`
	} `json:"outcome"`
}

// ReadTextFileParams asks the client for a file's text (its buffer when open).
type ReadTextFileParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line,omitempty"`
	Limit     *int   `json:"limit,omitempty"`
}

// ReadTextFileResult is the file's text.
type ReadTextFileResult struct {
	Content string `json:"content"`
}

// WriteTextFileParams asks the client to write a file.
type WriteTextFileParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}
