package mcpserver

//lint:file-ignore SA1019 sampling serves clients of the 2025 revisions.

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sampling with tools (SEP-1577), server side. A native tool's handler
// asks the client's model for a completion that may call tools the
// server offers; the client answers with text or tool_use blocks, the
// handler runs the tools and asks again with their tool_result blocks.
// In the 2025-11-25 era the request travels on the session
// (SampleWithTools); in 2026-07-28 a handler returns it as an input
// request of its result (CallToolResult.InputRequests, with a
// *sdk.CreateMessageWithToolsParams) and reads the answer from
// CallToolParams.InputResponses on the retried call.

// ErrNoSamplingTools reports a client that did not declare
// sampling.tools: it may not be sent a sampling request with tools.
var ErrNoSamplingTools = errors.New("mcpserver: the client does not support sampling with tools")

// MaxSamplingTurns bounds a SampleLoop: a model that keeps calling
// tools cannot hold a call for ever.
const MaxSamplingTurns = 8

// SampleWithTools sends a sampling request carrying tools to the client
// of a 2025-11-25 session, first checking that the client declared
// sampling (and sampling.tools when p offers tools).
func SampleWithTools(ctx context.Context, req *sdk.CallToolRequest, p *sdk.CreateMessageWithToolsParams) (*sdk.CreateMessageWithToolsResult, error) {
	if req == nil || req.Session == nil {
		return nil, errors.New("mcpserver: sampling needs the call's session")
	}
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Sampling == nil {
		return nil, errors.New("mcpserver: the client does not support sampling")
	}
	if len(p.Tools) > 0 && ip.Capabilities.Sampling.Tools == nil {
		return nil, ErrNoSamplingTools
	}
	return req.Session.CreateMessageWithTools(ctx, p)
}

// ToolRunner runs one tool the model called in a sampling loop and
// returns its result content.
type ToolRunner func(ctx context.Context, use *sdk.ToolUseContent) *sdk.ToolResultContent

// SampleLoop runs a sampling conversation with tools: it sends p, and
// while the model answers with tool uses, runs them with run and sends
// the results back, at most MaxSamplingTurns times. It returns the
// model's final answer (the first without tool uses).
func SampleLoop(ctx context.Context, req *sdk.CallToolRequest, p *sdk.CreateMessageWithToolsParams, run ToolRunner) (*sdk.CreateMessageWithToolsResult, error) {
	conv := *p
	conv.Messages = append([]*sdk.SamplingMessageV2(nil), p.Messages...)
	for range MaxSamplingTurns {
		res, err := SampleWithTools(ctx, req, &conv)
		if err != nil {
			return nil, err
		}
		var uses []*sdk.ToolUseContent
		for _, c := range res.Content {
			if u, ok := c.(*sdk.ToolUseContent); ok {
				uses = append(uses, u)
			}
		}
		if len(uses) == 0 {
			return res, nil
		}
		conv.Messages = append(conv.Messages, &sdk.SamplingMessageV2{Role: "assistant", Content: res.Content})
		results := make([]sdk.Content, 0, len(uses))
		for _, u := range uses {
			r := run(ctx, u)
			if r == nil {
				r = &sdk.ToolResultContent{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no result"}}}
			}
			r.ToolUseID = u.ID
			results = append(results, r)
		}
		conv.Messages = append(conv.Messages, &sdk.SamplingMessageV2{Role: "user", Content: results})
	}
	return nil, fmt.Errorf("mcpserver: the model was still calling tools after %d sampling turns", MaxSamplingTurns)
}
