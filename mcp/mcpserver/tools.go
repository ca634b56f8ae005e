package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// addReinTools registers each rein tool with a handler that asks the
// policy and then runs the tool under tool.Invoke.
func (s *Server) addReinTools(set *tool.Set) error {
	for _, t := range set.Tools() {
		spec := t.Spec()
		// The set normalised the schema (an empty one became the empty
		// object schema); use its copy.
		if cached, ok := set.Spec(spec.Name); ok {
			spec = cached
		}
		mt, err := sdkTool(spec)
		if err != nil {
			return err
		}
		if err := s.addTool(mt, s.reinHandler(t, spec)); err != nil {
			return err
		}
		s.setTaskSupport(spec.Name, s.cfg.TaskTools[spec.Name], false)
	}
	return nil
}

// sdkTool describes a rein tool the way MCP lists it.
func sdkTool(spec tool.Spec) (*sdk.Tool, error) {
	if err := checkObjectSchema(spec.Name, spec.InputSchema); err != nil {
		return nil, err
	}
	return &sdk.Tool{
		Name:        spec.Name,
		Title:       spec.Annotations.Title,
		Description: spec.Description,
		InputSchema: json.RawMessage(spec.InputSchema),
		Annotations: ToolAnnotations(spec),
	}, nil
}

// checkObjectSchema enforces MCP's rule that an input schema is an object
// schema ("type": "object"), which the SDK would otherwise panic over.
func checkObjectSchema(name string, schema json.RawMessage) error {
	var head struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(schema, &head); err != nil {
		return fmt.Errorf("%w: tool %q: the input schema is not a JSON object (%v)", ErrConfig, name, err)
	}
	if head.Type != "object" {
		return fmt.Errorf("%w: tool %q: the input schema has \"type\": %v; MCP requires \"type\": \"object\" at the top", ErrConfig, name, jsonText(head.Type))
	}
	return nil
}

func jsonText(v any) string {
	if v == nil {
		return "(absent)"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// addTool registers a tool, turning the SDK's panics over a malformed
// tool into an error.
func (s *Server) addTool(t *sdk.Tool, h sdk.ToolHandler) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: tool %q: %v", ErrConfig, t.Name, v)
		}
	}()
	s.sdk.AddTool(t, h)
	s.served.tools.Store(true) // the SDK now declares tools
	return nil
}

// ToolAnnotations derives the MCP tool annotations a rein tool is listed
// with. Effects are rein's own declaration of what a tool touches, the
// Annotations the tool's claims; the result never claims more safety than
// either grants:
//
//   - readOnlyHint is true only for a tool whose Effects change nothing
//     (at most it reads files) and that does not itself claim otherwise;
//     a network-only tool keeps its own claim, since rein cannot see the
//     far side.
//   - destructiveHint is true for anything that runs commands, for file
//     writers unless they claim otherwise, and for outside tools unless
//     they claim otherwise; false for read-only tools.
//   - openWorldHint is true when the tool reaches the network, runs
//     commands or is provided by an outside server, or claims so.
//   - idempotentHint and title are the tool's own claims.
func ToolAnnotations(spec tool.Spec) *sdk.ToolAnnotations {
	a, e := spec.Annotations, spec.Effects
	claims := func(p *bool) bool { return p != nil && *p }
	denies := func(p *bool) bool { return p != nil && !*p }

	out := &sdk.ToolAnnotations{Title: a.Title, IdempotentHint: claims(a.IdempotentHint)}
	switch {
	case e.WritesFiles || e.Exec || e.External:
		out.ReadOnlyHint = false
	case e.Network:
		out.ReadOnlyHint = claims(a.ReadOnlyHint)
	default:
		out.ReadOnlyHint = !denies(a.ReadOnlyHint)
	}

	destructive := true
	switch {
	case out.ReadOnlyHint:
		destructive = false
	case e.Exec:
		// A command can remove whatever it can reach; no claim lifts that.
	default:
		destructive = !denies(a.DestructiveHint)
	}
	out.DestructiveHint = &destructive

	openWorld := e.Network || e.Exec || e.External || claims(a.OpenWorldHint)
	out.OpenWorldHint = &openWorld
	return out
}

// reinHandler serves tools/call for a rein tool.
func (s *Server) reinHandler(t tool.Tool, spec tool.Spec) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args := normalizeArgs(req.Params.Arguments)
		ctx, answer, err := s.admitRein(ctx, req, spec, args)
		if answer != nil || err != nil {
			return answer, err
		}
		// Output a tool reports as it goes (run_command's lines) reaches
		// a client that asked for progress before the result does.
		ctx, stop := withProgress(ctx, req)
		res := tool.Invoke(ctx, t, args, s.invoke)
		stop()
		return callResult(res), nil
	}
}

// normalizeArgs turns absent arguments into the empty object, which is
// what a tool without parameters expects.
func normalizeArgs(args json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage(`{}`)
	}
	return args
}

// callResult renders a rein result as MCP content: one text block, plus
// structuredContent when the tool produced a JSON object.
func callResult(res *tool.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{
		Content: []sdk.Content{&sdk.TextContent{Text: res.Content}},
		IsError: res.IsError,
	}
	if st := bytes.TrimSpace(res.Structured); len(st) > 0 && st[0] == '{' && json.Valid(st) {
		out.StructuredContent = json.RawMessage(st)
	}
	return out
}

// errorResult is an isError result with text.
func errorResult(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}},
		IsError: true,
	}
}
