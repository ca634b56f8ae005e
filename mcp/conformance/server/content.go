package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp/mcpserver"
)

// The media the suite expects: a 1×1 red PNG and a silent WAV.
var (
	pngPixel   = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	wavSilence = mustBase64("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic("conformance fixture: bad embedded media: " + err.Error())
	}
	return b
}

// textResource serves one fixed text.
func textResource(name, desc, uri, body string) mcpserver.Resource {
	return mcpserver.Resource{
		Resource: &sdk.Resource{Name: name, Description: desc, MIMEType: "text/plain", URI: uri},
		Handler: func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: body}}}, nil
		},
	}
}

func resources() []mcpserver.Resource {
	return []mcpserver.Resource{
		textResource("static-text", "A static text resource for testing", "test://static-text",
			"This is the content of the static text resource."),
		{
			Resource: &sdk.Resource{Name: "static-binary", Description: "A static binary resource (image) for testing", MIMEType: "image/png", URI: "test://static-binary"},
			Handler: func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: pngPixel}}}, nil
			},
		},
		textResource("watched-resource", "A resource reported as updated every 3 seconds", watchedURI, "Watched resource content"),
	}
}

// templateID extracts {id} from test://template/{id}/data.
var templateID = regexp.MustCompile(`^test://template/([^/]+)/data$`)

func templates() []mcpserver.ResourceTemplate {
	return []mcpserver.ResourceTemplate{{
		Template: &sdk.ResourceTemplate{
			Name: "template", Description: "A resource template with parameter substitution",
			MIMEType: "application/json", URITemplate: "test://template/{id}/data",
		},
		Handler: func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			uri := req.Params.URI
			m := templateID.FindStringSubmatch(uri)
			if m == nil {
				return nil, sdk.ResourceNotFoundError(uri)
			}
			body, err := json.Marshal(map[string]any{"id": m[1], "templateTest": true, "data": "Data for ID: " + m[1]})
			if err != nil {
				return nil, err
			}
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(body)}}}, nil
		},
	}}
}

// userPrompt is a prompt answering with fixed messages.
func userPrompt(name, title, desc string, args []*sdk.PromptArgument, h sdk.PromptHandler) mcpserver.Prompt {
	return mcpserver.Prompt{Prompt: &sdk.Prompt{Name: name, Title: title, Description: desc, Arguments: args}, Handler: h}
}

func (f *fixture) prompts() []mcpserver.Prompt {
	return []mcpserver.Prompt{
		userPrompt("test_simple_prompt", "Simple Test Prompt", "A simple prompt without arguments", nil,
			func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				return &sdk.GetPromptResult{Description: "A simple test prompt", Messages: []*sdk.PromptMessage{
					{Role: "user", Content: &sdk.TextContent{Text: "This is a simple prompt for testing."}},
				}}, nil
			}),
		userPrompt("test_prompt_with_arguments", "Prompt With Arguments", "A prompt with required arguments",
			[]*sdk.PromptArgument{
				{Name: "arg1", Description: "First test argument", Required: true},
				{Name: "arg2", Description: "Second test argument", Required: true},
			},
			func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				a := req.Params.Arguments
				return &sdk.GetPromptResult{Description: "A prompt with arguments", Messages: []*sdk.PromptMessage{
					{Role: "user", Content: &sdk.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}},
				}}, nil
			}),
		userPrompt("test_prompt_with_embedded_resource", "Prompt With Embedded Resource", "A prompt that includes an embedded resource",
			[]*sdk.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
			func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				return &sdk.GetPromptResult{Description: "A prompt with an embedded resource", Messages: []*sdk.PromptMessage{
					{Role: "user", Content: &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
						URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing.",
					}}},
					{Role: "user", Content: &sdk.TextContent{Text: "Please process the embedded resource above."}},
				}}, nil
			}),
		userPrompt("test_prompt_with_image", "Prompt With Image", "A prompt that includes image content", nil,
			func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				return &sdk.GetPromptResult{Description: "A prompt with an image", Messages: []*sdk.PromptMessage{
					{Role: "user", Content: &sdk.ImageContent{Data: pngPixel, MIMEType: "image/png"}},
					{Role: "user", Content: &sdk.TextContent{Text: "Please analyze the image above."}},
				}}, nil
			}),
		userPrompt("test_input_required_result_prompt", "", "MRTR (SEP-2322): asks for context with an elicitation input request", nil, promptWithInput),
	}
}

// complete answers completion requests with no suggestions: the suite
// checks the capability and the result's shape.
func complete(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}, Total: 0}}, nil
}
