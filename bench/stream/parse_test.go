package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	openaisdk "github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
	"github.com/reinharness/rein/model/openai"
	"github.com/reinharness/rein/model/transport"
)

// parsed is what a parse produced, in neutral form: the answer's text,
// its tool calls (name and arguments, compared as JSON values) and how
// many bytes of the stream the client read.
type parsed struct {
	Text  string
	Calls []call
	Read  int64
}

type call struct {
	Name string
	Args any
}

func argsValue(tb testing.TB, raw string) any {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		tb.Fatalf("tool arguments %q: %v", raw, err)
	}
	return v
}

// parser is one client set up on a replaying transport.
type parser struct {
	name  string
	parse func(tb testing.TB) parsed
}

func reinOpenAI(tb testing.TB, rt *replay) func(testing.TB) parsed {
	p, err := openai.New(openai.Config{BaseURL: "http://127.0.0.1:9", Model: "m", ContextWindow: 1 << 20,
		HTTP: transport.Config{HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1, Breaker: transport.NewBreaker(1000, time.Second)}})
	if err != nil {
		tb.Fatal(err)
	}
	return reinParse(p, rt)
}

func reinOpenAICollect(tb testing.TB, rt *replay) func(testing.TB) parsed {
	p, err := openai.New(openai.Config{BaseURL: "http://127.0.0.1:9", Model: "m", ContextWindow: 1 << 20,
		HTTP: transport.Config{HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1, Breaker: transport.NewBreaker(1000, time.Second)}})
	if err != nil {
		tb.Fatal(err)
	}
	return reinCollect(p, rt)
}

func reinAnthropicCollect(tb testing.TB, rt *replay) func(testing.TB) parsed {
	p, err := anthropic.New(anthropic.Config{BaseURL: "http://127.0.0.1:9", APIKey: "k", Model: "claude-sonnet-4",
		HTTP: transport.Config{HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1, Breaker: transport.NewBreaker(1000, time.Second)}})
	if err != nil {
		tb.Fatal(err)
	}
	return reinCollect(p, rt)
}

func reinAnthropic(tb testing.TB, rt *replay) func(testing.TB) parsed {
	p, err := anthropic.New(anthropic.Config{BaseURL: "http://127.0.0.1:9", APIKey: "k", Model: "claude-sonnet-4",
		HTTP: transport.Config{HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1, Breaker: transport.NewBreaker(1000, time.Second)}})
	if err != nil {
		tb.Fatal(err)
	}
	return reinParse(p, rt)
}

// reinParse consumes the provider's event stream, assembling the text
// with a strings.Builder as a streaming consumer does: the parse itself.
func reinParse(p model.Provider, rt *replay) func(testing.TB) parsed {
	req := &model.Request{Messages: []model.Message{model.UserText("go")}}
	return func(tb testing.TB) parsed {
		var text strings.Builder
		out := parsed{}
		for ev, err := range p.Stream(context.Background(), req) {
			if err != nil {
				tb.Fatal(err)
			}
			switch ev.Kind {
			case model.EventTextDelta:
				text.WriteString(ev.Text)
			case model.EventToolCall:
				out.Calls = append(out.Calls, call{ev.ToolCall.Name, argsValue(tb, string(ev.ToolCall.Args))})
			}
		}
		out.Text, out.Read = text.String(), rt.read
		return out
	}
}

// reinCollect is the same stream through model.Collect, rein's own
// assembly of a whole response (what the agent loop records).
func reinCollect(p model.Provider, rt *replay) func(testing.TB) parsed {
	req := &model.Request{Messages: []model.Message{model.UserText("go")}}
	return func(tb testing.TB) parsed {
		resp, err := model.Collect(p.Stream(context.Background(), req))
		if err != nil {
			tb.Fatal(err)
		}
		out := parsed{Text: resp.Message.Text(), Read: rt.read}
		for _, c := range resp.Message.ToolCalls() {
			out.Calls = append(out.Calls, call{c.Name, argsValue(tb, string(c.Args))})
		}
		return out
	}
}

func openaiGo(_ testing.TB, rt *replay) func(testing.TB) parsed {
	c := openaisdk.NewClient(openaiopt.WithBaseURL("http://127.0.0.1:9/v1/"), openaiopt.WithAPIKey("k"),
		openaiopt.WithHTTPClient(&http.Client{Transport: rt}), openaiopt.WithMaxRetries(0))
	params := openaisdk.ChatCompletionNewParams{Model: "m", Messages: []openaisdk.ChatCompletionMessageParamUnion{openaisdk.UserMessage("go")}}
	return func(tb testing.TB) parsed {
		s := c.Chat.Completions.NewStreaming(context.Background(), params)
		acc := openaisdk.ChatCompletionAccumulator{}
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		if err := s.Err(); err != nil {
			tb.Fatal(err)
		}
		s.Close()
		out := parsed{Read: rt.read}
		if len(acc.Choices) > 0 {
			m := acc.Choices[0].Message
			out.Text = m.Content
			for _, tc := range m.ToolCalls {
				out.Calls = append(out.Calls, call{tc.Function.Name, argsValue(tb, tc.Function.Arguments)})
			}
		}
		return out
	}
}

func anthropicGo(_ testing.TB, rt *replay) func(testing.TB) parsed {
	c := anthropicsdk.NewClient(anthropicopt.WithBaseURL("http://127.0.0.1:9"), anthropicopt.WithAPIKey("k"),
		anthropicopt.WithHTTPClient(&http.Client{Transport: rt}), anthropicopt.WithMaxRetries(0))
	params := anthropicsdk.MessageNewParams{Model: "claude-sonnet-4", MaxTokens: 1024,
		Messages: []anthropicsdk.MessageParam{anthropicsdk.NewUserMessage(anthropicsdk.NewTextBlock("go"))}}
	return func(tb testing.TB) parsed {
		s := c.Messages.NewStreaming(context.Background(), params)
		msg := anthropicsdk.Message{}
		for s.Next() {
			if err := msg.Accumulate(s.Current()); err != nil {
				tb.Fatal(err)
			}
		}
		if err := s.Err(); err != nil {
			tb.Fatal(err)
		}
		s.Close()
		out := parsed{Read: rt.read}
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				out.Text += b.Text
			case "tool_use":
				out.Calls = append(out.Calls, call{b.Name, argsValue(tb, string(b.Input))})
			}
		}
		return out
	}
}

// stream is one point of the comparison: a stream and its two clients.
type streamCase struct {
	provider string
	data     func(testing.TB) []byte
	impls    []impl
}

type impl struct {
	name  string
	build func(testing.TB, *replay) func(testing.TB) parsed
}

var cases = []streamCase{
	{"openai", openaiStream, []impl{{"rein", reinOpenAI}, {"rein+Collect", reinOpenAICollect}, {"openai-go", openaiGo}}},
	{"anthropic", anthropicStream, []impl{{"rein", reinAnthropic}, {"rein+Collect", reinAnthropicCollect}, {"anthropic-sdk-go", anthropicGo}}},
}

// recordings are the unmodified recorded streams, checked too.
var recordings = []struct {
	provider, rel string
	id            int
}{
	{"openai", "TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool_streaming.yaml", 0},
	{"openai", "TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool_streaming.yaml", 1},
	{"anthropic", "TestAnthropicCommon/claude-sonnet-4/tool_streaming.yaml", 0},
	{"anthropic", "TestAnthropicCommon/claude-sonnet-4/tool_streaming.yaml", 1},
}

// TestCorrectStream checks that on every stream both clients read every
// byte and produced the same text and the same tool calls.
func TestCorrectStream(t *testing.T) {
	type input struct {
		name string
		data []byte
		c    streamCase
	}
	var inputs []input
	for _, c := range cases {
		inputs = append(inputs, input{c.provider + "/2MB", c.data(t), c})
	}
	for _, r := range recordings {
		for _, c := range cases {
			if c.provider == r.provider {
				inputs = append(inputs, input{fmt.Sprintf("%s/%s#%d", r.provider, r.rel, r.id), []byte(body(t, r.rel, r.id)), c})
			}
		}
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			var results []parsed
			for _, im := range in.c.impls {
				rt := &replay{data: in.data}
				got := im.build(t, rt)(t)
				if got.Read != int64(len(in.data)) {
					t.Errorf("%s read %d of %d bytes", im.name, got.Read, len(in.data))
				}
				if got.Text == "" && len(got.Calls) == 0 {
					t.Errorf("%s: nothing parsed", im.name)
				}
				results = append(results, got)
			}
			for i := 1; i < len(results); i++ {
				if !reflect.DeepEqual(results[0], results[i]) {
					t.Errorf("%s and %s differ:\n%.300v\n%.300v", in.c.impls[0].name, in.c.impls[i].name, results[0], results[i])
				}
			}
		})
	}
}

// BenchmarkStream reports MB/s of wire bytes and (through chunks/op)
// allocations per SSE chunk.
func BenchmarkStream(b *testing.B) {
	for _, c := range cases {
		data := c.data(b)
		n := chunks(data)
		for _, im := range c.impls {
			b.Run("provider="+c.provider+"/impl="+im.name, func(b *testing.B) {
				rt := &replay{data: data}
				parse := im.build(b, rt)
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if got := parse(b); got.Read != int64(len(data)) {
						b.Fatalf("read %d of %d bytes", got.Read, len(data))
					}
				}
				b.ReportMetric(float64(n), "chunks/op")
			})
		}
	}
}
