package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// sse is one streamed Chat Completions answer made of the given deltas.
func sse(deltas ...string) modeltest.Step {
	var b strings.Builder
	for _, d := range deltas {
		fmt.Fprintf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":%s}]}\n\n", d)
	}
	b.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	return modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream"}, b.String())
}

func text(s string) modeltest.Step {
	content, _ := json.Marshal(s)
	return sse(`{"content":` + string(content) + `}`)
}

func call(id, name string, args any) modeltest.Step {
	a, _ := json.Marshal(args)
	quoted, _ := json.Marshal(string(a))
	return sse(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, id, name, quoted))
}

// TestExample runs the program against a scripted loopback model: the
// model calls the Go tool, delegates to the counter sub-agent (which calls
// the Go tool itself), uses the skill's tool, and the program prints the
// final answer. The requests show what each agent was offered.
func TestExample(t *testing.T) {
	poem := "Surf folds into foam\nsalt wind carries gull voices\nthe tide keeps its time"
	srv := modeltest.NewServer(t,
		call("c1", "word_count", map[string]string{"text": poem}),
		call("c2", "task", map[string]string{"description": "count words", "prompt": "Count the words of: " + poem, "agent": "counter"}),
		call("s1", "word_count", map[string]string{"text": poem}), // the sub-agent
		text("The poem has 14 words."),                            // the sub-agent's report
		call("c3", "haiku__syllables", map[string]string{"text": poem}),
		text("Here is the haiku; it has 14 words."),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, log bytes.Buffer
	if err := run(ctx, srv.URL, "Write a haiku about the sea.", &stdout, &log); err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, &log)
	}
	if got := strings.TrimSpace(stdout.String()); got != "Here is the haiku; it has 14 words." {
		t.Errorf("printed %q", got)
	}
	for _, want := range []string{"[main] word_count", "[main] task", "[counter] word_count", "[main] haiku__syllables"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, &log)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("the model got %d requests, want 6", len(reqs))
	}
	main, child := string(reqs[0].Body), string(reqs[2].Body)
	for _, want := range []string{`"word_count"`, `"task"`, `"haiku__syllables"`, `# Skill: haiku`, `counter: counts the words`} {
		if !strings.Contains(main, want) {
			t.Errorf("the main agent's request lacks %s", want)
		}
	}
	if !strings.Contains(child, `"word_count"`) || strings.Contains(child, `"haiku__syllables"`) || strings.Contains(child, `"name":"task"`) {
		t.Errorf("the sub-agent should be offered word_count only:\n%s", child)
	}
	// Each tool's result reached the model.
	results := map[int]string{1: `"content":"14"`, 3: `"content":"14"`, 4: "The poem has 14 words.", 5: `[5,7,5]`}
	for i, want := range results {
		if !strings.Contains(string(reqs[i].Body), want) {
			t.Errorf("request %d lacks the result %s:\n%s", i, want, reqs[i].Body)
		}
	}
}
