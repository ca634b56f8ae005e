package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

// TestAgentCallsEverything runs the agent loop, driven by a scripted model,
// over the MCP tools of server-everything: the model asks for get-sum and
// the result the server computed comes back as the tool result. It is the
// path `rein run` takes once the CLI hands the Manager's tools to the
// agent, over stdio and over Streamable HTTP.
func TestAgentCallsEverything(t *testing.T) {
	stdio := ServerConfig{Name: "every", Command: nodeBin(t), Args: []string{everythingJS(t), "stdio"}}
	port := freePort(t)
	startNode(t, port, nil, everythingJS(t), "streamableHttp")
	http := ServerConfig{Name: "every", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}
	for _, sc := range []ServerConfig{stdio, http} {
		t.Run(string(sc.withDefaults().Transport), func(t *testing.T) {
			ctx := testCtx(t, 60*time.Second)
			m, _ := newManager(t, Config{Servers: []ServerConfig{sc}, Interaction: Decline{}})
			tools, err := m.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			set, err := tool.NewSet(tools...)
			if err != nil {
				t.Fatal(err)
			}
			provider := modeltest.NewScripted(
				modeltest.ToolCalls(model.ToolCall{ID: "c1", Name: "every__get-sum", Args: json.RawMessage(`{"a":19,"b":23}`)}),
				modeltest.Text("The sum is 42."),
			)
			ag, err := agent.New(agent.Config{Provider: provider, Tools: set, ContextWindow: 100000})
			if err != nil {
				t.Fatal(err)
			}
			var results []*model.ToolResult
			var out *agent.Outcome
			for ev, err := range ag.Run(ctx, agent.NewConversation("mcp-test"), "add 19 and 23") {
				if err != nil {
					t.Fatal(err)
				}
				switch ev.Type {
				case agent.EventToolResult:
					results = append(results, ev.ToolResult)
				case agent.EventSessionCompleted:
					out = ev.Outcome
				}
			}
			if out == nil || out.Kind != agent.Complete {
				t.Fatalf("outcome = %+v", out)
			}
			if len(results) != 1 || results[0].IsError || !strings.Contains(fmt.Sprint(results[0].Content), "42") {
				t.Errorf("tool results = %+v, want get-sum's 42", results)
			}
			if reqs := provider.Requests(); len(reqs) == 0 || !hasTool(reqs[0].Tools, "every__get-sum") {
				t.Error("the model was not offered every__get-sum")
			}
		})
	}
}

func hasTool(specs []model.ToolSpec, name string) bool {
	for _, s := range specs {
		if s.Name == name {
			return true
		}
	}
	return false
}
