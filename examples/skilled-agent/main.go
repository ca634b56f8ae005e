// Command skilled-agent shows rein's library wiring in one place: a Go
// tool, a sub-agent the model delegates to, and a skill activated on the
// agent, running against an OpenAI-compatible endpoint (llama-server,
// vLLM, Ollama, a hosted API):
//
//	go run ./examples/skilled-agent -e http://127.0.0.1:8080 -p "Write a haiku about the sea and count its words."
//
// The model gets:
//
//   - word_count, a Go function turned into a tool (tool.Func);
//   - task, which starts a sub-agent (agent.NewTaskTool): here "counter",
//     which may use word_count only, with its own conversation and step
//     limit, returning its final report as the tool result;
//   - haiku__syllables and the "# Skill: haiku" instructions, from the
//     haiku skill, activated through a skill.Registry (its Go tool is
//     exposed as <skill>__<tool>; deactivating it would restore the tools
//     as they were).
//
// No policy is set, so every tool may run: the tools here only compute.
// A program that offers files or commands sets agent.Config.Policy.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model/openai"
	"github.com/reinharness/rein/skill"
	"github.com/reinharness/rein/tool"
)

func main() {
	endpoint := flag.String("e", "http://127.0.0.1:8080", "OpenAI-compatible endpoint")
	prompt := flag.String("p", "Write a haiku about the sea, check its syllables, and have the counter agent count its words.", "the prompt")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *endpoint, *prompt, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "skilled-agent:", err)
		os.Exit(1)
	}
}

type textArgs struct {
	Text string `json:"text" jsonschema:"the text"`
}

// wordCount is the Go tool: a plain function with typed arguments.
var wordCount = tool.Func("word_count", "Count the words of a text.",
	func(_ context.Context, in textArgs) (int, error) { return len(strings.Fields(in.Text)), nil })

// syllables is the haiku skill's own tool, offered as haiku__syllables
// while the skill is active. It counts groups of vowels per word, less a
// silent final e: rough, and enough for a model to check a 5-7-5 shape.
var syllables = tool.Func("syllables", "Count the syllables of each line of a text (an estimate).",
	func(_ context.Context, in textArgs) ([]int, error) {
		var counts []int
		for _, line := range strings.Split(strings.TrimSpace(in.Text), "\n") {
			n := 0
			for _, word := range strings.Fields(strings.ToLower(line)) {
				n += wordSyllables(word)
			}
			counts = append(counts, n)
		}
		return counts, nil
	})

func wordSyllables(word string) int {
	n, inVowel := 0, false
	for _, r := range word {
		vowel := strings.ContainsRune("aeiouy", r)
		if vowel && !inVowel {
			n++
		}
		inVowel = vowel
	}
	if n > 1 && strings.HasSuffix(word, "e") && !strings.HasSuffix(word, "le") {
		n--
	}
	return max(n, 1)
}

// run builds the agent and runs prompt, printing the answer to stdout and
// each tool call (the sub-agent's too) to log.
func run(ctx context.Context, endpoint, prompt string, stdout, log io.Writer) error {
	provider, err := openai.New(openai.Config{BaseURL: endpoint})
	if err != nil {
		return err
	}
	task, err := agent.NewTaskTool(agent.TaskConfig{Agents: []agent.SubagentDef{{
		Name:        "counter",
		Description: "counts the words of a text it is given",
		System:      "You count words. Call word_count on the text you are given and answer with the number.",
		Tools:       []string{"word_count"},
		MaxSteps:    5,
	}}})
	if err != nil {
		return err
	}
	tools, err := tool.NewSet(wordCount, task)
	if err != nil {
		return err
	}

	haiku, err := skill.New("haiku", "Writing haikus: three lines of 5, 7 and 5 syllables.",
		"Write three lines of 5, 7 and 5 syllables. Check them with haiku__syllables and rewrite a line that is off.",
		syllables)
	if err != nil {
		return err
	}
	skills := skill.NewRegistry(tools, skill.RegistryOptions{})
	defer skills.Close()
	if _, err := skills.Activate(ctx, haiku); err != nil {
		return err
	}

	ag, err := agent.New(agent.Config{
		Provider: provider,
		System:   "You are a helpful assistant. Use your tools.",
		Tools:    tools,
		MaxSteps: 20,
		// Hooks see every event of the tree, the sub-agent's included.
		Hooks: []agent.Hook{agent.HookFunc(func(_ context.Context, ev agent.Event) {
			if ev.Type == agent.EventToolCall {
				fmt.Fprintf(log, "[%s] %s %s\n", agentName(ev), ev.ToolCall.Name, ev.ToolCall.Args)
			}
		})},
	})
	if err != nil {
		return err
	}
	// The registry's options carry the active skills' prompt sections and
	// tools for this run; the Agent itself is unchanged.
	opts, err := skills.RunOptions(agent.RunOptions{})
	if err != nil {
		return err
	}
	out, err := runToEnd(ctx, ag, prompt, opts)
	if err != nil {
		return err
	}
	if out.Kind != agent.Complete {
		return fmt.Errorf("the run ended %s: %s", out.Kind, out.Reason)
	}
	fmt.Fprintln(stdout, out.Text)
	return nil
}

// runToEnd runs one prompt in a fresh conversation and returns the outcome.
func runToEnd(ctx context.Context, ag *agent.Agent, prompt string, opts agent.RunOptions) (*agent.Outcome, error) {
	for ev, err := range ag.RunWith(ctx, agent.NewConversation(""), prompt, opts) {
		if err != nil {
			return nil, err
		}
		if ev.Type == agent.EventSessionCompleted {
			return ev.Outcome, nil
		}
	}
	return nil, errors.New("the run ended without an outcome")
}

func agentName(ev agent.Event) string {
	if ev.Agent == "" {
		return "main"
	}
	return ev.Agent
}
