package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/reinharness/rein/model"
)

// convertMessages maps a neutral history onto the Messages API's
// alternating user/assistant turns. It returns the turns and the text of
// any system messages found in the history (the API takes system text only
// at the top level).
//
// Tool messages become user turns of tool_result blocks, and consecutive
// turns of the same API role are merged, because the API rejects two user
// or two assistant turns in a row (a tool-result turn followed by a user
// note is the common case).
func convertMessages(msgs []model.Message) ([]wireMessage, []wireBlock, error) {
	var (
		out    []wireMessage
		system []wireBlock
	)
	for i, m := range msgs {
		var (
			role   string
			blocks []wireBlock
			err    error
		)
		switch m.Role {
		case model.RoleSystem:
			for j, p := range m.Parts {
				if p.Kind != model.PartText {
					return nil, nil, fmt.Errorf("%w: Messages[%d].Parts[%d]: a system message may hold only text, not %s", ErrInvalidRequest, i, j, p.Kind)
				}
				if p.Text != "" {
					system = append(system, textBlock(p.Text))
				}
			}
			continue
		case model.RoleUser, model.RoleTool:
			role = "user"
			blocks, err = userBlocks(i, m)
		case model.RoleAssistant:
			role = "assistant"
			blocks, err = assistantBlocks(i, m)
		default:
			return nil, nil, fmt.Errorf("%w: Messages[%d] has unknown role %q", ErrInvalidRequest, i, m.Role)
		}
		if err != nil {
			return nil, nil, err
		}
		if len(blocks) == 0 {
			// The API rejects empty turns; a message that held only
			// empty text or unsigned reasoning says nothing to it.
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, wireMessage{Role: role, Content: blocks})
	}
	for i := range out {
		if out[i].Role == "assistant" {
			thinkingFirst(out[i].Content)
		}
	}
	return out, system, nil
}

// userBlocks converts a user or tool message: text and tool results.
func userBlocks(i int, m model.Message) ([]wireBlock, error) {
	blocks := make([]wireBlock, 0, len(m.Parts))
	for j, p := range m.Parts {
		switch p.Kind {
		case model.PartText:
			if p.Text != "" {
				blocks = append(blocks, textBlock(p.Text))
			}
		case model.PartToolResult:
			r := p.ToolResult
			if r == nil || r.CallID == "" {
				return nil, fmt.Errorf("%w: Messages[%d].Parts[%d]: tool result has no call ID", ErrInvalidRequest, i, j)
			}
			b := wireBlock{Type: "tool_result", ToolUseID: r.CallID, IsError: r.IsError}
			// The API rejects empty text blocks, and an absent content
			// is how it spells an empty result.
			if r.Content != "" {
				b.Content = []wireBlock{textBlock(r.Content)}
			}
			blocks = append(blocks, b)
		default:
			return nil, fmt.Errorf("%w: Messages[%d].Parts[%d]: a %s message cannot hold a %s part", ErrInvalidRequest, i, j, m.Role, p.Kind)
		}
	}
	return blocks, nil
}

// assistantBlocks converts an assistant message: text, reasoning and tool
// calls, in their original order.
func assistantBlocks(i int, m model.Message) ([]wireBlock, error) {
	blocks := make([]wireBlock, 0, len(m.Parts))
	for j, p := range m.Parts {
		switch p.Kind {
		case model.PartText:
			if p.Text != "" {
				blocks = append(blocks, textBlock(p.Text))
			}
		case model.PartReasoning:
			switch {
			case p.Redacted != "":
				blocks = append(blocks, wireBlock{Type: "redacted_thinking", Data: p.Redacted})
			case p.Signature != "":
				text := p.Text
				blocks = append(blocks, wireBlock{Type: "thinking", Thinking: &text, Signature: p.Signature})
			}
			// Unsigned reasoning (another provider's, or a stream cut
			// before its signature) cannot be verified by the API, which
			// rejects the whole request for it; the model does not need
			// it to continue, so it is left out.
		case model.PartToolCall:
			c := p.ToolCall
			if c == nil || c.ID == "" || c.Name == "" {
				return nil, fmt.Errorf("%w: Messages[%d].Parts[%d]: tool call needs an ID and a name", ErrInvalidRequest, i, j)
			}
			input, err := toolInput(c.Args)
			if err != nil {
				return nil, fmt.Errorf("%w: Messages[%d].Parts[%d]: tool call %s (%s): %v", ErrInvalidRequest, i, j, c.ID, c.Name, err)
			}
			blocks = append(blocks, wireBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input})
		default:
			return nil, fmt.Errorf("%w: Messages[%d].Parts[%d]: an assistant message cannot hold a %s part", ErrInvalidRequest, i, j, p.Kind)
		}
	}
	return blocks, nil
}

// toolInput returns the tool_use input for recorded arguments: a JSON
// object, with absent arguments sent as {} (the API requires an object).
func toolInput(args json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if t[0] != '{' || !json.Valid(t) {
		return nil, fmt.Errorf("arguments are not a JSON object")
	}
	return t, nil
}

// thinkingFirst moves thinking blocks to the front of an assistant turn,
// keeping their relative order, when the turn has thinking but does not
// start with it: the API requires a turn with thinking to begin with it,
// and merging two history messages can bury it. A turn that already starts
// with thinking is left exactly as recorded, so interleaved thinking
// (thinking between tool calls) round-trips unchanged.
func thinkingFirst(blocks []wireBlock) {
	if len(blocks) == 0 || isThinking(blocks[0]) {
		return
	}
	has := false
	for _, b := range blocks {
		if isThinking(b) {
			has = true
			break
		}
	}
	if !has {
		return
	}
	sorted := make([]wireBlock, 0, len(blocks))
	for _, b := range blocks {
		if isThinking(b) {
			sorted = append(sorted, b)
		}
	}
	for _, b := range blocks {
		if !isThinking(b) {
			sorted = append(sorted, b)
		}
	}
	copy(blocks, sorted)
}

func isThinking(b wireBlock) bool { return b.Type == "thinking" || b.Type == "redacted_thinking" }
