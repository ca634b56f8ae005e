package model_test

import (
	"context"
	"fmt"
	"iter"
	"log"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// shout is a custom model.Provider: it answers with the last user message
// in capitals. A real provider translates req to its wire format and its
// streamed answer back to events; the contract is the same: text deltas,
// usage, then exactly one EventStop — or an error, after which the stream
// ends.
type shout struct{}

func (shout) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(model.Event{}, err)
			return
		}
		var last string
		for _, m := range req.Messages {
			if m.Role == model.RoleUser {
				last = m.Text()
			}
		}
		for _, word := range strings.Fields(strings.ToUpper(last)) {
			if !yield(model.Event{Kind: model.EventTextDelta, Text: word + " "}, nil) {
				return // the consumer stopped reading
			}
		}
		usage := model.Usage{InputTokens: len(req.Messages), OutputTokens: len(strings.Fields(last))}
		if !yield(model.Event{Kind: model.EventUsage, Usage: &usage}, nil) {
			return
		}
		yield(model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn}, nil)
	}
}

// A provider of your own drives the agent like the built-in ones.
func Example_customProvider() {
	a, err := agent.New(agent.Config{Provider: shout{}})
	if err != nil {
		log.Fatal(err)
	}
	for ev, err := range a.Run(context.Background(), agent.NewConversation(""), "hello there") {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Type == agent.EventSessionCompleted {
			fmt.Printf("%s: %q, %d output tokens\n", ev.Outcome.Kind, ev.Outcome.Text, ev.Outcome.Usage.OutputTokens)
		}
	}
	// Output:
	// complete: "HELLO THERE ", 2 output tokens
}

// Collect assembles a stream into the whole answer, the way a caller
// that needs no streaming reads a provider.
func ExampleCollect() {
	req := &model.Request{Messages: []model.Message{model.UserText("one two")}}
	resp, err := model.Collect((shout{}).Stream(context.Background(), req))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %q, stop %s, %d output tokens\n", resp.Message.Role, resp.Message.Text(), resp.StopReason, resp.Usage.OutputTokens)
	// Output:
	// assistant: "ONE TWO ", stop end_turn, 2 output tokens
}
