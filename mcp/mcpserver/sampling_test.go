package mcpserver

//lint:file-ignore SA1019 sampling serves clients of the 2025 revisions.

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// samplingServer serves one native tool that runs SampleLoop offering a
// "probe" tool, answering with the loop's error or final text.
func samplingServer(t *testing.T) *Server {
	t.Helper()
	probe := &sdk.Tool{Name: "probe", InputSchema: json.RawMessage(`{"type":"object"}`)}
	s := newTestServer(t, Config{Tools: testTools(t, nil), Features: &Features{Tools: []NativeTool{{
		Tool: &sdk.Tool{Name: "think", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			runs := 0
			res, err := SampleLoop(ctx, req, &sdk.CreateMessageWithToolsParams{
				MaxTokens: 10, Tools: []*sdk.Tool{probe},
				Messages: []*sdk.SamplingMessageV2{{Role: "user", Content: []sdk.Content{&sdk.TextContent{Text: "go"}}}},
			}, func(context.Context, *sdk.ToolUseContent) *sdk.ToolResultContent {
				runs++
				return &sdk.ToolResultContent{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}
			})
			if err != nil {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.StopReason}}}, nil
		},
	}}}})
	t.Cleanup(s.Close)
	return s
}

// samplingClient connects a go-sdk client with opts to s over stdio.
func samplingClient(t *testing.T, s *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(ctx, serverIn, serverOut)
		serverOut.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "rein-test", Version: "1"}, opts).Connect(ctx,
		&sdk.IOTransport{Reader: clientIn, Writer: clientOut}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		clientOut.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return")
		}
	})
	return cs
}

// TestSampleLoop: a client without sampling, or with sampling but not
// sampling.tools, is not sent the request; a model that never stops
// calling tools ends the loop after MaxSamplingTurns; one that answers
// ends it at once.
func TestSampleLoop(t *testing.T) {
	s := samplingServer(t)
	if text, isErr := call(t, samplingClient(t, s, nil), "think", map[string]any{}); !isErr || !strings.Contains(text, "does not support sampling") {
		t.Errorf("no sampling: %q", text)
	}
	plain := &sdk.ClientOptions{CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		return &sdk.CreateMessageResult{Model: "m", Role: "assistant", Content: &sdk.TextContent{Text: "x"}}, nil
	}}
	if text, isErr := call(t, samplingClient(t, s, plain), "think", map[string]any{}); !isErr || !strings.Contains(text, ErrNoSamplingTools.Error()) {
		t.Errorf("sampling without tools: %q", text)
	}
	turns := 0
	looping := &sdk.ClientOptions{CreateMessageWithToolsHandler: func(_ context.Context, req *sdk.CreateMessageWithToolsRequest) (*sdk.CreateMessageWithToolsResult, error) {
		turns++
		return &sdk.CreateMessageWithToolsResult{Model: "m", Role: "assistant", StopReason: "toolUse",
			Content: []sdk.Content{&sdk.ToolUseContent{ID: "u" + strings.Repeat("x", turns), Name: "probe", Input: map[string]any{}}}}, nil
	}}
	if text, isErr := call(t, samplingClient(t, s, looping), "think", map[string]any{}); !isErr || !strings.Contains(text, "still calling tools") || turns != MaxSamplingTurns {
		t.Errorf("endless tool use: %q after %d turns", text, turns)
	}
	answering := &sdk.ClientOptions{CreateMessageWithToolsHandler: func(_ context.Context, req *sdk.CreateMessageWithToolsRequest) (*sdk.CreateMessageWithToolsResult, error) {
		return &sdk.CreateMessageWithToolsResult{Model: "m", Role: "assistant", StopReason: "endTurn", Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
	}}
	if text, isErr := call(t, samplingClient(t, s, answering), "think", map[string]any{}); isErr || text != "endTurn" {
		t.Errorf("answer: %q (error %v)", text, isErr)
	}
}
