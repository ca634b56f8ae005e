package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/telemetry"
)

// TestSecretsNeverReachStoreLogSpansOrErrors gives API keys by flag, by
// environment and as an MCP header, has the model and the tools repeat
// them everywhere an event can carry text, ends the run with an error that
// quotes them, and then searches every byte rein wrote.
func TestSecretsNeverReachStoreLogSpansOrErrors(t *testing.T) {
	e := newSTEnv(t)
	flagKey := "flagkey-7f3a9c2e41d8b6"
	envKey := "envkey-0b5d8e1f6a9c34"
	mcpValue := "mcphdr-c91e4f7a2d6b85"
	e.vars["OPENAI_API_KEY"] = envKey
	// The MCP wiring registers header values like this when it reads the
	// server configuration.
	telemetry.RegisterHeaderSecret("Bearer " + mcpValue)
	cfg := e.config(t, config.Settings{APIKey: new(flagKey)})
	secrets := []string{flagKey, envKey, mcpValue}
	all := strings.Join(secrets, " ")
	os.WriteFile(filepath.Join(e.ws, "keys.txt"), []byte("keys: "+all+"\n"), 0o644)

	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	a, _, errb := e.app()
	ctx := context.Background()
	sr, err := a.openSession(ctx, &sessionFlags{}, "", cfg, e.ws)
	if err != nil {
		t.Fatal(err)
	}
	sr.tracer = telemetry.NewTracer(telemetry.TracerConfig{Provider: tp, CaptureContent: true, Debug: true})
	h, err := a.newHarness(cfg, harnessOptions{workspace: e.ws, flags: stFlags()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	p := modeltest.NewScripted(
		modeltest.Events(
			model.Event{Kind: model.EventReasoningDelta, Text: "thinking about " + all},
			model.Event{Kind: model.EventReasoningEnd},
			model.Event{Kind: model.EventTextDelta, Text: "I will read " + all},
			model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: "c1", Name: "read_file", Args: []byte(`{"path":"keys.txt"}`)}},
			model.Event{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: "c2", Name: "read_file", Args: []byte(fmt.Sprintf(`{"path":"%s/%s/%s"}`, flagKey, envKey, mcpValue))}},
			model.Event{Kind: model.EventStop, StopReason: model.StopToolUse},
		),
		modeltest.Fail(fmt.Errorf("upstream rejected %s", all)),
	)
	ag, err := agent.New(agent.Config{
		Provider: p, Tools: h.tools, Policy: h.engine, Approver: h.approver,
		Journal: sr, Hooks: []agent.Hook{sr}, ContextWindow: 100000,
	})
	if err != nil {
		t.Fatal(err)
	}
	out, runErr := ag.RunToEnd(ctx, sr.Conversation(), "use the keys "+all)
	sr.close()
	if out == nil || out.Kind != agent.Failed || runErr == nil {
		t.Fatalf("want a failed run, got %+v, %v", out, runErr)
	}
	// The tool really read the secrets: the redaction had work to do.
	if req := p.Requests(); len(req) != 2 || !strings.Contains(fmt.Sprint(req[1].Messages), flagKey) {
		t.Fatal("the second model request does not carry the file's secrets; the test lost its point")
	}

	check := func(where, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the secret %q", where, s)
			}
		}
	}
	// Every file under the state directory: the database (and its WAL
	// and shared-memory files, had they survived), the log, the locks.
	files := 0
	filepath.WalkDir(e.stateDir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files++
		check(path, string(data))
		return nil
	})
	if files < 2 {
		t.Errorf("found %d files under the state directory; want the database and the log", files)
	}
	logData, err := os.ReadFile(telemetry.LogPath(e.stateDir(), sr.ID()))
	if err != nil || !strings.Contains(string(logData), "[REDACTED]") {
		t.Errorf("the event log shows no redaction (%v)", err)
	}
	spans := exp.GetSpans()
	if len(spans) == 0 {
		t.Fatal("no spans")
	}
	for _, s := range spans {
		check("span "+s.Name+" status", s.Status.Description)
		for _, kv := range s.Attributes {
			check("span "+s.Name+" attribute "+string(kv.Key), kv.Value.String())
		}
		for _, ev := range s.Events {
			check("span "+s.Name+" event", fmt.Sprint(ev))
		}
	}
	// Error messages: what rein prints for the failed run (the recorded
	// outcome and error event were searched with the files).
	ex := newExplainer(cfg.Model)
	check("the printed error", ex.errorLine(runErr))
	check("stderr", errb.String())
}
