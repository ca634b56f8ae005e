package openai

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/reinharness/rein/model"
)

// reservedExtra are body keys the provider owns; Request.Extra may not set
// them because that would desynchronise the request from how the response
// is parsed (stream) or from the conversation state (messages, tools).
var reservedExtra = map[string]bool{
	"model": true, "messages": true, "tools": true, "tool_choice": true,
	"stream": true, "stream_options": true,
}

// chatRequest is the Chat Completions request body.
type chatRequest struct {
	Model           string          `json:"model,omitempty"`
	Messages        []wireMessage   `json:"messages"`
	Tools           []wireTool      `json:"tools,omitempty"`
	ToolChoice      any             `json:"tool_choice,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	TopP            *float64        `json:"top_p,omitempty"`
	MaxTokens       int             `json:"max_tokens,omitempty"`
	Stop            []string        `json:"stop,omitempty"`
	Seed            *int64          `json:"seed,omitempty"`
	ResponseFormat  json.RawMessage `json:"response_format,omitempty"`
	ReasoningEffort string          `json:"reasoning_effort,omitempty"`
	Stream          bool            `json:"stream,omitempty"`
	StreamOptions   *streamOptions  `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// wireMessage is one entry of "messages". Content is a pointer so that an
// assistant turn that only calls tools sends "content": null, as the API
// specifies.
type wireMessage struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string  `json:"type"`
	Function wireDef `json:"function"`
}

type wireDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type namedToolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// emptySchema is sent for a tool without an input schema: servers require
// "parameters" to be an object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildBody encodes req as a Chat Completions request body. All validation
// happens here, before any network traffic.
func buildBody(req *model.Request, defaultModel string, stream bool) ([]byte, error) {
	for _, k := range slices.Sorted(maps.Keys(req.Extra)) {
		if reservedExtra[k] {
			return nil, fmt.Errorf("%w: Request.Extra sets %q, which the provider owns; use the Request field instead", ErrInvalidRequest, k)
		}
	}
	msgs, err := encodeMessages(req)
	if err != nil {
		return nil, err
	}
	body := chatRequest{
		Model:           req.Model,
		Messages:        msgs,
		Temperature:     req.Temperature,
		TopP:            req.TopP,
		MaxTokens:       req.MaxTokens,
		Stop:            req.Stop,
		Seed:            req.Seed,
		ReasoningEffort: req.ReasoningEffort,
	}
	if body.Model == "" {
		body.Model = defaultModel
	}
	if len(req.ResponseFormat) > 0 {
		if !json.Valid(req.ResponseFormat) {
			return nil, fmt.Errorf("%w: Request.ResponseFormat is not valid JSON", ErrInvalidRequest)
		}
		body.ResponseFormat = req.ResponseFormat
	}
	if body.Tools, err = encodeTools(req.Tools); err != nil {
		return nil, err
	}
	body.ToolChoice = encodeToolChoice(req.ToolChoice)
	if stream {
		body.Stream = true
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%w: encoding the request: %v", ErrInvalidRequest, err)
	}
	if len(req.Extra) == 0 {
		return data, nil
	}
	return mergeExtra(data, req.Extra)
}

// mergeExtra sets the Extra keys on the encoded body; they win over fields
// the provider set from the Request (for example a server-specific
// "max_completion_tokens" or "top_k").
func mergeExtra(data []byte, extra map[string]any) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: merging Request.Extra: %v", ErrInvalidRequest, err)
	}
	for k, v := range extra {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%w: Request.Extra[%q] cannot be encoded as JSON: %v", ErrInvalidRequest, k, err)
		}
		m[k] = raw
	}
	return json.Marshal(m)
}

func encodeTools(specs []model.ToolSpec) ([]wireTool, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	tools := make([]wireTool, 0, len(specs))
	for _, s := range specs {
		if s.Name == "" {
			return nil, fmt.Errorf("%w: a tool has no name", ErrInvalidRequest)
		}
		params := s.InputSchema
		if len(params) == 0 {
			params = emptySchema
		} else if !json.Valid(params) {
			return nil, fmt.Errorf("%w: tool %q has an input schema that is not valid JSON", ErrInvalidRequest, s.Name)
		}
		tools = append(tools, wireTool{
			Type:     "function",
			Function: wireDef{Name: s.Name, Description: s.Description, Parameters: params},
		})
	}
	return tools, nil
}

func encodeToolChoice(c model.ToolChoice) any {
	switch c {
	case "":
		return nil
	case model.ToolChoiceAuto, model.ToolChoiceNone, model.ToolChoiceRequired:
		return string(c)
	}
	var named namedToolChoice
	named.Type = "function"
	named.Function.Name = string(c)
	return named
}

// encodeMessages maps the conversation onto Chat Completions messages:
// Request.System first, then the history. Tool results become one "tool"
// message each, in order.
func encodeMessages(req *model.Request) ([]wireMessage, error) {
	msgs := make([]wireMessage, 0, len(req.Messages)+1)
	if req.System != "" {
		msgs = append(msgs, textMessage("system", req.System))
	}
	for i, m := range req.Messages {
		var err error
		switch m.Role {
		case model.RoleSystem:
			msgs = append(msgs, textMessage("system", m.JoinedText()))
		case model.RoleUser, model.RoleTool:
			msgs, err = appendUserOrTool(msgs, m)
		case model.RoleAssistant:
			var w wireMessage
			w, err = encodeAssistant(m)
			msgs = append(msgs, w)
		default:
			err = fmt.Errorf("unknown role %q", m.Role)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: message %d: %w", ErrInvalidRequest, i, err)
		}
	}
	return msgs, nil
}

// errorPrefix marks a failed tool call's result on the wire. Chat
// Completions has no is_error flag: without a mark, "no such file" from a
// failed read looks like the file's content.
const errorPrefix = "Error: "

// toolContent is the content of a tool message: the result, marked with
// errorPrefix when the call failed (once: a tool that already says
// "Error:" is not marked again). Rein's tools, MCP tools and the harness's
// own refusals all arrive as model.ToolResult, so all are marked alike.
func toolContent(r *model.ToolResult) string {
	if !r.IsError {
		return r.Content
	}
	c := r.Content
	const mark = "Error:"
	if t := strings.TrimLeft(c, " \t\r\n"); len(t) >= len(mark) && strings.EqualFold(t[:len(mark)], mark) {
		return c
	}
	if c == "" {
		return errorPrefix + "the tool call failed"
	}
	return errorPrefix + c
}

func textMessage(role, text string) wireMessage {
	return wireMessage{Role: role, Content: &text}
}

// appendUserOrTool encodes a user or tool message: its tool results become
// "tool" messages, and any text a user message carries follows them as a
// "user" message (the API requires results directly after the call). Its
// text parts are joined with a blank line, so that a hook's context or a
// compaction marker does not run into the user's words.
func appendUserOrTool(msgs []wireMessage, m model.Message) ([]wireMessage, error) {
	hasText := false
	for _, p := range m.Parts {
		switch p.Kind {
		case model.PartToolResult:
			if p.ToolResult == nil || p.ToolResult.CallID == "" {
				return nil, fmt.Errorf("a tool result has no call id")
			}
			content := toolContent(p.ToolResult)
			msgs = append(msgs, wireMessage{Role: "tool", Content: &content, ToolCallID: p.ToolResult.CallID})
		case model.PartText:
			hasText = true
		case model.PartToolCall:
			return nil, fmt.Errorf("a %s message carries a tool call; only assistant messages may", m.Role)
		}
	}
	if m.Role == model.RoleUser && (hasText || len(m.ToolResultParts()) == 0) {
		msgs = append(msgs, textMessage("user", m.JoinedText()))
	} else if m.Role == model.RoleTool && hasText {
		return nil, fmt.Errorf("a tool message carries text outside a tool result")
	}
	return msgs, nil
}

// encodeAssistant encodes an assistant turn. Reasoning text is sent back as
// reasoning_content: llama.cpp uses it to rebuild the model's chain of
// thought across a tool round trip, and other servers ignore it.
func encodeAssistant(m model.Message) (wireMessage, error) {
	w := wireMessage{Role: "assistant"}
	var text, reasoning strings.Builder
	for _, p := range m.Parts {
		switch p.Kind {
		case model.PartText:
			text.WriteString(p.Text)
		case model.PartReasoning:
			reasoning.WriteString(p.Text)
		case model.PartToolCall:
			c := p.ToolCall
			if c == nil || c.ID == "" || c.Name == "" {
				return w, fmt.Errorf("a tool call has no id or name")
			}
			args := string(c.Args)
			if len(c.Args) == 0 {
				args = "{}"
			} else if !json.Valid(c.Args) {
				return w, fmt.Errorf("tool call %s has arguments that are not valid JSON", c.ID)
			}
			w.ToolCalls = append(w.ToolCalls, wireToolCall{
				ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: args},
			})
		case model.PartToolResult:
			return w, fmt.Errorf("an assistant message carries a tool result; put it in a tool message")
		}
	}
	if text.Len() > 0 || len(w.ToolCalls) == 0 {
		s := text.String()
		w.Content = &s
	}
	w.ReasoningContent = reasoning.String()
	return w, nil
}
