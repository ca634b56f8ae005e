package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

// The loop with one Go function as a tool. The provider is modeltest's
// scripted fake, so the example runs without a model server: its first
// turn asks for the tool, its second answers. With a real server, use
// openai.New or anthropic.New instead; nothing else changes.
func ExampleAgent_Run() {
	type wordsIn struct {
		Text string `json:"text" jsonschema:"the text to count"`
	}
	words := tool.Func("word_count", "Counts the words of a text.",
		func(ctx context.Context, in wordsIn) (int, error) {
			return len(strings.Fields(in.Text)), nil
		})
	tools, err := tool.NewSet(words)
	if err != nil {
		log.Fatal(err)
	}

	provider := modeltest.NewScripted(
		modeltest.ToolCalls(model.ToolCall{ID: "c1", Name: "word_count", Args: json.RawMessage(`{"text":"the tide keeps its time"}`)}),
		modeltest.Text("The line has 5 words."),
	)
	a, err := agent.New(agent.Config{Provider: provider, System: "You are terse.", Tools: tools})
	if err != nil {
		log.Fatal(err)
	}

	conv := agent.NewConversation("")
	for ev, err := range a.Run(context.Background(), conv, "How many words in 'the tide keeps its time'?") {
		if err != nil {
			log.Fatal(err)
		}
		switch ev.Type {
		case agent.EventToolCall:
			fmt.Printf("call %s %s\n", ev.ToolCall.Name, ev.ToolCall.Args)
		case agent.EventToolResult:
			fmt.Printf("result %s\n", ev.ToolResult.Content)
		case agent.EventSessionCompleted:
			fmt.Printf("%s after %d model calls: %s\n", ev.Outcome.Kind, ev.Outcome.Steps, ev.Outcome.Text)
		}
	}
	// The model saw the tool's result in its second request.
	fmt.Println("messages sent on the second call:", len(provider.Requests()[1].Messages))
	// Output:
	// call word_count {"text":"the tide keeps its time"}
	// result 5
	// complete after 2 model calls: The line has 5 words.
	// messages sent on the second call: 3
}

// RunWith changes the system prompt and the tool set for one run without
// rebuilding the Agent; the conversation carries over between runs.
func ExampleAgent_RunWith() {
	provider := modeltest.NewScripted(modeltest.Text("Bonjour."), modeltest.Text("Hello."))
	a, err := agent.New(agent.Config{Provider: provider, System: "Answer in English."})
	if err != nil {
		log.Fatal(err)
	}
	conv := agent.NewConversation("")
	ctx := context.Background()
	runs := []struct {
		input string
		opts  agent.RunOptions
	}{
		{"Greet me.", agent.RunOptions{System: "Answer in French."}},
		{"Again, please.", agent.RunOptions{}},
	}
	for _, r := range runs {
		for ev, err := range a.RunWith(ctx, conv, r.input, r.opts) {
			if err != nil {
				log.Fatal(err)
			}
			if ev.Type == agent.EventSessionCompleted {
				fmt.Println(ev.Outcome.Text)
			}
		}
	}
	for i, req := range provider.Requests() {
		fmt.Printf("call %d: system %q, %d messages\n", i+1, req.System, len(req.Messages))
	}
	// Output:
	// Bonjour.
	// Hello.
	// call 1: system "Answer in French.", 1 messages
	// call 2: system "Answer in English.", 3 messages
}
