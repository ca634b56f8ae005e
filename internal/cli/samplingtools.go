package cli

import (
	"encoding/json"

	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/model"
)

// Sampling with tools (SEP-1577): a server's sampling request may offer
// tools. rein runs one model turn with them declared and returns the
// model's tool calls to the server as tool_use blocks; the server runs
// them and sends the results in its next request. rein never runs a
// server's sampling tools itself, so one approved request costs one
// model call.

// samplingTools declares a request's offered tools to the model. With
// toolChoice "none" nothing is declared: the model cannot call what it
// is not offered.
func samplingTools(req *mcp.SamplingRequest) ([]model.ToolSpec, model.ToolChoice) {
	if len(req.Tools) == 0 || req.ToolChoice == "none" {
		return nil, ""
	}
	specs := make([]model.ToolSpec, 0, len(req.Tools))
	for _, t := range req.Tools {
		specs = append(specs, model.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	switch req.ToolChoice {
	case "required":
		return specs, model.ToolChoiceRequired
	case "auto":
		return specs, model.ToolChoiceAuto
	}
	return specs, ""
}

// samplingMessages turns a request's messages into the model's, keeping
// tool_use blocks as the assistant's tool calls and tool_result blocks as
// tool results, in order.
func samplingMessages(req *mcp.SamplingRequest) []model.Message {
	var out []model.Message
	for _, m := range req.Messages {
		if !hasToolBlocks(m) {
			if m.Role == "assistant" {
				out = append(out, model.AssistantText(m.Text))
			} else {
				out = append(out, model.UserText(m.Text))
			}
			continue
		}
		if m.Role == "assistant" {
			msg := model.Message{Role: model.RoleAssistant}
			for _, b := range m.Blocks {
				switch b.Kind {
				case mcp.BlockToolUse:
					msg.Parts = append(msg.Parts, model.ToolCallPart(model.ToolCall{ID: b.ToolUseID, Name: b.ToolName, Args: b.Input}))
				default:
					msg.Parts = append(msg.Parts, model.TextPart(b.Text))
				}
			}
			out = append(out, msg)
			continue
		}
		// A user turn: its results first (they answer the calls just
		// before), then any text as a user message.
		var results []model.ToolResult
		var text []model.Part
		for _, b := range m.Blocks {
			if b.Kind == mcp.BlockToolResult {
				results = append(results, model.ToolResult{CallID: b.ToolUseID, Content: b.Text, IsError: b.IsError})
			} else if b.Text != "" {
				text = append(text, model.TextPart(b.Text))
			}
		}
		if len(results) > 0 {
			out = append(out, model.ToolResults(results...))
		}
		if len(text) > 0 {
			out = append(out, model.Message{Role: model.RoleUser, Parts: text})
		}
	}
	return out
}

func hasToolBlocks(m mcp.SamplingMessage) bool {
	for _, b := range m.Blocks {
		if b.Kind == mcp.BlockToolUse || b.Kind == mcp.BlockToolResult {
			return true
		}
	}
	return false
}

// samplingToolUses returns the model's tool calls for the server. A call
// whose arguments are not a JSON object is dropped: sending it as {}
// would make the server run a call the model did not mean.
func samplingToolUses(msg model.Message) []mcp.SamplingToolUse {
	var uses []mcp.SamplingToolUse
	for _, p := range msg.Parts {
		if p.Kind != model.PartToolCall || p.ToolCall == nil {
			continue
		}
		args := p.ToolCall.Args
		var obj map[string]any
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		} else if json.Unmarshal(args, &obj) != nil {
			continue
		}
		uses = append(uses, mcp.SamplingToolUse{ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: args})
	}
	return uses
}
