package main

//lint:file-ignore SA1019 the conformance scenarios exercise roots, sampling and logging of the 2025 revisions.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp/mcpserver"
)

// noArgs is the input schema of a tool without parameters.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// native builds a native tool without parameters or effects.
func native(name, desc string, h sdk.ToolHandler) mcpserver.NativeTool {
	return mcpserver.NativeTool{Tool: &sdk.Tool{Name: name, Description: desc, InputSchema: noArgs}, Handler: h}
}

// text is a result holding one text block.
func text(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// nativeTools are the conformance tools that need MCP content or the
// session (images, audio, resources, logging, progress, sampling,
// elicitation, stream control, list changes, multi-round input).
func (f *fixture) nativeTools() []mcpserver.NativeTool {
	tools := []mcpserver.NativeTool{
		native("test_image_content", "Tests image content response", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: pngPixel, MIMEType: "image/png"}}}, nil
		}),
		native("test_audio_content", "Tests audio content response", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{Data: wavSilence, MIMEType: "audio/wav"}}}, nil
		}),
		native("test_embedded_resource", "Tests embedded resource content response", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{embedded("test://embedded-resource")}}, nil
		}),
		native("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "This is text content"},
				&sdk.ImageContent{Data: pngPixel, MIMEType: "image/png"},
				embedded("test://embedded-in-multiple"),
			}}, nil
		}),
		native("test_tool_with_logging", "Tests tool that emits log messages during execution", toolWithLogging),
		native("test_tool_with_progress", "Tests tool that reports progress notifications", toolWithProgress),
		native("test_reconnection", "Tests SSE stream disconnection and client reconnection (SEP-1699): the server closes the stream mid-call and sends the result after the client reconnects", reconnection),
		{
			Tool: &sdk.Tool{Name: "test_sampling", Description: "Tests server-initiated sampling (LLM completion request)",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}`)},
			Handler: sampling,
		},
		{
			Tool: &sdk.Tool{Name: "test_elicitation", Description: "Tests server-initiated elicitation (user input request)",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`)},
			Handler: elicitUsername,
		},
		native("test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034", elicitWith("Test defaults for primitives", defaultsSchema)),
		native("test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330", elicitWith("Test enum schemas", enumsSchema)),
		native("test_missing_capability", "Requires the sampling client capability; used to verify MissingRequiredClientCapabilityError (-32021) (SEP-2575)", missingCapability),
		native("test_streaming_elicitation", "Answers with result frames only, never an independent request on the response stream (SEP-2575)", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("stream observed: result frames only, no top-level requests"), nil
		}),
		native("test_logging_tool", "Attempts to emit a log message, which must be dropped unless the request set a log level (SEP-2575)", func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Data: "test_logging_tool executed"})
			return text("Log attempted; the server gates it on the request's log level."), nil
		}),
		native("test_trigger_tool_change", "Changes the tool list, so subscribed clients get notifications/tools/list_changed (SEP-2575)", f.triggerToolChange),
		native("test_trigger_prompt_change", "Changes the prompt list, so subscribed clients get notifications/prompts/list_changed (SEP-2575)", f.triggerPromptChange),
	}
	tools = append(tools, taskNativeTools()...)
	return append(tools, f.inputRequiredTools()...)
}

// embedded is a text resource embedded in a result.
func embedded(uri string) *sdk.EmbeddedResource {
	return &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: uri, MIMEType: "text/plain", Text: "This is an embedded resource"}}
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func toolWithLogging(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Data: msg})
	}
	return text("Tool with logging executed successfully"), nil
}

func toolWithProgress(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	token := req.Params.GetProgressToken()
	for _, done := range []float64{0, 50, 100} {
		if token != nil {
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: token, Progress: done, Total: 100,
				Message: fmt.Sprintf("Completed step %.0f of %d", done, 100),
			})
		}
		if err := pause(ctx, 50*time.Millisecond); err != nil {
			return nil, err
		}
	}
	// The suite checks the token comes back.
	return text("%v", token), nil
}

func reconnection(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if req.Extra != nil && req.Extra.CloseSSEStream != nil {
		req.Extra.CloseSSEStream(sdk.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
	}
	if err := pause(ctx, 100*time.Millisecond); err != nil {
		return nil, err
	}
	return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
}

func sampling(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments: " + err.Error()}
	}
	res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{
		Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: in.Prompt}}},
		MaxTokens: 100,
	})
	if err != nil {
		return nil, fmt.Errorf("sampling failed: %w", err)
	}
	answer := "(non-text response)"
	if tc, ok := res.Content.(*sdk.TextContent); ok {
		answer = tc.Text
	}
	return text("LLM response: %s", answer), nil
}

func elicitUsername(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var in struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments: " + err.Error()}
	}
	schema := &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"username": {Type: "string", Description: "Your preferred username"}},
		Required:   []string{"username"},
	}
	return elicit(ctx, req, in.Message, schema)
}

// elicitWith returns a handler eliciting with a fixed message and schema.
func elicitWith(message string, schema json.RawMessage) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return elicit(ctx, req, message, schema)
	}
}

func elicit(ctx context.Context, req *sdk.CallToolRequest, message string, schema any) (*sdk.CallToolResult, error) {
	res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: message, RequestedSchema: schema})
	if err != nil {
		return nil, fmt.Errorf("elicitation failed: %w", err)
	}
	return text("Elicitation result: action=%s, content=%v", res.Action, res.Content), nil
}

// missingCapability refuses to run unless the request declared the
// sampling capability, with the error SEP-2575 defines.
func missingCapability(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if caps := req.ClientCapabilities(); caps != nil && caps.Sampling != nil {
		return text("Client declared the sampling capability; tool executed."), nil
	}
	data, err := json.Marshal(sdk.MissingRequiredClientCapabilityData{
		RequiredCapabilities: &sdk.ClientCapabilities{Sampling: &sdk.SamplingCapabilities{}},
	})
	if err != nil {
		return nil, err
	}
	return nil, &jsonrpc.Error{
		Code:    sdk.CodeMissingRequiredClientCapabilities,
		Message: "sampling capability required but not declared by client",
		Data:    data,
	}
}

// triggerToolChange re-registers a transient tool; every registration
// notifies the sessions subscribed to tool-list changes.
func (f *fixture) triggerToolChange(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	err := f.srv.AddNativeTool(native("__transient_tool_for_list_changed", "Transient tool used to trigger tools/list_changed",
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("transient"), nil
		}))
	if err != nil {
		return nil, err
	}
	return text("tools_list_changed published"), nil
}

func (f *fixture) triggerPromptChange(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	err := f.srv.AddPrompt(mcpserver.Prompt{
		Prompt: &sdk.Prompt{Name: "__transient_prompt_for_list_changed", Description: "Transient prompt used to trigger prompts/list_changed"},
		Handler: func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{}}, nil
		},
	})
	if err != nil {
		return nil, err
	}
	return text("prompts_list_changed published"), nil
}

// defaultsSchema asks for primitives with defaults (SEP-1034).
var defaultsSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"name": {"type": "string", "description": "User name", "default": "John Doe"},
		"age": {"type": "integer", "description": "User age", "default": 30},
		"score": {"type": "number", "description": "User score", "default": 95.5},
		"status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
		"verified": {"type": "boolean", "description": "Verification status", "default": true}
	}
}`)

// enumsSchema covers the enum forms of SEP-1330: plain, titled (oneOf),
// legacy enumNames, and multi-select with and without titles. A titled
// multi-select's items carry only anyOf, as the 2025-11-25 schema
// (TitledMultiSelectEnumSchema) defines them.
var enumsSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
		"titledSingle": {"type": "string", "oneOf": [
			{"const": "value1", "title": "First Option"},
			{"const": "value2", "title": "Second Option"},
			{"const": "value3", "title": "Third Option"}]},
		"legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
		"untitledMulti": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
		"titledMulti": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"anyOf": [
			{"const": "value1", "title": "First Option"},
			{"const": "value2", "title": "Second Option"},
			{"const": "value3", "title": "Third Option"}]}}
	}
}`)
