package adk

import (
	"context"
	"iter"
	"strconv"
	"testing"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"
)

// adkModel is the script as an ADK model.LLM.
type adkModel struct{ s *script }

func (adkModel) Name() string { return "scripted" }

func (m adkModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		wantTool, id, _ := m.s.next(len(req.Contents))
		part := genai.NewPartFromText(finalText)
		if wantTool {
			part = &genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: "noop", Args: map[string]any{"n": m.s.calls - 1}}}
		}
		yield(&model.LLMResponse{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{part}}, TurnComplete: true}, nil)
	}
}

type adkOut struct {
	Result string `json:"result"`
}

type adkRunner struct {
	r       *runner.Runner
	svc     session.Service
	history int
	runs    int
	sid     string
}

const adkApp, adkUser = "bench", "user"

func newADK(tb testing.TB, s *script, history int) loopRunner {
	noop, err := functiontool.New(functiontool.Config{Name: "noop", Description: "Does nothing."},
		func(agent.Context, noopIn) (adkOut, error) {
			s.toolRuns++
			return adkOut{Result: "ok"}, nil
		})
	if err != nil {
		tb.Fatal(err)
	}
	a, err := llmagent.New(llmagent.Config{
		Name:        "bench",
		Description: "benchmark agent",
		Instruction: "You are a benchmark.",
		Model:       adkModel{s},
		Tools:       []tool.Tool{noop},
	})
	if err != nil {
		tb.Fatal(err)
	}
	svc := session.InMemoryService()
	r, err := runner.New(runner.Config{AppName: adkApp, Agent: a, SessionService: svc})
	if err != nil {
		tb.Fatal(err)
	}
	return &adkRunner{r: r, svc: svc, history: history}
}

// prepare creates a fresh in-memory session holding the history as
// events, as a resumed conversation would have it.
func (r *adkRunner) prepare(tb testing.TB) {
	ctx := context.Background()
	if r.sid != "" {
		if err := r.svc.Delete(ctx, &session.DeleteRequest{AppName: adkApp, UserID: adkUser, SessionID: r.sid}); err != nil {
			tb.Fatal(err)
		}
	}
	r.runs++
	r.sid = "s" + strconv.Itoa(r.runs)
	res, err := r.svc.Create(ctx, &session.CreateRequest{AppName: adkApp, UserID: adkUser, SessionID: r.sid})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range r.history {
		ev := session.NewEvent(ctx, "earlier")
		ev.Author, ev.Content = adkUser, genai.NewContentFromText(historyText(i), genai.RoleUser)
		if i%2 == 1 {
			ev.Author, ev.Content = "bench", genai.NewContentFromText(historyText(i), genai.RoleModel)
		}
		if err := r.svc.AppendEvent(ctx, res.Session, ev); err != nil {
			tb.Fatal(err)
		}
	}
}

func (r *adkRunner) run(tb testing.TB) string {
	text := ""
	for ev, err := range r.r.Run(context.Background(), adkUser, r.sid, genai.NewContentFromText("go", genai.RoleUser), agent.RunConfig{}) {
		if err != nil {
			tb.Fatal(err)
		}
		if ev.Content != nil && !ev.Partial {
			for _, p := range ev.Content.Parts {
				if p.Text != "" {
					text = p.Text
				}
			}
		}
	}
	return text
}
