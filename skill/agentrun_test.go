package skill_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/skill"
	"github.com/reinharness/rein/tool"
)

type textIn struct {
	Text string `json:"text"`
}

func prefixTool(name, prefix string) tool.Tool {
	return tool.Func(name, "test tool", func(_ context.Context, in textIn) (string, error) { return prefix + in.Text, nil },
		tool.WithEffects(tool.Effects{ReadsFiles: true}))
}

func offered(req *model.Request) []string {
	var out []string
	for _, s := range req.Tools {
		out = append(out, s.Name)
	}
	return out
}

func lastResult(c *agent.Conversation) string {
	msgs := c.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if rs := msgs[i].ToolResultParts(); len(rs) > 0 {
			return rs[len(rs)-1].Content
		}
	}
	return ""
}

func callTool(id, name, args string) modeltest.Turn {
	return modeltest.ToolCalls(model.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)})
}

// runWith runs ag to its end with opts and returns the conversation.
func runWith(t *testing.T, ag *agent.Agent, opts agent.RunOptions) (*agent.Conversation, *agent.Outcome) {
	t.Helper()
	c := agent.NewConversation("")
	var out *agent.Outcome
	for ev, err := range ag.RunWith(context.Background(), c, "go", opts) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == agent.EventSessionCompleted {
			out = ev.Outcome
		}
	}
	return c, out
}

// TestRegistryThroughAgentRun: one Agent, a skill activated and
// deactivated between runs with Registry.RunOptions. While pdf is active
// the model is offered pdf__merge and the skill's pdf__fill (shadowing a
// base tool of that name), its call reaches the skill's tool and the
// system prompt carries "# Skill: pdf" after the Agent's prompt; after
// deactivation the original pdf__fill is back and the section is gone.
func TestRegistryThroughAgentRun(t *testing.T) {
	original := prefixTool("pdf__fill", "original ")
	base, err := tool.NewSet(prefixTool("lookup", "found "), original)
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := skill.New("pdf", "PDF forms.", "Fill forms with pdf__fill.", prefixTool("fill", "skill "), prefixTool("merge", "merged "))
	if err != nil {
		t.Fatal(err)
	}
	p := modeltest.NewScripted(
		callTool("c1", "pdf__fill", `{"text":"form"}`), modeltest.Text("filled"),
		callTool("c2", "pdf__fill", `{"text":"form"}`), modeltest.Text("filled again"),
	)
	ag, err := agent.New(agent.Config{Provider: p, System: "You help.", Tools: base})
	if err != nil {
		t.Fatal(err)
	}
	reg := skill.NewRegistry(base, skill.RegistryOptions{})
	if _, err := reg.Activate(context.Background(), pdf); err != nil {
		t.Fatal(err)
	}
	opts, err := reg.RunOptions(agent.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, out := runWith(t, ag, opts)
	req := p.Requests()[0]
	if got := offered(req); !slices.Equal(got, []string{"lookup", "pdf__fill", "pdf__merge"}) {
		t.Errorf("while active the model was offered %v", got)
	}
	if !strings.HasPrefix(req.System, "You help.\n\n# Skill: pdf\n\nFill forms with pdf__fill.") {
		t.Errorf("system prompt while active: %q", req.System)
	}
	if got := lastResult(c); got != "skill form" || out.Text != "filled" {
		t.Errorf("pdf__fill while active returned %q (answer %q); want the skill's tool", got, out.Text)
	}

	if _, err := reg.Deactivate("pdf"); err != nil {
		t.Fatal(err)
	}
	if opts, err = reg.RunOptions(agent.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	c, _ = runWith(t, ag, opts)
	req = p.Requests()[2]
	if got := offered(req); !slices.Equal(got, []string{"lookup", "pdf__fill"}) {
		t.Errorf("after deactivation the model was offered %v", got)
	}
	if req.System != "You help." {
		t.Errorf("system prompt after deactivation: %q", req.System)
	}
	if got := lastResult(c); got != "original form" {
		t.Errorf("pdf__fill after deactivation returned %q; want the shadowed original back", got)
	}
}

// TestRegistryRunOptionsKeepsBase: RunOptions appends to the caller's
// AppendSystem and keeps its narrowing; a skill's allowed-tools narrows
// the base while its own tools stay offered.
func TestRegistryRunOptionsKeepsBase(t *testing.T) {
	base, _ := tool.NewSet(prefixTool("read_file", ""), prefixTool("run_command", ""))
	s, _ := skill.New("notes", "Notes.", "Take notes.", prefixTool("add", ""))
	s.AllowedTools = []string{"Read"}
	reg := skill.NewRegistry(base, skill.RegistryOptions{})
	if _, err := reg.Activate(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	opts, err := reg.RunOptions(agent.RunOptions{AppendSystem: "# Mine", AllowedTools: []string{"read_file"}, Restriction: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(opts.AppendSystem, "# Mine\n\n# Skill: notes") {
		t.Errorf("AppendSystem = %q", opts.AppendSystem)
	}
	if got := opts.Tools.Names(); !slices.Equal(got, []string{"read_file", "notes__add"}) {
		t.Errorf("tools = %v; want run_command narrowed away and the skill's tool kept", got)
	}
	if !slices.Equal(opts.AllowedTools, []string{"read_file"}) || opts.Restriction != "x" {
		t.Errorf("the caller's narrowing was lost: %+v", opts)
	}
}

// fakeServers stands for RegistryOptions.Servers: it "starts" a skill's
// servers, giving one tool per server, and counts starts and stops.
type fakeServers struct {
	starts, stops atomic.Int32
	fail          error
	gate          chan struct{} // when set, starting waits for it
	entered       chan struct{} // when set, receives as starting begins
}

func (f *fakeServers) start(ctx context.Context, s *skill.Skill) ([]tool.Tool, func(), error) {
	if f.entered != nil {
		f.entered <- struct{}{}
	}
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	if f.fail != nil {
		return nil, nil, f.fail
	}
	f.starts.Add(1)
	var tools []tool.Tool
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.MCPServers {
			if !yield(k) {
				return
			}
		}
	}) {
		tools = append(tools, prefixTool(name+"__ping", "pong "))
	}
	return tools, func() { f.stops.Add(1) }, nil
}

func serverSkill(t *testing.T) *skill.Skill {
	t.Helper()
	s, err := skill.New("ci", "CI helpers.", "Use the runner.")
	if err != nil {
		t.Fatal(err)
	}
	s.MCPServers = map[string]json.RawMessage{"runner": json.RawMessage(`{"command":"ci-runner"}`)}
	return s
}

// TestRegistryStartsServers: a skill's MCP servers start on activation,
// their tools reach the model's request, and deactivation stops them and
// removes the tools; a skill without servers never calls Servers.
func TestRegistryStartsServers(t *testing.T) {
	f := &fakeServers{}
	base, _ := tool.NewSet(prefixTool("lookup", ""))
	reg := skill.NewRegistry(base, skill.RegistryOptions{Servers: f.start})
	plain, _ := skill.New("plain", "Plain.", "Nothing.")
	if _, err := reg.Activate(context.Background(), plain); err != nil || f.starts.Load() != 0 {
		t.Fatalf("a skill without servers: err %v, %d starts", err, f.starts.Load())
	}
	if _, err := reg.Activate(context.Background(), serverSkill(t)); err != nil {
		t.Fatal(err)
	}
	p := modeltest.NewScripted(callTool("c1", "runner__ping", `{"text":"x"}`), modeltest.Text("ok"), modeltest.Text("bye"))
	ag, _ := agent.New(agent.Config{Provider: p, Tools: base})
	opts, _ := reg.RunOptions(agent.RunOptions{})
	c, _ := runWith(t, ag, opts)
	if got := offered(p.Requests()[0]); !slices.Equal(got, []string{"lookup", "runner__ping"}) {
		t.Errorf("with ci active the model was offered %v", got)
	}
	if got := lastResult(c); got != "pong x" {
		t.Errorf("runner__ping returned %q", got)
	}
	if _, err := reg.Deactivate("ci"); err != nil {
		t.Fatal(err)
	}
	if f.starts.Load() != 1 || f.stops.Load() != 1 {
		t.Errorf("starts %d stops %d after deactivation; want 1 and 1", f.starts.Load(), f.stops.Load())
	}
	opts, _ = reg.RunOptions(agent.RunOptions{})
	runWith(t, ag, opts)
	if got := offered(p.Requests()[2]); !slices.Equal(got, []string{"lookup"}) {
		t.Errorf("after deactivation the model was offered %v", got)
	}
	if _, err := reg.Activate(context.Background(), serverSkill(t)); err != nil {
		t.Fatal(err)
	}
	reg.Close()
	if f.stops.Load() != 2 || len(reg.Active()) != 0 {
		t.Errorf("Close: %d stops, %d active", f.stops.Load(), len(reg.Active()))
	}
}

// TestRegistryServerFailure: a server that does not start fails the
// activation with its reason and leaves the skill inactive.
func TestRegistryServerFailure(t *testing.T) {
	f := &fakeServers{fail: errors.New("ci-runner: executable file not found")}
	reg := skill.NewRegistry(nil, skill.RegistryOptions{Servers: f.start})
	_, err := reg.Activate(context.Background(), serverSkill(t))
	if err == nil || !strings.Contains(err.Error(), "ci-runner: executable file not found") || !strings.Contains(err.Error(), `skill "ci"`) {
		t.Fatalf("err = %v", err)
	}
	if len(reg.Active()) != 0 {
		t.Error("a skill whose servers failed is active")
	}
	f.fail = nil
	if _, err := reg.Activate(context.Background(), serverSkill(t)); err != nil {
		t.Errorf("activating again once the server works: %v", err)
	}
	reg.Close()
}

// TestRegistryStopsServersOfRefusedActivation: when the servers started
// but their tools cannot join the set (two tools of one name), the
// servers are stopped and nothing is active.
func TestRegistryStopsServersOfRefusedActivation(t *testing.T) {
	var stops atomic.Int32
	servers := func(context.Context, *skill.Skill) ([]tool.Tool, func(), error) {
		return []tool.Tool{prefixTool("runner__ping", ""), prefixTool("runner__ping", "")}, func() { stops.Add(1) }, nil
	}
	reg := skill.NewRegistry(nil, skill.RegistryOptions{Servers: servers})
	if _, err := reg.Activate(context.Background(), serverSkill(t)); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("err = %v", err)
	}
	if stops.Load() != 1 || len(reg.Active()) != 0 {
		t.Errorf("%d stops, %d active; want the started servers stopped and nothing active", stops.Load(), len(reg.Active()))
	}
}

// TestRegistryActivateWhileStarting: a second activation of a skill whose
// servers are still starting fails at once instead of starting them twice;
// a cancelled start leaves nothing active.
func TestRegistryActivateWhileStarting(t *testing.T) {
	f := &fakeServers{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	reg := skill.NewRegistry(nil, skill.RegistryOptions{Servers: f.start})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var first error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, first = reg.Activate(ctx, serverSkill(t))
	}()
	<-f.entered
	if _, second := reg.Activate(ctx, serverSkill(t)); !errors.Is(second, skill.ErrAlreadyActive) {
		t.Errorf("second activation while starting: %v", second)
	}
	close(f.gate)
	wg.Wait()
	if first != nil || f.starts.Load() != 1 {
		t.Errorf("first activation: %v, %d starts", first, f.starts.Load())
	}
	reg.Close()

	g := &fakeServers{gate: make(chan struct{})}
	reg = skill.NewRegistry(nil, skill.RegistryOptions{Servers: g.start})
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := reg.Activate(cctx, serverSkill(t)); !errors.Is(err, context.Canceled) || len(reg.Active()) != 0 {
		t.Errorf("cancelled start: %v, %d active", err, len(reg.Active()))
	}
}
