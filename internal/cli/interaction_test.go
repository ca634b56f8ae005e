package cli

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// typed returns a ReadLine that answers with lines in order, then reports
// the end of the input.
func typed(lines ...string) func(context.Context) (string, error) {
	var mu sync.Mutex
	return func(ctx context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if len(lines) == 0 {
			return "", errInputEnded
		}
		l := lines[0]
		lines = lines[1:]
		return l, nil
	}
}

// console returns a console interaction reading lines, within a turn
// that does not end, and its output.
func console(lines ...string) (*consoleInteraction, *strings.Builder) {
	var out strings.Builder
	c := newConsoleInteraction(newPromptGate(), typed(lines...), &out)
	c.during(context.Background())
	return c, &out
}

const smallForm = `{"type":"object","properties":{
  "name":{"type":"string","title":"Name","description":"Your name"},
  "age":{"type":"integer","minimum":1,"maximum":120},
  "pet":{"type":"string","oneOf":[{"const":"pet-1","title":"Cats"},{"const":"pet-2","title":"Dogs"}]},
  "news":{"type":"boolean","default":true}},
  "required":["name","pet"]}`

func TestConsoleElicitForm(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		want    *mcp.ElicitationResponse
		wantOut []string
	}{
		{
			name:  "accepted after re-asking",
			lines: []string{"", "Ann", "200", "", "Fish", "2", "", ""},
			want:  &mcp.ElicitationResponse{Action: "accept", Content: map[string]any{"name": "Ann", "pet": "pet-2", "news": true}},
			wantOut: []string{
				"MCP server srv asks:\n  Tell me about you\n",
				"• Name (name), required — Your name\n  text: ",
				"  this field is required (or /decline, /cancel)\n",
				"  enter a number 1–120\n",
				`  "Fish" is not an option; enter a number from 1 to 2 or a value`,
				"    1) Cats [pet-1]\n    2) Dogs [pet-2]\n",
				"Your answers:\n  Name (name): Ann\n  pet: Dogs\n  news: yes\n",
				"Send them to srv? [Y/n]: ",
			},
		},
		{
			name:    "declined at a field",
			lines:   []string{"Ann", "/decline"},
			want:    &mcp.ElicitationResponse{Action: "decline"},
			wantOut: []string{"(declined; srv is told so)\n"},
		},
		{
			name:    "cancelled at a field",
			lines:   []string{"/CANCEL"},
			want:    &mcp.ElicitationResponse{Action: "cancel"},
			wantOut: []string{"(cancelled; srv is told so)\n"},
		},
		{
			name:    "not sent after all",
			lines:   []string{"Ann", "30", "1", "n", "n"},
			want:    &mcp.ElicitationResponse{Action: "decline"},
			wantOut: []string{"  age: 30\n", "  news: no\n"},
		},
		{
			name:    "input ends",
			lines:   []string{"Ann"},
			want:    &mcp.ElicitationResponse{Action: "cancel"},
			wantOut: []string{"(the input ended; the request is cancelled)\n"},
		},
		{
			name:    "too many bad answers",
			lines:   []string{"x", "Ann", "0", "0", "0", "0", "0"},
			want:    &mcp.ElicitationResponse{Action: "cancel"},
			wantOut: []string{"(too many answers that do not fit; the request is cancelled)\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, out := console(tt.lines...)
			got, err := c.Elicit(context.Background(), &mcp.Elicitation{Server: "srv", Message: "Tell me about you", Mode: "form", Schema: []byte(smallForm)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if c.gate.busy() {
				t.Error("the gate is still held after the request")
			}
		})
	}
}

func TestConsoleElicitEmptyFormAndBadSchema(t *testing.T) {
	c, out := console("y")
	got, err := c.Elicit(context.Background(), &mcp.Elicitation{Server: "srv", Message: "Proceed?", Mode: "form"})
	if err != nil || got.Action != "accept" || len(got.Content) != 0 {
		t.Errorf("empty form answered y: %+v, %v", got, err)
	}
	if !strings.Contains(out.String(), "Reply yes? [y]es, [n]o") {
		t.Errorf("output: %s", out.String())
	}
	c, out = console()
	_, err = c.Elicit(context.Background(), &mcp.Elicitation{Server: "srv", Mode: "form", Schema: []byte(`{"properties":{"a":{"type":"object"}}}`)})
	if err == nil || !strings.Contains(err.Error(), `rein cannot ask this form: field "a": unsupported type "object"`) {
		t.Errorf("a form MCP does not allow: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("a broken form was shown: %q", out.String())
	}
}

func TestConsoleElicitURL(t *testing.T) {
	tests := []struct {
		answer string
		want   string
	}{{"y", "accept"}, {"n", "decline"}, {"", "decline"}, {"/cancel", "cancel"}}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			c, out := console(tt.answer)
			got, err := c.Elicit(context.Background(), &mcp.Elicitation{
				Server: "srv", Mode: "url", Message: "Sign in", URL: "https://auth.example.com/login?next=%2F", ID: "e1",
			})
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != tt.want || got.Content != nil {
				t.Errorf("answer %q: %+v, want action %s without content", tt.answer, got, tt.want)
			}
			for _, w := range []string{"asks you to open a link:\n  Sign in\n", "URL: https://auth.example.com/login?next=%2F\n", "it leads to auth.example.com; rein does not open links"} {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
	for _, u := range []string{"https://evil.example/\x1b[2J", "javascript:alert(1)", "file:///etc/passwd"} {
		c, out := console("n")
		if _, err := c.Elicit(context.Background(), &mcp.Elicitation{Server: "srv", Mode: "url", URL: u}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "not a well-formed web address") || strings.Contains(out.String(), "\x1b") {
			t.Errorf("URL %q shown as:\n%s", u, out.String())
		}
	}
}

// TestConsoleElicitHonoursContexts: a question waiting for an answer ends
// when the server withdraws it (an error) or when the turn ends (a
// cancel), and releases the terminal either way.
func TestConsoleElicitHonoursContexts(t *testing.T) {
	for _, which := range []string{"request", "turn"} {
		t.Run(which, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			src := newLineSource(context.Background(), pr)
			var out syncWriter
			c := newConsoleInteraction(newPromptGate(), src.readLine, &out)
			reqCtx, cancelReq := context.WithCancel(context.Background())
			defer cancelReq()
			turn, endTurn := context.WithCancel(context.Background())
			defer endTurn()
			defer c.during(turn)()
			type answer struct {
				resp *mcp.ElicitationResponse
				err  error
			}
			done := make(chan answer, 1)
			go func() {
				resp, err := c.Elicit(reqCtx, &mcp.Elicitation{Server: "srv", Mode: "form", Schema: []byte(smallForm)})
				done <- answer{resp, err}
			}()
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(out.String(), "text: ") && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if which == "request" {
				cancelReq()
			} else {
				endTurn()
			}
			select {
			case a := <-done:
				if which == "request" && !errors.Is(a.err, context.Canceled) {
					t.Errorf("Elicit = %+v, %v; want context.Canceled", a.resp, a.err)
				}
				if which == "turn" && (a.err != nil || a.resp.Action != "cancel") {
					t.Errorf("Elicit = %+v, %v; want a cancel", a.resp, a.err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Elicit did not return when its context ended")
			}
			if c.gate.busy() {
				t.Error("the gate is still held")
			}
		})
	}
}

// TestConsoleOutsideTurnDeclines: between turns the chat reads the input
// itself, so servers' questions are declined without being asked.
func TestConsoleOutsideTurnDeclines(t *testing.T) {
	var out strings.Builder
	c := newConsoleInteraction(newPromptGate(), typed("y", "y"), &out)
	c.useModel(&sampler{provider: modeltest.NewScripted(modeltest.Text("x")), ex: newExplainer(config.ModelConfig{})})
	end := c.during(context.Background())
	end()
	resp, err := c.Elicit(context.Background(), &mcp.Elicitation{Server: "srv", Mode: "form"})
	if err != nil || resp.Action != "decline" {
		t.Errorf("Elicit between turns = %+v, %v; want a decline", resp, err)
	}
	if _, err := c.Sample(context.Background(), samplingRequest()); !errors.Is(err, mcp.ErrDeclined) {
		t.Errorf("Sample between turns = %v, want ErrDeclined", err)
	}
	if out.Len() != 0 {
		t.Errorf("asked between turns: %q", out.String())
	}
	var nilConsole *consoleInteraction
	nilConsole.during(context.Background())() // chat without a terminal
}

// syncWriter is a strings.Builder safe for a writer and a reader on
// different goroutines.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func samplingRequest() *mcp.SamplingRequest {
	return &mcp.SamplingRequest{
		Server: "srv", SystemPrompt: "Be brief.", MaxTokens: 500, Temperature: 0.5, Stop: []string{"END"},
		Messages: []mcp.SamplingMessage{
			{Role: "user", Text: "Hi"}, {Role: "assistant", Text: "Hello"}, {Role: "user", Text: "What is MCP?\x1b[2J"},
		},
		ModelHints: []string{"claude"},
	}
}

func TestConsoleSampleApproved(t *testing.T) {
	c, out := console("maybe", "y")
	p := modeltest.NewScripted(modeltest.Text("A protocol."))
	c.useModel(&sampler{provider: p, model: "m1", name: "m1", maxTokens: 200, ex: newExplainer(config.ModelConfig{})})
	got, err := c.Sample(context.Background(), samplingRequest())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&mcp.SamplingResponse{Model: "m1", Text: "A protocol.", StopReason: "endTurn"}, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	temp := 0.5
	want := &model.Request{
		Model: "m1", System: "Be brief.", MaxTokens: 200, Temperature: &temp, Stop: []string{"END"},
		Messages: []model.Message{model.UserText("Hi"), model.AssistantText("Hello"), model.UserText("What is MCP?\x1b[2J")},
	}
	if diff := cmp.Diff([]*model.Request{want}, p.Requests()); diff != "" {
		t.Errorf("model request (-want +got):\n%s", diff)
	}
	for _, w := range []string{
		"MCP server srv asks rein's model for a completion (at most 200 tokens):\n",
		"  system: Be brief.\n",
		"  user: What is MCP?\\x1b[2J\n",
		"  (2 messages before it not shown)\n",
		"  (the server prefers claude; m1 answers)\n",
		"  answer y or n\n",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}

func TestConsoleSampleRefused(t *testing.T) {
	for _, answers := range [][]string{{"n"}, {""}, {"/decline"}, {}} {
		c, _ := console(answers...)
		p := modeltest.NewScripted()
		c.useModel(&sampler{provider: p, ex: newExplainer(config.ModelConfig{})})
		if _, err := c.Sample(context.Background(), samplingRequest()); !errors.Is(err, mcp.ErrDeclined) {
			t.Errorf("answers %q: Sample = %v, want ErrDeclined", answers, err)
		}
		if p.Calls() != 0 {
			t.Errorf("answers %q: the model was called", answers)
		}
	}
	c, out := console("y")
	if _, err := c.Sample(context.Background(), samplingRequest()); !errors.Is(err, mcp.ErrDeclined) || out.Len() != 0 {
		t.Errorf("without a model: %v, output %q; want ErrDeclined without asking", err, out.String())
	}
}

func TestConsoleSampleModelFails(t *testing.T) {
	c, _ := console("y")
	p := modeltest.NewScripted(modeltest.Fail(&model.APIError{StatusCode: 500, Message: "boom"}))
	c.useModel(&sampler{provider: p, ex: newExplainer(config.ModelConfig{})})
	_, err := c.Sample(context.Background(), samplingRequest())
	if err == nil || !strings.HasPrefix(err.Error(), "rein's model could not answer: ") {
		t.Errorf("Sample = %v", err)
	}
}

func TestSamplerTokens(t *testing.T) {
	tests := []struct {
		asked int64
		cap   int
		want  int
	}{{100, 0, 100}, {100, 50, 50}, {10, 50, 10}, {0, 50, 50}, {-5, 0, 0}, {1 << 40, 0, 1 << 30}}
	for _, tt := range tests {
		if got := (&sampler{maxTokens: tt.cap}).tokens(tt.asked); got != tt.want {
			t.Errorf("tokens(%d) with cap %d = %d, want %d", tt.asked, tt.cap, got, tt.want)
		}
	}
	if got := samplingStop(model.StopMaxTokens) + samplingStop(model.StopSequence) + samplingStop(model.StopOther); got != "maxTokensstopSequenceother" {
		t.Errorf("stop reasons: %s", got)
	}
}

// recordingApprover allows every call and records when it was asked.
type recordingApprover struct {
	mu    sync.Mutex
	asked []string
}

func (r *recordingApprover) Approve(_ context.Context, c policy.Call, d policy.Decision) (policy.Decision, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, c.Spec.Name)
	return policy.Decision{Action: policy.Allow}, nil
}

// TestGatedApproverWaitsForQuestion: an approval waits while a server's
// question holds the terminal; a decision that needs no question does not.
func TestGatedApproverWaitsForQuestion(t *testing.T) {
	gate := newPromptGate()
	inner := &recordingApprover{}
	ap := &gatedApprover{gate: gate, inner: inner}
	call := policy.Call{ID: "c1", Spec: tool.Spec{Name: "run_command"}}
	if err := gate.enter(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d, err := ap.Approve(context.Background(), call, policy.Decision{Action: policy.Allow}); err != nil || d.Action != policy.Allow {
		t.Fatalf("an allowed call waited or failed: %v, %v", d, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	d, err := ap.Approve(ctx, call, policy.Decision{Action: policy.Ask})
	if !errors.Is(err, context.DeadlineExceeded) || d.Action != policy.Deny || len(inner.asked) != 1 {
		t.Fatalf("an approval while the gate was held: %v, %v (asked %v)", d, err, inner.asked)
	}
	done := make(chan policy.Decision, 1)
	go func() {
		d, _ := ap.Approve(context.Background(), call, policy.Decision{Action: policy.Ask})
		done <- d
	}()
	select {
	case <-done:
		t.Fatal("the approval did not wait for the question on the terminal")
	case <-time.After(50 * time.Millisecond):
	}
	gate.leave()
	select {
	case d := <-done:
		if d.Action != policy.Allow {
			t.Errorf("decision %v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the approval never ran")
	}
	if gate.busy() {
		t.Error("the gate is still held")
	}
}
