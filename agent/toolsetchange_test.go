package agent

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

func offeredNames(req *model.Request) []string {
	var out []string
	for _, s := range req.Tools {
		out = append(out, s.Name)
	}
	return out
}

// A tool added to the Set while a run is under way (an MCP server that
// connected late) is offered from the next model call on, and can be
// called then; one removed is no longer offered.
func TestToolSetChangesReachTheNextModelCall(t *testing.T) {
	var set *tool.Set
	late := newTool("late", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: "late ran"}, nil
	})
	joiner := newTool("join", func(context.Context, json.RawMessage) (*tool.Result, error) {
		if err := set.Add(late); err != nil {
			return nil, err
		}
		set.Remove("gone")
		return &tool.Result{Content: "joined"}, nil
	})
	set = mustSet(t, joiner, echoTool(), newTool("gone", nil))
	p := modeltest.NewScripted(
		modeltest.ToolCalls(call("c1", "join", `{}`)),
		modeltest.ToolCalls(call("c2", "late", `{}`)),
		modeltest.Text("done"),
	)
	a := mustAgent(t, Config{Provider: p, Tools: set})
	r := collect(t, a, context.Background(), NewConversation(""), "go")
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome %s (%s), want complete", r.outcome.Kind, r.outcome.Err)
	}
	reqs := p.Requests()
	want := [][]string{{"join", "echo", "gone"}, {"join", "echo", "late"}, {"join", "echo", "late"}}
	var got [][]string
	for _, req := range reqs {
		got = append(got, offeredNames(req))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("offered tools per model call (-want +got):\n%s", diff)
	}
	results := r.ofType(EventToolResult)
	if len(results) != 2 || results[1].ToolResult.IsError || results[1].ToolResult.Content != "late ran" {
		t.Errorf("the late tool's call did not run: %+v", results)
	}
}

// A run restricted by AllowedTools does not offer a tool that joins the
// Set mid-run unless the restriction names it.
func TestToolSetChangesKeepTheRestriction(t *testing.T) {
	var set *tool.Set
	joiner := newTool("join", func(context.Context, json.RawMessage) (*tool.Result, error) {
		if err := set.Add(newTool("late", nil), newTool("named", nil)); err != nil {
			return nil, err
		}
		return &tool.Result{Content: "joined"}, nil
	})
	set = mustSet(t, joiner)
	p := modeltest.NewScripted(modeltest.ToolCalls(call("c1", "join", `{}`)), modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: set})
	r := collectWith(t, a, NewConversation(""), RunOptions{AllowedTools: []string{"join", "named"}})
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome %s (%s)", r.outcome.Kind, r.outcome.Err)
	}
	reqs := p.Requests()
	if got := offeredNames(reqs[1]); !slices.Equal(got, []string{"join", "named"}) {
		t.Errorf("second call offered %v, want [join named]", got)
	}
}
