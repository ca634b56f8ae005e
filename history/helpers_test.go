package history

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// historyGen builds realistic histories: user turns, assistant turns that
// call one to three tools at once, tool messages with results of varying
// sizes, and closing assistant text.
type historyGen struct {
	rng  *rand.Rand
	run  int
	call int
}

func newHistoryGen(seed uint64) *historyGen {
	return &historyGen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// text returns n bytes of word-like text tagged with tag.
func text(tag string, n int) string {
	var b strings.Builder
	b.WriteString(tag)
	for b.Len() < n {
		b.WriteString(" lorem")
	}
	return b.String()[:max(n, len(tag))]
}

// resultSize draws a tool result size: mostly small, sometimes large.
func (g *historyGen) resultSize() int {
	switch g.rng.IntN(10) {
	case 0:
		return 2000 + g.rng.IntN(4000)
	case 1, 2:
		return 500 + g.rng.IntN(1500)
	}
	return 10 + g.rng.IntN(300)
}

// calls returns the tool calls of one assistant turn.
func (g *historyGen) calls() []model.ToolCall {
	k := 1
	if g.rng.IntN(3) == 0 {
		k = 2 + g.rng.IntN(2) // parallel calls
	}
	cs := make([]model.ToolCall, k)
	for i := range cs {
		g.call++
		args, _ := json.Marshal(map[string]int{"size": g.resultSize(), "n": g.call})
		cs[i] = model.ToolCall{ID: fmt.Sprintf("call-%d", g.call), Name: "fetch", Args: args}
	}
	return cs
}

// turn appends one user turn with its tool rounds and closing answer.
func (g *historyGen) turn(msgs []model.Message) []model.Message {
	g.run++
	msgs = append(msgs, model.UserText(text(fmt.Sprintf("task %d:", g.run), 20+g.rng.IntN(400))))
	for range g.rng.IntN(5) {
		cs := g.calls()
		am := model.Message{Role: model.RoleAssistant}
		if g.rng.IntN(2) == 0 {
			am.Parts = append(am.Parts, model.TextPart(text("thinking", 10+g.rng.IntN(200))))
		}
		rs := make([]model.ToolResult, len(cs))
		for i, c := range cs {
			am.Parts = append(am.Parts, model.ToolCallPart(c))
			var a struct{ Size int }
			_ = json.Unmarshal(c.Args, &a)
			rs[i] = model.ToolResult{CallID: c.ID, Name: c.Name, Content: text("result "+c.ID, a.Size), IsError: g.rng.IntN(20) == 0}
		}
		msgs = append(msgs, am, model.ToolResults(rs...))
	}
	return append(msgs, model.AssistantText(text(fmt.Sprintf("done %d", g.run), 20+g.rng.IntN(300))))
}

// history returns at least n messages of whole turns.
func (g *historyGen) history(n int) []model.Message {
	var msgs []model.Message
	for len(msgs) < n {
		msgs = g.turn(msgs)
	}
	return msgs
}

// checkPairs reports the first place where msgs separates a tool result
// from its call: every tool message must follow the assistant message
// whose calls it answers, with exactly those call ids in order, and every
// assistant message with calls must be followed by its results.
func checkPairs(msgs []model.Message) error {
	for i, m := range msgs {
		switch m.Role {
		case model.RoleTool:
			if i == 0 || msgs[i-1].Role != model.RoleAssistant {
				return fmt.Errorf("message %d: tool results without the assistant message that called them", i)
			}
			if got, want := resultIDs(m), callIDs(msgs[i-1]); !slices.Equal(got, want) {
				return fmt.Errorf("message %d: results for %v follow calls %v", i, got, want)
			}
		case model.RoleAssistant:
			if len(m.ToolCalls()) > 0 && (i+1 >= len(msgs) || msgs[i+1].Role != model.RoleTool) {
				return fmt.Errorf("message %d: tool calls %v without their results", i, callIDs(m))
			}
		}
	}
	return nil
}

func callIDs(m model.Message) []string {
	var ids []string
	for _, c := range m.ToolCalls() {
		ids = append(ids, c.ID)
	}
	return ids
}

func resultIDs(m model.Message) []string {
	var ids []string
	for _, r := range m.ToolResultParts() {
		ids = append(ids, r.CallID)
	}
	return ids
}

// estimate sums the agent's estimate over msgs.
func estimate(msgs []model.Message) int {
	n := 0
	for _, m := range msgs {
		n += agent.EstimateMessageTokens(m)
	}
	return n
}

// minimalCost is the cost of the cheapest request a window may send: the
// marker and the last turn.
func minimalCost(c *agent.Conversation) int {
	msgs := c.Messages()
	i := len(msgs) - 1
	for i > 0 && msgs[i].Role == model.RoleTool {
		i--
	}
	return c.EstimatedTokens(i) + markerTokens
}
