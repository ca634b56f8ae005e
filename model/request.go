package model

import "encoding/json"

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// ToolChoice constrains tool use: "" or "auto" (model decides), "none",
// "required" (some tool), or the name of one tool.
type ToolChoice string

// Tool choices with a fixed meaning; any other value names a tool.
const (
	ToolChoiceAuto     ToolChoice = "auto"
	ToolChoiceNone     ToolChoice = "none"
	ToolChoiceRequired ToolChoice = "required"
)

// Request is one call to a model.
type Request struct {
	// Model names the model; providers fall back to their configured default.
	Model string `json:"model,omitempty"`
	// System is the system prompt. It is kept apart from Messages so that it
	// is injected fresh on every call and no history strategy can drop it.
	System   string     `json:"system,omitempty"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// ToolChoice is passed through when non-empty.
	ToolChoice ToolChoice `json:"tool_choice,omitempty"`

	// Sampling. Nil pointers and zero values are not sent.
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`

	// ResponseFormat is passed through verbatim where the provider supports it
	// (OpenAI's response_format).
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
	// ReasoningEffort ("low", "medium", "high") is sent as reasoning_effort by
	// OpenAI-compatible providers.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// ThinkingBudget enables Anthropic extended thinking with this many
	// budget tokens when positive.
	ThinkingBudget int `json:"thinking_budget,omitempty"`
	// Extra is merged into the request body last. Keys the provider owns
	// (model, messages, tools, tool_choice, stream, …) are rejected.
	Extra map[string]any `json:"extra,omitempty"`
}
