package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// renderResult turns a tools/call result into what the model sees. Text
// blocks are kept verbatim; media the model cannot read as text become a
// one-line description ("[image image/png, 12345 bytes]"); resource links
// and embedded resources name their URI and carry their text; the
// structured content rides along in Result.Structured and is rendered as
// JSON when the server sent no text.
func renderResult(res *sdk.CallToolResult) *tool.Result {
	out := &tool.Result{IsError: res.IsError}
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil && string(data) != "null" {
			out.Structured = data
		}
	}
	var b strings.Builder
	hasText := false
	for _, c := range res.Content {
		if c == nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if _, ok := c.(*sdk.TextContent); ok {
			hasText = true
		}
		renderContent(&b, c)
	}
	if !hasText && out.Structured != nil {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.Write(out.Structured)
	}
	out.Content = b.String()
	if out.Content == "" && out.IsError {
		out.Content = "the tool reported an error without a message"
	}
	return out
}

// renderContent writes one content block.
func renderContent(b *strings.Builder, c sdk.Content) {
	switch c := c.(type) {
	case *sdk.TextContent:
		b.WriteString(c.Text)
	case *sdk.ImageContent:
		fmt.Fprintf(b, "[image %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.AudioContent:
		fmt.Fprintf(b, "[audio %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.ResourceLink:
		b.WriteString("[resource link: ")
		name := c.Title
		if name == "" {
			name = c.Name
		}
		if name != "" {
			b.WriteString(oneLine(name))
			b.WriteByte(' ')
		}
		fmt.Fprintf(b, "<%s>", oneLine(c.URI))
		if c.MIMEType != "" {
			fmt.Fprintf(b, " %s", oneLine(c.MIMEType))
		}
		if c.Size != nil {
			fmt.Fprintf(b, ", %d bytes", *c.Size)
		}
		if c.Description != "" {
			fmt.Fprintf(b, ": %s", oneLine(c.Description))
		}
		b.WriteByte(']')
	case *sdk.EmbeddedResource:
		renderResourceContents(b, c.Resource)
	default:
		// Tool-use blocks only appear in sampling; show the type so the
		// model knows something was there.
		data, _ := json.Marshal(c)
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(data, &head)
		fmt.Fprintf(b, "[%s content]", orUnknown(oneLine(head.Type)))
	}
}

// renderResourceContents writes an embedded or read resource: a header
// naming its URI, then its text, or a description of its blob.
func renderResourceContents(b *strings.Builder, r *sdk.ResourceContents) {
	if r == nil {
		b.WriteString("[resource: empty]")
		return
	}
	switch {
	case r.Blob != nil:
		fmt.Fprintf(b, "[resource <%s> %s, %d bytes]", oneLine(r.URI), orUnknown(r.MIMEType), len(r.Blob))
	default:
		fmt.Fprintf(b, "[resource <%s>", oneLine(r.URI))
		if r.MIMEType != "" {
			fmt.Fprintf(b, " %s", oneLine(r.MIMEType))
		}
		b.WriteString("]\n")
		b.WriteString(r.Text)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "of unknown type"
	}
	return s
}

// oneLine keeps server-supplied metadata (names, URIs) on one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
