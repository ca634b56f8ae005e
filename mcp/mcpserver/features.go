package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// Features are MCP features served beside rein's tools. They use the
// go-sdk's types directly: they exist for servers that need MCP's richer
// shapes (images, embedded resources, elicitation, sampling, multi-round
// input) that a rein tool's text result cannot carry.
type Features struct {
	// Tools are tools written against MCP itself. They are listed and
	// called like rein tools — the policy decides each call, with the
	// declared Effects — but their handlers build the MCP result
	// themselves, so no result cap applies; the call is bounded by
	// Config.ToolTimeout and a panic becomes an isError result. An error
	// returned by a handler is a JSON-RPC error, as in the SDK.
	Tools []NativeTool
	// Prompts, Resources and ResourceTemplates are served as given.
	Prompts           []Prompt
	Resources         []Resource
	ResourceTemplates []ResourceTemplate
	// Complete answers completion/complete; nil leaves completions
	// unadvertised.
	Complete func(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error)
	// Subscribe and Unsubscribe accept resource subscriptions; with
	// Subscribe set the resources capability advertises subscribe.
	// Server.NotifyResourceUpdated tells subscribers of a change.
	Subscribe   func(context.Context, *sdk.SubscribeRequest) error
	Unsubscribe func(context.Context, *sdk.UnsubscribeRequest) error
	// Logging advertises the logging capability, for handlers that send
	// log messages (req.Session.Log).
	Logging bool
	// ListChanged advertises list-change notifications for tools,
	// prompts and resources, for servers that add features while
	// running (AddNativeTool, AddPrompt).
	ListChanged bool
}

// NativeTool is a tool written against MCP: its description, what it may
// touch (for the policy), and its handler.
type NativeTool struct {
	Tool    *sdk.Tool
	Effects tool.Effects
	Handler sdk.ToolHandler
	// TaskSupport lets the tool run as an MCP task (see
	// Config.TaskTools). In a task the handler may still ask for input
	// (a result with InputRequests): the task waits as input_required
	// until the client answers (tasks/update; for a 2025-11-25 session
	// the server asks the client directly), then the handler is called
	// again with the answers.
	TaskSupport TaskSupport
	// Gather, if set for a task-capable tool, runs before the task is
	// created, on every round of the call, before the policy is asked: it
	// returns a result with InputRequests while it needs more input —
	// answered to the client as it is, so input is gathered in
	// multi-round-trip fashion — and nil, nil once the call may start;
	// the handler then runs in the task with the request of that last
	// round (its InputResponses included). Gather must not act: it only
	// decides what to ask.
	Gather sdk.ToolHandler
}

// Prompt is a prompt and its handler.
type Prompt struct {
	Prompt  *sdk.Prompt
	Handler sdk.PromptHandler
}

// Resource is a resource and its handler.
type Resource struct {
	Resource *sdk.Resource
	Handler  sdk.ResourceHandler
}

// ResourceTemplate is a resource template and the handler reading the
// resources it matches.
type ResourceTemplate struct {
	Template *sdk.ResourceTemplate
	Handler  sdk.ResourceHandler
}

// addFeatures registers f's content.
func (s *Server) addFeatures(f *Features) error {
	if f == nil {
		return nil
	}
	for _, nt := range f.Tools {
		if err := s.AddNativeTool(nt); err != nil {
			return err
		}
	}
	for _, p := range f.Prompts {
		if err := s.AddPrompt(p); err != nil {
			return err
		}
	}
	for _, r := range f.Resources {
		if err := s.addResource(r); err != nil {
			return err
		}
	}
	for _, t := range f.ResourceTemplates {
		if err := s.addTemplate(t); err != nil {
			return err
		}
	}
	return nil
}

// AddNativeTool adds (or replaces) a native tool while the server runs;
// sessions that asked for list changes are told.
func (s *Server) AddNativeTool(nt NativeTool) error {
	if nt.Tool == nil || nt.Handler == nil {
		return fmt.Errorf("%w: a native tool needs a Tool and a Handler", ErrConfig)
	}
	if err := tool.ValidateName(nt.Tool.Name); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	spec := tool.Spec{Name: nt.Tool.Name, Description: nt.Tool.Description, Effects: nt.Effects}
	mt := nt.Tool
	if a := nt.Tool.Annotations; a != nil {
		spec.Annotations = tool.Annotations{
			Title: a.Title, ReadOnlyHint: &a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
			IdempotentHint: &a.IdempotentHint, OpenWorldHint: a.OpenWorldHint,
		}
		// Claims are listed only as far as the declared effects bear
		// them out. Absent annotations already read as the protocol's
		// most cautious defaults, so they are left absent.
		copied := *nt.Tool
		copied.Annotations = ToolAnnotations(spec)
		mt = &copied
	}
	if err := nt.TaskSupport.valid(); err != nil {
		return fmt.Errorf("%w: native tool %q: %v", ErrConfig, nt.Tool.Name, err)
	}
	if err := s.addTool(mt, s.nativeHandler(nt, spec)); err != nil {
		return err
	}
	s.setTaskSupport(nt.Tool.Name, nt.TaskSupport, nt.Gather != nil)
	return nil
}

// nativeHandler puts a native tool's calls under the policy, the call
// timeout and panic recovery.
func (s *Server) nativeHandler(nt NativeTool, spec tool.Spec) sdk.ToolHandler {
	h := nt.Handler
	timeout := s.cfg.ToolTimeout
	if timeout <= 0 {
		timeout = tool.DefaultTimeout
	}
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		if res, gathered, err := gatherRound(ctx, nt.Gather, req); gathered {
			return res, err
		}
		ctx, denied := s.admit(ctx, spec, normalizeArgs(req.Params.Arguments))
		if denied != nil {
			return denied, nil
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		defer func() {
			if v := recover(); v != nil {
				s.logPanic(spec.Name, v)
				res, err = errorResult("tool %q panicked: %v", spec.Name, v), nil
			}
		}()
		res, err = h(ctx, req)
		if err == nil && res == nil {
			res = &sdk.CallToolResult{Content: []sdk.Content{}}
		}
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errorResult("tool %q timed out after %v", spec.Name, timeout.Round(time.Millisecond)), nil
		}
		return res, err
	}
}

func (s *Server) logPanic(name string, v any) {
	if s.cfg.Logger != nil {
		s.cfg.Logger.Error("tool panicked", "tool", name, "value", fmt.Sprint(v), "stack", string(debug.Stack()))
	}
}

// AddPrompt adds (or replaces) a prompt while the server runs.
func (s *Server) AddPrompt(p Prompt) (err error) {
	if p.Prompt == nil || p.Handler == nil {
		return fmt.Errorf("%w: a prompt needs a Prompt and a Handler", ErrConfig)
	}
	defer recoverAdd(&err, "prompt", p.Prompt.Name)
	s.sdk.AddPrompt(p.Prompt, p.Handler)
	s.served.prompts.Store(true) // the SDK now declares prompts
	return nil
}

func (s *Server) addResource(r Resource) (err error) {
	if r.Resource == nil || r.Handler == nil {
		return fmt.Errorf("%w: a resource needs a Resource and a Handler", ErrConfig)
	}
	defer recoverAdd(&err, "resource", r.Resource.URI)
	s.sdk.AddResource(r.Resource, r.Handler)
	s.served.resources.Store(true)
	return nil
}

func (s *Server) addTemplate(t ResourceTemplate) (err error) {
	if t.Template == nil || t.Handler == nil {
		return fmt.Errorf("%w: a resource template needs a Template and a Handler", ErrConfig)
	}
	defer recoverAdd(&err, "resource template", t.Template.URITemplate)
	s.sdk.AddResourceTemplate(t.Template, t.Handler)
	s.served.resources.Store(true)
	return nil
}

// recoverAdd turns the SDK's panic over a malformed feature into an error.
func recoverAdd(err *error, what, name string) {
	if v := recover(); v != nil {
		*err = fmt.Errorf("%w: %s %q: %v", ErrConfig, what, name, v)
	}
}

// NotifyResourceUpdated tells the sessions subscribed to uri that it
// changed.
func (s *Server) NotifyResourceUpdated(ctx context.Context, uri string) error {
	return s.sdk.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: uri})
}
