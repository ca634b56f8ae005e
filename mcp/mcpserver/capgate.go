package mcpserver

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// served records which capabilities the server declares, as the SDK
// computes them for initialize and server/discover alike: a feature is
// declared once something of its kind is registered (the SDK adds the
// capability then), or from the start when Config says so. The gate reads
// it so a method is answered exactly when its capability is declared.
type served struct {
	tools, prompts, resources atomic.Bool
	// Fixed at New: the SDK declares these only from its options.
	completions, logging, subscribe bool
}

// capabilityOf names the capability each feature method needs. Methods
// not listed (ping, server/discover, tasks/*, notifications) are not
// gated here; the task methods answer for themselves.
var capabilityOf = map[string]string{
	"tools/list":               "tools",
	"tools/call":               "tools",
	"prompts/list":             "prompts",
	"prompts/get":              "prompts",
	"resources/list":           "resources",
	"resources/templates/list": "resources",
	"resources/read":           "resources",
	"resources/subscribe":      "resources.subscribe",
	"resources/unsubscribe":    "resources.subscribe",
	"completion/complete":      "completions",
	"logging/setLevel":         "logging",
}

// declares reports whether capability cap is declared now.
func (d *served) declares(cap string) bool {
	switch cap {
	case "tools":
		return d.tools.Load()
	case "prompts":
		return d.prompts.Load()
	case "resources":
		return d.resources.Load()
	case "resources.subscribe":
		return d.subscribe && d.resources.Load()
	case "completions":
		return d.completions
	case "logging":
		return d.logging
	}
	return false
}

// capabilityGate refuses, with method not found, a feature method whose
// capability the server does not declare. Left alone the SDK answers
// prompts/list with an empty list on a server without prompts, which
// tells a client the feature exists after the server said it does not
// (a client probing handlers against the declaration rightly fails it).
func (s *Server) capabilityGate(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if cap, ok := capabilityOf[method]; ok && !s.served.declares(cap) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("%s: this server does not declare the %s capability", method, cap)}
		}
		return next(ctx, method, req)
	}
}
