package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/mcp/mcpserver"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// allowAll is the policy of this example's server; a real server decides
// with a policy.Engine.
type allowAll struct{}

func (allowAll) Decide(context.Context, policy.Call) policy.Decision {
	return policy.Decision{Action: policy.Allow, Rule: "example"}
}

// Both ends of MCP in one program: package mcpserver serves a Go function
// on a loopback port, and a Manager connects to it like to any configured
// server, lists its tools under the server's name and calls one.
func ExampleManager() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	type upperIn struct {
		Text string `json:"text"`
	}
	upper := tool.Func("upper", "Returns the text in capitals.", func(ctx context.Context, in upperIn) (string, error) {
		return strings.ToUpper(in.Text), nil
	})
	tools, err := tool.NewSet(upper)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Config{Tools: tools, Policy: allowAll{}})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ln, err := srv.Listen("") // 127.0.0.1 on a free port
	if err != nil {
		log.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx, ln) }()
	defer func() { stop(); <-served }()

	m, err := mcp.New(mcp.Config{Servers: []mcp.ServerConfig{{
		Name: "demo",
		URL:  "http://" + ln.Addr().String() + mcpserver.EndpointPath,
	}}})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	offered, err := m.Tools(ctx) // waits for the servers to connect
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range offered {
		fmt.Println("tool:", t.Spec().Name)
	}
	res := tool.Invoke(ctx, offered[0], json.RawMessage(`{"text":"hello"}`), tool.InvokeOptions{})
	fmt.Println("result:", res.Content, res.IsError)
	// Output:
	// tool: demo__upper
	// result: HELLO false
}
