package anthropic

import "encoding/json"

// This file holds the Messages API wire shapes. They mirror the JSON the API
// sends and receives (see the recordings under testdata/) and nothing else:
// conversion to and from rein's neutral types lives in request.go,
// stream.go and message.go.

// wireRequest is the body of POST /v1/messages.
type wireRequest struct {
	Model         string          `json:"model"`
	MaxTokens     int             `json:"max_tokens"`
	System        []wireBlock     `json:"system,omitempty"`
	Messages      []wireMessage   `json:"messages"`
	Tools         []wireTool      `json:"tools,omitempty"`
	ToolChoice    *wireToolChoice `json:"tool_choice,omitempty"`
	Temperature   *float64        `json:"temperature,omitempty"`
	TopP          *float64        `json:"top_p,omitempty"`
	StopSequences []string        `json:"stop_sequences,omitempty"`
	Thinking      *wireThinking   `json:"thinking,omitempty"`
	Stream        bool            `json:"stream,omitempty"`
}

// wireMessage is one entry of the request's messages array. The API only
// knows the user and assistant roles; system text goes to the top-level
// system field and tool results travel inside user messages.
type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

// wireBlock is a content block as the request side sends it. One struct
// covers every block type so that a message is a plain slice; omitempty
// keeps each block to the fields its type owns.
type wireBlock struct {
	Type string `json:"type"`
	// text
	Text string `json:"text,omitempty"`
	// thinking: a pointer because a thinking block must carry the field
	// even when its text is empty, while other blocks must not carry it.
	Thinking  *string `json:"thinking,omitempty"`
	Signature string  `json:"signature,omitempty"`
	// redacted_thinking
	Data string `json:"data,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	ToolUseID string      `json:"tool_use_id,omitempty"`
	Content   []wireBlock `json:"content,omitempty"`
	IsError   bool        `json:"is_error,omitempty"`
}

// wireTool declares a client tool.
type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// wireToolChoice is {type: auto|any|none|tool, name}.
type wireToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

// wireThinking enables extended thinking.
type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// wireUsage is the usage object of message_start, message_delta and a
// non-streamed message. Pointers distinguish "absent" from zero, because a
// message_delta usage object only carries the counters that changed in some
// API versions and must not wipe the input counts from message_start.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

// wireContent is a content block as the response side sends it, both in a
// whole message and in content_block_start.
type wireContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// wireResponse is a whole (non-streamed) message, also the "message" of
// message_start.
type wireResponse struct {
	Type       string        `json:"type"`
	ID         string        `json:"id"`
	Model      string        `json:"model"`
	Role       string        `json:"role"`
	Content    []wireContent `json:"content"`
	StopReason *string       `json:"stop_reason"`
	Usage      *wireUsage    `json:"usage"`
	Error      *wireError    `json:"error"`
}

// wireError is the error object of an error body or an in-stream error
// event: {"type":"error","error":{"type":"overloaded_error","message":"…"}}.
type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// wireDelta is the delta of content_block_delta (type + payload) and of
// message_delta (stop_reason); one struct serves both so an event decodes
// in a single pass.
type wireDelta struct {
	Type        string  `json:"type"`
	Text        string  `json:"text"`
	PartialJSON string  `json:"partial_json"`
	Thinking    string  `json:"thinking"`
	Signature   string  `json:"signature"`
	StopReason  *string `json:"stop_reason"`
	// partial holds the partial_json fragment as bytes, whichever decoder
	// read the event: the state machine appends it from here.
	partial []byte
}

// wireEvent is the data of one stream event. Delta and Index are values,
// not pointers, because they arrive in nearly every event and the stream
// is the hot path: the state machine presets Index to -1 to tell an absent
// index from block 0, and treats a delta without a type as absent.
type wireEvent struct {
	Type         string        `json:"type"`
	Index        int           `json:"index"`
	Message      *wireResponse `json:"message"`
	ContentBlock *wireContent  `json:"content_block"`
	Delta        wireDelta     `json:"delta"`
	Usage        *wireUsage    `json:"usage"`
	Error        *wireError    `json:"error"`
}
