package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// maxResourcesListed caps list_resources so a server with a huge catalogue
// cannot flood the model; the result says how many were left out.
const maxResourcesListed = 500

// resourceTool is one of the two tools through which the model reaches a
// server's resources: <server>__list_resources and
// <server>__read_resource {uri}. They exist only for servers with the
// resources capability.
type resourceTool struct {
	s    *server
	read bool
	spec tool.Spec
}

// Spec implements tool.Tool.
func (t *resourceTool) Spec() tool.Spec { return t.spec }

// Timeout implements tool.Timeouter.
func (t *resourceTool) Timeout() time.Duration { return t.s.cfg.ToolTimeout }

// Call implements tool.Tool.
func (t *resourceTool) Call(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	if t.read {
		return t.s.readResource(ctx, args)
	}
	return t.s.listResources(ctx)
}

// resourceTools returns the resource tools, named "<server>__list_resources"
// and "<server>__read_resource" unless a server tool took those names, in
// which case they get a hash suffix like any other colliding name.
func (s *server) resourceTools(taken map[string]bool) []tool.Tool {
	readOnly := true
	effects := tool.Effects{External: true, Network: s.remote()}
	mk := func(base, desc, schema string, read bool) tool.Tool {
		name := s.cfg.Name + nameSep + base
		if taken[name] {
			name = hashedName(s.cfg.Name, "\x00"+base, 8)
		}
		return &resourceTool{s: s, read: read, spec: tool.Spec{
			Name:        name,
			Description: desc,
			InputSchema: json.RawMessage(schema),
			Annotations: tool.Annotations{ReadOnlyHint: &readOnly},
			Effects:     effects,
		}}
	}
	return []tool.Tool{
		mk("list_resources", fmt.Sprintf("List the resources (documents, files, data) that the MCP server %q offers, with their URIs and resource templates. Read one with %s__read_resource.", s.cfg.Name, s.cfg.Name),
			`{"type":"object","properties":{},"additionalProperties":false}`, false),
		mk("read_resource", fmt.Sprintf("Read a resource of the MCP server %q by its URI (from %s__list_resources or a resource template).", s.cfg.Name, s.cfg.Name),
			`{"type":"object","properties":{"uri":{"type":"string","description":"The resource URI."}},"required":["uri"],"additionalProperties":false}`, true),
	}
}

// listResources renders the server's resources and resource templates.
func (s *server) listResources(ctx context.Context) (*tool.Result, error) {
	sess, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	n := 0
	for r, err := range sess.cs.Resources(ctx, nil) {
		if err != nil {
			return nil, s.callError(ctx, sess, "listing resources", err)
		}
		if n == maxResourcesListed {
			fmt.Fprintf(&b, "… more resources not shown (the first %d are listed)\n", maxResourcesListed)
			break
		}
		n++
		writeResourceLine(&b, r.URI, r.Name, r.Title, r.MIMEType, r.Description)
	}
	if n == 0 {
		b.WriteString("The server lists no resources.\n")
	}
	t := 0
	for rt, err := range sess.cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			// Templates are optional; many servers do not implement the method.
			break
		}
		if t == 0 {
			b.WriteString("\nResource templates (fill in the {variables} to form a URI):\n")
		}
		if t == maxResourcesListed {
			break
		}
		t++
		writeResourceLine(&b, rt.URITemplate, rt.Name, rt.Title, rt.MIMEType, rt.Description)
	}
	return &tool.Result{Content: strings.TrimRight(b.String(), "\n")}, nil
}

func writeResourceLine(b *strings.Builder, uri, name, title, mime, desc string) {
	fmt.Fprintf(b, "- %s", oneLine(uri))
	if title != "" {
		name = title
	}
	if name != "" {
		fmt.Fprintf(b, " — %s", oneLine(name))
	}
	if mime != "" {
		fmt.Fprintf(b, " (%s)", oneLine(mime))
	}
	if desc != "" {
		fmt.Fprintf(b, ": %s", clip(oneLine(desc), 300))
	}
	b.WriteByte('\n')
}

// readResource reads one resource and renders its contents.
func (s *server) readResource(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(args, &in); err != nil || strings.TrimSpace(in.URI) == "" {
		return tool.ErrorResult(`read_resource needs {"uri": "<resource URI>"}`), nil
	}
	sess, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	res, err := sess.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: in.URI})
	if err != nil {
		return nil, s.callError(ctx, sess, fmt.Sprintf("reading %q", clip(in.URI, 200)), err)
	}
	if len(res.Contents) == 0 {
		return &tool.Result{Content: fmt.Sprintf("[resource <%s> is empty]", oneLine(in.URI))}, nil
	}
	var b strings.Builder
	for i, c := range res.Contents {
		if i > 0 {
			b.WriteByte('\n')
		}
		renderResourceContents(&b, c)
	}
	return &tool.Result{Content: b.String()}, nil
}
