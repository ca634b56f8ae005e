package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNoCompletion is returned for a server that does not offer argument
// completion.
var ErrNoCompletion = errors.New("the server does not offer completions")

// Bounds on a completion answer: the spec caps values at 100, and each
// is a one-line suggestion for a prompt field.
const (
	maxCompletions    = 100
	maxCompletionText = 500
)

// Completion is a server's suggestions for a prompt argument.
type Completion struct {
	Values []string // printable, one line each, at most maxCompletions
	// Total is how many values the server has, when it says (0 if not);
	// HasMore says there are more than Values.
	Total   int
	HasMore bool
}

// CompletePrompt asks server for values of the argument arg of its
// prompt, given what the user typed so far (value) and the arguments
// already answered (done, which servers use to narrow dependent fields).
func (m *Manager) CompletePrompt(ctx context.Context, serverName, prompt, arg, value string, done map[string]string) (*Completion, error) {
	s, sess, err := m.ready(ctx, serverName)
	if err != nil {
		return nil, err
	}
	ir := sess.cs.InitializeResult()
	if ir == nil || ir.Capabilities == nil || ir.Capabilities.Completions == nil {
		return nil, fmt.Errorf("server %s: %w", s.cfg.Name, ErrNoCompletion)
	}
	p := &sdk.CompleteParams{
		Ref:      &sdk.CompleteReference{Type: "ref/prompt", Name: prompt},
		Argument: sdk.CompleteParamsArgument{Name: arg, Value: value},
	}
	if len(done) > 0 {
		p.Context = &sdk.CompleteContext{Arguments: done}
	}
	res, err := sess.cs.Complete(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("server %s: completing %s of prompt %s: %s", s.cfg.Name, clip(oneLine(arg), 100), clip(oneLine(prompt), 100), s.redact(err))
	}
	return completionOf(res), nil
}

// completionOf bounds and cleans a server's completion result.
func completionOf(res *sdk.CompleteResult) *Completion {
	c := &Completion{}
	if res == nil {
		return c
	}
	vals := res.Completion.Values
	c.HasMore = res.Completion.HasMore || len(vals) > maxCompletions
	if len(vals) > maxCompletions {
		vals = vals[:maxCompletions]
	}
	for _, v := range vals {
		if v = clip(oneLine(printable(v)), maxCompletionText); v != "" {
			c.Values = append(c.Values, v)
		}
	}
	if res.Completion.Total > 0 {
		c.Total = res.Completion.Total
	}
	return c
}
