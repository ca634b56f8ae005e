package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp/mcpserver"
	"github.com/reinharness/rein/tool"
)

// The tasks tools (SEP-2663, the io.modelcontextprotocol/tasks extension;
// and the 2025-11-25 core tasks). They run on mcpserver's own task
// machinery: the fixture only declares which tools are task-capable.

// maxComputeSeconds bounds slow_compute, so a scenario cannot park a
// goroutine for longer than the suite runs.
const maxComputeSeconds = 120

type greetArgs struct {
	Name string `json:"name"`
}

type computeArgs struct {
	Seconds float64 `json:"seconds"`
	Label   string  `json:"label,omitempty"`
}

// taskReinTools are the text-only tasks tools: greet is synchronous,
// slow_compute may run as a task.
func taskReinTools() ([]tool.Tool, error) {
	greet, err := tool.NewFunc("greet", "Returns Hello, {name}! (synchronous only)",
		func(_ context.Context, in greetArgs) (string, error) {
			return fmt.Sprintf("Hello, %s!", in.Name), nil
		})
	if err != nil {
		return nil, err
	}
	compute, err := tool.NewFunc("slow_compute", "Sleeps `seconds` seconds, then reports it; runs as a task for clients that have the tasks extension",
		func(ctx context.Context, in computeArgs) (string, error) {
			if in.Seconds < 0 || in.Seconds > maxComputeSeconds {
				return "", fmt.Errorf("seconds must be between 0 and %d", maxComputeSeconds)
			}
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
				return fmt.Sprintf("computed %q after %gs", in.Label, in.Seconds), nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})
	if err != nil {
		return nil, err
	}
	return []tool.Tool{greet, compute}, nil
}

// taskToolSupport marks the rein tools that may run as tasks.
var taskToolSupport = map[string]mcpserver.TaskSupport{"slow_compute": mcpserver.TaskOptional}

// taskNativeTools are the tasks tools that need MCP's shapes: tool and
// protocol errors, input requests inside a task, and input gathered
// before a task starts.
func taskNativeTools() []mcpserver.NativeTool {
	objectArgs := func(props string) *sdk.Tool {
		return &sdk.Tool{InputSchema: json.RawMessage(`{"type":"object","properties":{` + props + `}}`)}
	}
	named := func(t *sdk.Tool, name, desc string) *sdk.Tool {
		t.Name, t.Description = name, desc
		return t
	}
	return []mcpserver.NativeTool{
		{
			Tool:        named(objectArgs(""), "failing_job", "Must run as a task; reports a tool error after about a second"),
			TaskSupport: mcpserver.TaskRequired,
			Handler:     failingJob,
		},
		{
			Tool:        named(objectArgs(""), "protocol_error_job", "Runs as a task that fails with a protocol error"),
			TaskSupport: mcpserver.TaskOptional,
			Handler: func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return nil, errors.New("protocol_error_job failed on purpose")
			},
		},
		{
			Tool:        named(objectArgs(`"filename":{"type":"string"}`), "confirm_delete", "Runs as a task that asks for a confirmation (elicitation) before it completes"),
			TaskSupport: mcpserver.TaskOptional,
			Handler:     confirmDelete,
		},
		{
			Tool:        named(objectArgs(""), "multi_input", "Runs as a task that asks for two inputs at once"),
			TaskSupport: mcpserver.TaskOptional,
			Handler:     multiInput,
		},
		{
			Tool:        named(objectArgs(""), "test_tool_with_task", "Asks for user_name (multi-round-trip), then runs as a task that greets them"),
			TaskSupport: mcpserver.TaskRequired,
			Gather:      gatherName,
			Handler: func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				name, _ := accepted(req.Params.InputResponses, "user_name")["name"].(string)
				return text("Hello, %s! (from a task)", name), nil
			},
		},
	}
}

func failingJob(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	select {
	case <-time.After(time.Second):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	res := text("failing_job failed, as it always does")
	res.IsError = true
	return res, nil
}

func confirmSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"confirm": {Type: "boolean"}}, Required: []string{"confirm"}}
}

func confirmDelete(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		Filename string `json:"filename"`
	}
	json.Unmarshal(req.Params.Arguments, &args) // a missing name reads ""
	if c := accepted(req.Params.InputResponses, "confirm"); c != nil {
		if ok, _ := c["confirm"].(bool); ok {
			return text("deleted %s", args.Filename), nil
		}
		return text("kept %s", args.Filename), nil
	}
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{
		"confirm": &sdk.ElicitParams{Message: "Delete " + args.Filename + "?", RequestedSchema: confirmSchema()},
	}}, nil
}

func multiInput(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	first := accepted(req.Params.InputResponses, "first")
	second := accepted(req.Params.InputResponses, "second")
	if first != nil && second != nil {
		return text("got %v and %v", first["name"], second["name"]), nil
	}
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{
		"first":  nameRequest("First input: a name"),
		"second": nameRequest("Second input: another name"),
	}}, nil
}

// gatherName asks for user_name until it has one.
func gatherName(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if name, _ := accepted(req.Params.InputResponses, "user_name")["name"].(string); name != "" {
		return nil, nil
	}
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"user_name": nameRequest("What is your name?")}}, nil
}
