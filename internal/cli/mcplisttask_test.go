package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/mcp/mcpserver"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

type allowEverything struct{}

func (allowEverything) Decide(context.Context, policy.Call) policy.Decision {
	return policy.Decision{Action: policy.Allow, Rule: "test:allow"}
}

// taskToolsURL serves, over loopback Streamable HTTP, a tool that
// requires a task (slow), one that allows one (opt) and one without task
// support (plain).
func taskToolsURL(t *testing.T) string {
	t.Helper()
	obj := json.RawMessage(`{"type":"object"}`)
	done := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
	}
	native := func(name string, ts mcpserver.TaskSupport) mcpserver.NativeTool {
		return mcpserver.NativeTool{Tool: &sdk.Tool{Name: name, Description: name, InputSchema: obj}, TaskSupport: ts, Handler: done}
	}
	set, err := tool.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.New(mcpserver.Config{Tools: set, Policy: allowEverything{}, Features: &mcpserver.Features{Tools: []mcpserver.NativeTool{
		native("slow", mcpserver.TaskRequired), native("opt", mcpserver.TaskOptional), native("plain", mcpserver.TaskForbidden),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestMCPListTasks: `rein mcp list` marks each task-capable tool with how
// rein calls it — required as a task always; optional as a task with
// tasks = "always" (2025-11-25), at the server's choice (2026-07-28), or
// directly — and lists the tools it hides because they require a task
// rein cannot run, with the reason (tasks = "never"; an era without
// tasks), in text and in JSON.
func TestMCPListTasks(t *testing.T) {
	url := taskToolsURL(t)
	server := func(name, era, tasks string) string {
		s := fmt.Sprintf("[mcp_servers.%s]\nurl = %q\nprotocol_version = %q\n", name, url, era)
		if tasks != "" {
			s += fmt.Sprintf("tasks = %q\n", tasks)
		}
		return s + "\n"
	}
	cfg := server("auto26", "2026-07-28", "") + server("always25", "2025-11-25", "always") +
		server("auto25", "2025-11-25", "") + server("never", "2026-07-28", "never") + server("old", "2025-06-18", "")

	code, out, errOut := mcpRun(t, cfg, "", "list")
	if code != ExitOK {
		t.Fatalf("list: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"auto26 tools: auto26__opt [task: optional, the server decides], auto26__plain, auto26__slow [task]\n",
		"always25 tools: always25__opt [task: optional, called as a task], always25__plain, always25__slow [task]\n",
		"auto25 tools: auto25__opt [task: optional, called directly], auto25__plain, auto25__slow [task]\n",
		"never tools: never__opt [task: optional, called directly], never__plain\n",
		"never hides 1 tool(s) rein cannot run as tasks:\n  slow: it must be called as an MCP task, and the server's tasks setting is \"never\"\n",
		"old hides 1 tool(s) rein cannot run as tasks:\n  slow: it must be called as an MCP task, and the server speaks 2025-06-18, which has no tasks\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"auto26 hides", "always25 hides", "auto25 hides", "old__slow", "never__slow"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("list output has %q:\n%s", unwanted, out)
		}
	}

	code, out, _ = mcpRun(t, cfg, "", "list", "--output-format", "json")
	var sts []statusView
	if code != ExitOK || json.Unmarshal([]byte(out), &sts) != nil || len(sts) != 5 {
		t.Fatalf("list --json: exit %d\n%s", code, out)
	}
	byName := map[string]statusView{}
	for _, st := range sts {
		byName[st.Name] = st
	}
	if got := byName["auto26"].Tasks; got["auto26__slow"] != mcp.TaskUseRequired || got["auto26__opt"] != mcp.TaskUseServerDecides || got["auto26__plain"] != "" {
		t.Errorf("auto26 tasks = %v", got)
	}
	if got := byName["always25"].Tasks["always25__opt"]; got != mcp.TaskUseAsTask {
		t.Errorf("always25 opt = %q, want %q", got, mcp.TaskUseAsTask)
	}
	if h := byName["never"].Hidden; len(h) != 1 || h[0].Name != "slow" || !strings.Contains(h[0].Reason, `tasks setting is "never"`) {
		t.Errorf("never hidden = %+v", h)
	}
	if h := byName["auto26"].Hidden; h != nil {
		t.Errorf("auto26 hides %+v", h)
	}
}
