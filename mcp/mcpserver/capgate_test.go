package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// gatedParams are valid params for each gated method, against the
// features of fullFeatures.
var gatedParams = map[string]map[string]any{
	"tools/list":               {},
	"tools/call":               {"name": "echo", "arguments": map[string]any{"text": "x"}},
	"prompts/list":             {},
	"prompts/get":              {"name": "greet"},
	"resources/list":           {},
	"resources/templates/list": {},
	"resources/read":           {"uri": "file:///notes.txt"},
	"resources/subscribe":      {"uri": "file:///notes.txt"},
	"resources/unsubscribe":    {"uri": "file:///notes.txt"},
	"completion/complete":      {"ref": map[string]any{"type": "ref/prompt", "name": "greet"}, "argument": map[string]any{"name": "who", "value": ""}},
	"logging/setLevel":         {"level": "info"},
}

// removedInModern are methods the 2026-07-28 revision removed.
var removedInModern = map[string]bool{"logging/setLevel": true, "resources/subscribe": true, "resources/unsubscribe": true}

// capabilityDeclared reports whether caps (an initialize or discover
// result's capabilities) declare the gate's capability name.
func capabilityDeclared(caps map[string]json.RawMessage, name string) bool {
	if name == "resources.subscribe" {
		var r struct {
			Subscribe bool `json:"subscribe"`
		}
		return caps["resources"] != nil && json.Unmarshal(caps["resources"], &r) == nil && r.Subscribe
	}
	return caps[name] != nil
}

func fullFeatures() *Features {
	text := func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "file:///notes.txt", Text: "n"}}}, nil
	}
	return &Features{
		Prompts: []Prompt{{Prompt: &sdk.Prompt{Name: "greet", Arguments: []*sdk.PromptArgument{{Name: "who"}}},
			Handler: func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "hi"}}}}, nil
			}}},
		Resources: []Resource{{Resource: &sdk.Resource{URI: "file:///notes.txt", Name: "notes"}, Handler: text}},
		Complete: func(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
			return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}}}, nil
		},
		Subscribe:   func(context.Context, *sdk.SubscribeRequest) error { return nil },
		Unsubscribe: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
		Logging:     true,
	}
}

// TestCapabilitiesMatchHandlers walks every feature method against the
// capabilities the server declares, in both eras (2025-11-25 initialize,
// 2026-07-28 server/discover): a declared capability's methods answer, an
// undeclared one's are method not found — never an empty list for a
// feature the server said it lacks.
func TestCapabilitiesMatchHandlers(t *testing.T) {
	servers := map[string]Config{
		"tools only": {Tools: testTools(t, &keyRecorder{})},
		"everything": {Tools: testTools(t, &keyRecorder{}), Features: fullFeatures()},
		"no tools":   {Tools: testTools(t, &keyRecorder{}).Filter(func(tool.Spec) bool { return false }), Features: &Features{Prompts: fullFeatures().Prompts}},
	}
	for name, cfg := range servers {
		for _, era := range []string{legacy, modern} {
			t.Run(name+"/"+era, func(t *testing.T) {
				s := newTestServer(t, cfg)
				walkCapabilities(t, s, era)
			})
		}
	}
}

func walkCapabilities(t *testing.T, s *Server, era string) {
	var caps map[string]json.RawMessage
	var c *rawClient
	meta := func(p map[string]any) map[string]any { return p }
	if era == legacy {
		c = newRawStdio(t, s, "")
		var init struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		c.callInto("initialize", map[string]any{"protocolVersion": legacy, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "raw-test", "version": "1"}}, &init)
		c.notify("notifications/initialized", map[string]any{})
		caps = init.Capabilities
	} else {
		c = newRawStdio(t, s, "")
		meta = func(p map[string]any) map[string]any {
			out := map[string]any{"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion":    modern,
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
				"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw-test", "version": "1"},
			}}
			for k, v := range p {
				out[k] = v
			}
			return out
		}
		var disc struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		c.callInto("server/discover", meta(map[string]any{}), &disc)
		caps = disc.Capabilities
	}
	if caps == nil {
		t.Fatal("no capabilities in the opening result")
	}
	for method, cap := range capabilityOf {
		declared := capabilityDeclared(caps, strings.SplitN(cap, ".", 2)[0])
		if strings.Contains(cap, ".") {
			declared = capabilityDeclared(caps, cap)
		}
		if era == modern && removedInModern[method] {
			// The revision replaced these (subscriptions/listen, a
			// per-request log level): not found whatever is declared.
			declared = false
		}
		_, err := c.call(method, meta(gatedParams[method]))
		var rerr *rawError
		notFound := errors.As(err, &rerr) && rerr.Code == -32601
		switch {
		case declared && notFound:
			t.Errorf("%s: %s is declared but the method is not found: %v", method, cap, err)
		case !declared && !notFound:
			t.Errorf("%s: %s is not declared but the method answered (err %v); want -32601", method, cap, err)
		}
	}
}
