package mcp

//lint:file-ignore SA1019 sampling serves servers of the 2025 revisions, which rein supports.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sampling, client side. A server asks rein's model for a completion
// (sampling/createMessage, or an input request of a 2026-07-28 call).
// Since 2025-11-25 (SEP-1577) the request may carry tools and a
// toolChoice: the model may then answer with tool_use blocks, which go
// back to the server; the server runs the tools and sends their
// tool_result blocks in its next request. rein runs one bounded model
// turn per request and never runs a server's tools itself.

// Bounds on what a server may put in one sampling request.
const (
	maxSamplingTools = 64
	maxToolNameLen   = 128
)

// SamplingRequest is a server's request for a model completion.
type SamplingRequest struct {
	Server       string
	SystemPrompt string
	Messages     []SamplingMessage
	MaxTokens    int64
	Temperature  float64
	Stop         []string
	ModelHints   []string
	// Tools are the tools the server offers the model for this request
	// (SEP-1577); none when it offers none.
	Tools []SamplingTool
	// ToolChoice is "auto" (the model decides), "required" (it must use a
	// tool) or "none" (it must not); "" when the server said nothing.
	ToolChoice string
	// Setting is the server's sampling setting and Project whether the
	// server comes from a workspace's configuration: inputs of the
	// decision the Interaction makes with rein's policy
	// (policy.Engine.DecideSampling), where "never" is a hard denial and
	// "allow" an allow rule for the user's own servers only.
	Setting SamplingMode
	Project bool
}

// SamplingTool is a tool a server offers the model in a sampling request.
type SamplingTool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// SamplingMessage is one turn of a sampling request. Text renders the
// whole turn (images and audio as one-line descriptions, tool blocks
// summarised); Blocks keeps its tool_use and tool_result blocks, with the
// text between them, in order.
type SamplingMessage struct {
	Role   string
	Text   string
	Blocks []SamplingBlock
}

// Sampling block kinds.
const (
	BlockText       = "text"
	BlockToolUse    = "tool_use"
	BlockToolResult = "tool_result"
)

// SamplingBlock is one piece of a sampling message: text (Text; other
// media rendered), a tool use (ToolUseID, ToolName, Input) or a tool
// result (ToolUseID, Text, IsError).
type SamplingBlock struct {
	Kind      string
	Text      string
	ToolUseID string
	ToolName  string
	Input     json.RawMessage
	IsError   bool
}

// SamplingResponse is the completion returned to the server: text, tool
// uses (only of tools the request offered), or both.
type SamplingResponse struct {
	Model      string
	Text       string
	StopReason string
	ToolUses   []SamplingToolUse
}

// SamplingToolUse is the model's call of one of the offered tools.
type SamplingToolUse struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// sampleHandler adapts an Interaction to the SDK.
func sampleHandler(server string, setting SamplingMode, project bool, in Interaction) func(context.Context, *sdk.CreateMessageWithToolsRequest) (*sdk.CreateMessageWithToolsResult, error) {
	return func(ctx context.Context, req *sdk.CreateMessageWithToolsRequest) (*sdk.CreateMessageWithToolsResult, error) {
		sr, err := decodeSampling(server, req.Params)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		sr.Setting, sr.Project = setting, project
		resp, err := in.Sample(ctx, sr)
		if errors.Is(err, ErrDeclined) {
			return nil, &jsonrpc.Error{Code: codeUserRejected, Message: "the user rejected the sampling request"}
		}
		if err != nil {
			return nil, err
		}
		return encodeSampling(sr, resp)
	}
}

// decodeSampling reads a sampling request's params.
func decodeSampling(server string, p *sdk.CreateMessageWithToolsParams) (*SamplingRequest, error) {
	if p == nil {
		return nil, errors.New("sampling request without params")
	}
	sr := &SamplingRequest{
		Server: server, SystemPrompt: p.SystemPrompt, MaxTokens: p.MaxTokens,
		Temperature: p.Temperature, Stop: p.StopSequences,
	}
	if p.ModelPreferences != nil {
		for _, h := range p.ModelPreferences.Hints {
			if h != nil && h.Name != "" {
				sr.ModelHints = append(sr.ModelHints, h.Name)
			}
		}
	}
	if len(p.Tools) > maxSamplingTools {
		return nil, fmt.Errorf("the sampling request offers %d tools; at most %d are accepted", len(p.Tools), maxSamplingTools)
	}
	for _, t := range p.Tools {
		st, err := samplingTool(t)
		if err != nil {
			return nil, err
		}
		sr.Tools = append(sr.Tools, st)
	}
	if p.ToolChoice != nil {
		switch p.ToolChoice.Mode {
		case "", "auto", "required", "none":
			sr.ToolChoice = p.ToolChoice.Mode
		default:
			return nil, fmt.Errorf("unknown toolChoice mode %q", clip(printable(p.ToolChoice.Mode), 40))
		}
	}
	for _, m := range p.Messages {
		if m != nil {
			sr.Messages = append(sr.Messages, samplingMessage(m))
		}
	}
	return sr, nil
}

// samplingTool checks and converts one offered tool.
func samplingTool(t *sdk.Tool) (SamplingTool, error) {
	if t == nil || t.Name == "" || len(t.Name) > maxToolNameLen || printable(t.Name) != t.Name || strings.ContainsAny(t.Name, " \t\r\n") {
		name := ""
		if t != nil {
			name = t.Name
		}
		return SamplingTool{}, fmt.Errorf("the sampling request offers a tool with an invalid name %q", clip(printable(name), 60))
	}
	st := SamplingTool{Name: t.Name, Description: printable(t.Description), InputSchema: json.RawMessage(`{"type":"object"}`)}
	if t.InputSchema != nil {
		data, err := json.Marshal(t.InputSchema)
		if err != nil {
			return SamplingTool{}, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
		}
		st.InputSchema = data
	}
	return st, nil
}

// samplingMessage converts one message, keeping its tool blocks.
func samplingMessage(m *sdk.SamplingMessageV2) SamplingMessage {
	out := SamplingMessage{Role: string(m.Role)}
	var all strings.Builder
	for _, c := range m.Content {
		if c == nil {
			continue
		}
		b := samplingBlock(c)
		out.Blocks = append(out.Blocks, b)
		if all.Len() > 0 {
			all.WriteByte('\n')
		}
		switch b.Kind {
		case BlockToolUse:
			fmt.Fprintf(&all, "[tool use %s %s]", b.ToolName, clip(string(b.Input), 200))
		case BlockToolResult:
			fmt.Fprintf(&all, "[tool result for %s] %s", b.ToolUseID, b.Text)
		default:
			all.WriteString(b.Text)
		}
	}
	out.Text = all.String()
	return out
}

// samplingBlock converts one content block.
func samplingBlock(c sdk.Content) SamplingBlock {
	switch c := c.(type) {
	case *sdk.ToolUseContent:
		input, err := json.Marshal(c.Input)
		if err != nil || c.Input == nil {
			input = json.RawMessage(`{}`)
		}
		return SamplingBlock{Kind: BlockToolUse, ToolUseID: c.ID, ToolName: c.Name, Input: input}
	case *sdk.ToolResultContent:
		var b strings.Builder
		for _, inner := range c.Content {
			if inner != nil {
				renderContent(&b, inner)
			}
		}
		if b.Len() == 0 && c.StructuredContent != nil {
			if data, err := json.Marshal(c.StructuredContent); err == nil {
				b.Write(data)
			}
		}
		return SamplingBlock{Kind: BlockToolResult, ToolUseID: c.ToolUseID, Text: b.String(), IsError: c.IsError}
	}
	var b strings.Builder
	renderContent(&b, c)
	return SamplingBlock{Kind: BlockText, Text: b.String()}
}

// encodeSampling builds the result for the server, refusing tool uses
// the request did not allow: a model that calls a tool it was not
// offered must not make the server run one.
func encodeSampling(sr *SamplingRequest, resp *SamplingResponse) (*sdk.CreateMessageWithToolsResult, error) {
	if resp == nil {
		return nil, errors.New("no completion")
	}
	offered := map[string]bool{}
	for _, t := range sr.Tools {
		offered[t.Name] = true
	}
	res := &sdk.CreateMessageWithToolsResult{Model: resp.Model, Role: "assistant", StopReason: resp.StopReason}
	if resp.Text != "" || len(resp.ToolUses) == 0 {
		res.Content = append(res.Content, &sdk.TextContent{Text: resp.Text})
	}
	for _, u := range resp.ToolUses {
		if !offered[u.Name] || sr.ToolChoice == "none" {
			return nil, fmt.Errorf("the model called %q, which the server did not offer for this request", clip(printable(u.Name), 60))
		}
		input := map[string]any{}
		if len(u.Input) > 0 {
			if err := json.Unmarshal(u.Input, &input); err != nil {
				return nil, fmt.Errorf("the model called %q with arguments that are not a JSON object", u.Name)
			}
		}
		res.Content = append(res.Content, &sdk.ToolUseContent{ID: u.ID, Name: u.Name, Input: input})
	}
	if len(resp.ToolUses) > 0 {
		res.StopReason = "toolUse"
	}
	return res, nil
}
