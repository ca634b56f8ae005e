package mcpcmp

import (
	"context"
	"net/http"
	"os"
	"sync/atomic"
	"testing"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp/mcpserver"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

type echoIn struct {
	Text string `json:"text"`
}

// serveEnv makes the test binary an MCP server on stdio (see TestMain).
const serveEnv = "BENCH_MCP_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "go-sdk" {
		srv, _ := goSDKServer(nil)
		if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// goSDKServer is the echo tool on the go-sdk alone; calls counts calls.
func goSDKServer(calls *atomic.Int64) (*sdk.Server, http.Handler) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			if calls != nil {
				calls.Add(1)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
		})
	return srv, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
}

// allowAll is the policy of the server comparison: every call allowed,
// as the raw servers have no policy at all.
type allowAll struct{}

func (allowAll) Decide(context.Context, policy.Call) policy.Decision {
	return policy.Decision{Action: policy.Allow, Rule: "bench"}
}

// reinServer is rein's MCP server with the echo tool.
func reinServer(tb testing.TB, calls *atomic.Int64) *mcpserver.Server {
	echo := tool.Func("echo", "Echo the text back.", func(_ context.Context, in echoIn) (string, error) {
		calls.Add(1)
		return in.Text, nil
	})
	set, err := tool.NewSet(echo)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := mcpserver.New(mcpserver.Config{Tools: set, Policy: allowAll{}, Name: "bench", Version: "1"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// mcpGoServer is the echo tool on mcp-go.
func mcpGoServer(calls *atomic.Int64) *mgserver.MCPServer {
	s := mgserver.NewMCPServer("bench", "1", mgserver.WithToolCapabilities(false))
	s.AddTool(mgmcp.NewTool("echo", mgmcp.WithDescription("Echo the text back."), mgmcp.WithString("text")),
		func(_ context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			calls.Add(1)
			return mgmcp.NewToolResultText(req.GetString("text", "")), nil
		})
	return s
}
