package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp/mcpserver"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// watchedURI is the resource the fixture reports as changing every
// watchInterval, for subscription scenarios.
const (
	watchedURI    = "test://watched-resource"
	watchInterval = 3 * time.Second
)

// fixture is the conformance server: an mcpserver.Server and the state
// its tools share.
type fixture struct {
	srv   *mcpserver.Server
	state *mcpserver.StateSigner
}

// allowAll is the fixture's policy: every conformance tool is a harmless
// test double, and the suite must be able to call each one. (rein mcp
// serve uses rein's layered policy instead.)
type allowAll struct{}

func (allowAll) Decide(context.Context, policy.Call) policy.Decision {
	return policy.Decision{Action: policy.Allow, Reason: "conformance fixture", Rule: "fixture:allow-all"}
}

// newFixture builds the server. The text-only tools are ordinary rein
// tools (so the suite exercises rein's tool path: policy, tool.Invoke,
// result rendering); tools that need MCP's richer shapes are native.
func newFixture(logger *slog.Logger) (*fixture, error) {
	signer, err := mcpserver.NewStateSigner(mcpserver.StateOptions{})
	if err != nil {
		return nil, err
	}
	f := &fixture{state: signer}
	reinTools, err := f.reinTools()
	if err != nil {
		return nil, err
	}
	taskTools, err := taskReinTools()
	if err != nil {
		return nil, err
	}
	set, err := tool.NewSet(append(reinTools, taskTools...)...)
	if err != nil {
		return nil, err
	}
	f.srv, err = mcpserver.New(mcpserver.Config{
		Tools:     set,
		Policy:    allowAll{},
		Name:      "rein-conformance-server",
		Version:   "1.0.0",
		Logger:    logger,
		TaskTools: taskToolSupport,
		// The server and the multi-round-trip tools share one signer.
		StateSigner: signer,
		Features: &mcpserver.Features{
			Tools:             f.nativeTools(),
			Prompts:           f.prompts(),
			Resources:         resources(),
			ResourceTemplates: templates(),
			Complete:          complete,
			Subscribe:         func(context.Context, *sdk.SubscribeRequest) error { return nil },
			Unsubscribe:       func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
			Logging:           true,
			ListChanged:       true,
		},
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// updateWatched reports the watched resource as changed every
// watchInterval until ctx ends.
func (f *fixture) updateWatched(ctx context.Context) {
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f.srv.NotifyResourceUpdated(ctx, watchedURI)
		}
	}
}

// reinTools are the conformance tools whose results are plain text.
func (f *fixture) reinTools() ([]tool.Tool, error) {
	type none struct{}
	simple, err := tool.NewFunc("test_simple_text", "Tests simple text content response",
		func(context.Context, none) (string, error) {
			return "This is a simple text response for testing.", nil
		})
	if err != nil {
		return nil, err
	}
	failing, err := tool.NewFunc("test_error_handling", "Tests error response handling",
		func(context.Context, none) (string, error) {
			return "", errors.New("this tool intentionally returns an error for testing")
		})
	if err != nil {
		return nil, err
	}
	return []tool.Tool{
		simple,
		failing,
		echoTool{
			name:   "json_schema_2020_12_tool",
			desc:   "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)",
			schema: schema202012,
			reply:  func(args json.RawMessage) string { return "JSON Schema 2020-12 tool called with: " + string(args) },
		},
		echoTool{
			name:   "test_x_mcp_header",
			desc:   "Tests SEP-2243 Mcp-Param-* server-side validation",
			schema: schemaXMCPHeader,
			reply: func(args json.RawMessage) string {
				var in struct {
					Region string `json:"region"`
				}
				json.Unmarshal(args, &in)
				return "region=" + in.Region
			},
		},
	}, nil
}

// echoTool is a rein tool with a hand-written schema (the suite checks
// that the schema is listed verbatim) that answers with reply(args).
type echoTool struct {
	name, desc string
	schema     string
	reply      func(json.RawMessage) string
}

func (t echoTool) Spec() tool.Spec {
	return tool.Spec{Name: t.name, Description: t.desc, InputSchema: json.RawMessage(t.schema)}
}

func (t echoTool) Call(_ context.Context, args json.RawMessage) (*tool.Result, error) {
	if !json.Valid(args) {
		return nil, fmt.Errorf("the arguments are not JSON")
	}
	return tool.TextResult(t.reply(args)), nil
}

// schema202012 uses the JSON Schema 2020-12 vocabulary the suite checks
// survives tools/list verbatim: $schema, $defs with $anchor, $ref,
// allOf/anyOf, if/then/else and additionalProperties.
const schema202012 = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {
				"street": {"type": "string"},
				"city": {"type": "string"}
			}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`

// schemaXMCPHeader mirrors one argument into an Mcp-Param-Region header
// (SEP-2243), which the server must check against the body.
const schemaXMCPHeader = `{
	"type": "object",
	"properties": {
		"region": {"type": "string", "description": "mirrored into Mcp-Param-Region", "x-mcp-header": "Region"},
		"level": {"type": "integer", "description": "non-mirrored argument"}
	}
}`
