package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// Prompt is a prompt template a server offers.
type Prompt struct {
	Server      string
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// PromptResult is a prompt filled in by the server: messages to put into
// the conversation, rendered as text.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptMessage is one message of a PromptResult.
type PromptMessage struct {
	Role string // "user" or "assistant"
	Text string
}

// ErrNoPrompts is returned for a server that does not offer prompts.
var ErrNoPrompts = errors.New("the server does not offer prompts")

// Prompts lists the prompts of one server (all pages).
func (m *Manager) Prompts(ctx context.Context, serverName string) ([]Prompt, error) {
	s, sess, err := m.ready(ctx, serverName)
	if err != nil {
		return nil, err
	}
	if caps := sess.cs.InitializeResult().Capabilities; caps == nil || caps.Prompts == nil {
		return nil, fmt.Errorf("mcp server %q: %w", serverName, ErrNoPrompts)
	}
	var out []Prompt
	for p, err := range sess.cs.Prompts(ctx, nil) {
		if err != nil {
			return nil, s.callError(ctx, sess, "listing prompts", err)
		}
		if len(out) == maxListItems {
			break
		}
		pr := Prompt{Server: serverName, Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			if a != nil {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, pr)
	}
	slices.SortFunc(out, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// GetPrompt fills in a prompt of one server with args.
func (m *Manager) GetPrompt(ctx context.Context, serverName, name string, args map[string]string) (*PromptResult, error) {
	s, sess, err := m.ready(ctx, serverName)
	if err != nil {
		return nil, err
	}
	res, err := sess.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, s.callError(ctx, sess, fmt.Sprintf("getting prompt %q", clip(name, 100)), err)
	}
	out := &PromptResult{Description: res.Description}
	for _, msg := range res.Messages {
		if msg == nil {
			continue
		}
		var b strings.Builder
		if msg.Content != nil {
			renderContent(&b, msg.Content)
		}
		out.Messages = append(out.Messages, PromptMessage{Role: string(msg.Role), Text: b.String()})
	}
	return out, nil
}

// CallTool calls a tool of one server by the server's own tool name or by
// its exposed name (<server>__<tool>), applying enabled_tools and
// disabled_tools. It is what `rein mcp call` uses; the agent calls the
// tool.Tool values from Tools instead.
func (m *Manager) CallTool(ctx context.Context, serverName, toolName string, args json.RawMessage) (*tool.Result, error) {
	s, _, err := m.ready(ctx, serverName)
	if err != nil {
		return nil, err
	}
	for _, t := range s.adapt() {
		mt, ok := t.(*mcpTool)
		if ok && (mt.remote == toolName || mt.spec.Name == toolName) {
			return mt.Call(ctx, args)
		}
		if rt, ok := t.(*resourceTool); ok && rt.spec.Name == toolName {
			return rt.Call(ctx, args)
		}
	}
	if !s.exposes(toolName) {
		return nil, fmt.Errorf("mcp server %q: tool %q is turned off by enabled_tools or disabled_tools in %s", serverName, clip(toolName, 100), s.cfg.Source)
	}
	var names []string
	for _, t := range s.adapt() {
		if mt, ok := t.(*mcpTool); ok {
			names = append(names, mt.remote)
		}
	}
	return nil, fmt.Errorf("mcp server %q has no tool %q; it offers: %s", serverName, clip(toolName, 100), strings.Join(names, ", "))
}

// ready returns a connected server by name, waiting for its first
// connection attempt.
func (m *Manager) ready(ctx context.Context, name string) (*server, *session, error) {
	m.Start()
	s, err := m.server(name)
	if err != nil {
		return nil, nil, err
	}
	if m.ctx.Err() != nil {
		return nil, nil, errClosed
	}
	if err := s.awaitStartup(ctx, noGrace); err != nil && !errors.Is(err, errNotReady) {
		return nil, nil, err
	}
	sess, err := s.session(ctx)
	if err != nil {
		return nil, nil, err
	}
	return s, sess, nil
}
