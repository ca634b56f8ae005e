package telemetry_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/telemetry"
	"github.com/reinharness/rein/telemetry/redact"
)

// spansOf runs the two-tool script under a Tracer and returns the spans.
func spansOf(t *testing.T, cfg telemetry.TracerConfig, text string) tracetest.SpanStubs {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	cfg.Provider = tp
	out := runWith(t, twoToolTurns(text), "go", telemetry.NewTracer(cfg))
	if out.Kind != agent.Complete {
		t.Fatalf("outcome %+v", out)
	}
	return exp.GetSpans()
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

func TestTracerFollowsGenAIConventions(t *testing.T) {
	spans := spansOf(t, telemetry.TracerConfig{Model: "test-model", ProviderName: "openai"}, "hello")
	type span struct {
		Name   string
		Parent string
		Attrs  map[string]string
		Status codes.Code
	}
	byID := map[string]string{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID().String()] = s.Name
	}
	var got []span
	for _, s := range spans {
		a := attrs(s.Attributes)
		got = append(got, span{s.Name, byID[s.Parent.SpanID().String()], a, s.Status.Code})
		if s.EndTime.Before(s.StartTime) {
			t.Errorf("span %s ends before it starts", s.Name)
		}
	}
	want := []span{
		{"chat test-model", "invoke_agent rein", map[string]string{
			"gen_ai.operation.name": "chat", "gen_ai.request.model": "test-model", "gen_ai.provider.name": "openai",
			"gen_ai.conversation.id": "run-1", "gen_ai.usage.input_tokens": "100", "gen_ai.usage.output_tokens": "20",
			"gen_ai.response.finish_reasons": `["tool_calls"]`,
		}, codes.Unset},
		{"execute_tool echo", "invoke_agent rein", map[string]string{
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "c1",
			"gen_ai.tool.type": "function", "rein.tool.decision": "allow", "rein.tool.decision.by": "default",
			"rein.tool.decision.reason": "",
		}, codes.Unset},
		{"execute_tool echo", "invoke_agent rein", map[string]string{
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "c2",
			"gen_ai.tool.type": "function", "rein.tool.decision": "allow", "rein.tool.decision.by": "default",
			"rein.tool.decision.reason": "", "error.type": "tool_error",
		}, codes.Error},
		{"chat test-model", "invoke_agent rein", map[string]string{
			"gen_ai.operation.name": "chat", "gen_ai.request.model": "test-model", "gen_ai.provider.name": "openai",
			"gen_ai.conversation.id": "run-1", "gen_ai.usage.input_tokens": "150", "gen_ai.usage.output_tokens": "5",
			"gen_ai.usage.cache_read.input_tokens": "50", "gen_ai.response.finish_reasons": `["stop"]`,
		}, codes.Unset},
		{"invoke_agent rein", "", map[string]string{
			"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "rein", "gen_ai.conversation.id": "run-1",
			"rein.outcome": "complete", "rein.steps": "2", "rein.tool_calls": "2",
			"gen_ai.usage.input_tokens": "250", "gen_ai.usage.output_tokens": "25", "gen_ai.usage.cache_read.input_tokens": "50",
		}, codes.Unset},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	for _, s := range spans {
		for k := range attrs(s.Attributes) {
			if k == "gen_ai.output.messages" || k == "gen_ai.tool.call.arguments" || k == "gen_ai.tool.call.result" {
				t.Errorf("span %s exports %s without the content opt-in", s.Name, k)
			}
		}
	}
}

func TestTracerContentsAreOptInRedactedAndCut(t *testing.T) {
	secret := "tracer-test-secret-0123456789"
	redact.Register(secret)
	text := "key " + secret + " " + strings.Repeat("x", 2000)
	spans := spansOf(t, telemetry.TracerConfig{CaptureContent: true}, text)
	found := map[string]string{}
	for _, s := range spans {
		for k, v := range attrs(s.Attributes) {
			if strings.Contains(v, secret) {
				t.Errorf("span %s attribute %s holds the secret", s.Name, k)
			}
			if strings.HasPrefix(k, "gen_ai.tool.call.") || k == "gen_ai.output.messages" {
				if _, dup := found[k]; !dup || strings.Contains(v, "REDACTED") {
					found[k] = v
				}
			}
		}
	}
	for _, k := range []string{"gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "gen_ai.output.messages"} {
		v, ok := found[k]
		if !ok {
			t.Errorf("no span exports %s with the opt-in", k)
			continue
		}
		if len(v) > telemetry.MaxLoggedBytes+64 {
			t.Errorf("%s is %d bytes; want it cut to about %d", k, len(v), telemetry.MaxLoggedBytes)
		}
	}
	if !strings.Contains(found["gen_ai.tool.call.result"], "[REDACTED]") {
		t.Errorf("result %q: want the secret redacted", found["gen_ai.tool.call.result"])
	}
}

// TestTracerOnConcurrentRuns drives one Tracer from several runs at once.
func TestTracerOnConcurrentRuns(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	tr := telemetry.NewTracer(telemetry.TracerConfig{Provider: tp})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			runAs(t, fmt.Sprintf("run-%d", i), twoToolTurns("x"), "go", tr)
		})
	}
	wg.Wait()
	if n := len(exp.GetSpans()); n != 4*5 {
		t.Errorf("%d spans, want 20", n)
	}
}

// TestExporterDownNeverAffectsTheRun points the OTLP exporter at a closed
// port: the run completes as fast as without telemetry, and shutting down
// is bounded and reports the failure in one line.
func TestExporterDownNeverAffectsTheRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	env := map[string]string{telemetry.EnvEndpoint: "http://" + addr, telemetry.EnvHeaders: "authorization=Bearer%20otlp-header-secret-42"}
	tr, err := telemetry.SetupOTLP(context.Background(), func(k string) string { return env[k] }, "v-test")
	if err != nil || tr == nil {
		t.Fatalf("SetupOTLP: %v, %v", tr, err)
	}
	start := time.Now()
	out := runWith(t, twoToolTurns("x"), "go", telemetry.NewTracer(telemetry.TracerConfig{Provider: tr.Provider}))
	if out.Kind != agent.Complete {
		t.Fatalf("outcome %+v", out)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %v with the exporter down", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start = time.Now()
	err = tr.Shutdown(ctx)
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("Shutdown took %v; it must be bounded by its context", d)
	}
	if err == nil {
		t.Fatal("Shutdown reported no failure with the collector down")
	}
	if msg := err.Error(); strings.Contains(msg, "otlp-header-secret-42") || strings.Contains(msg, "\n") {
		t.Errorf("shutdown error %q: want one line without the header secret", msg)
	}
}

// TestOTLPExportReachesACollector runs a loopback collector and checks
// that spans arrive, with the configured headers, at the traces path.
func TestOTLPExportReachesACollector(t *testing.T) {
	var mu sync.Mutex
	var paths, auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	env := map[string]string{telemetry.EnvEndpoint: srv.URL + "/otlp/", telemetry.EnvHeaders: "Authorization=Bearer%20abcdef123456"}
	tr, err := telemetry.SetupOTLP(context.Background(), func(k string) string { return env[k] }, "v-test")
	if err != nil {
		t.Fatal(err)
	}
	runWith(t, twoToolTurns("x"), "go", telemetry.NewTracer(telemetry.TracerConfig{Provider: tr.Provider}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || paths[0] != "/otlp/v1/traces" || auths[0] != "Bearer abcdef123456" {
		t.Errorf("collector got paths %v auth %v; want /otlp/v1/traces with the header", paths, auths)
	}
	if got := redact.String("header abcdef123456"); strings.Contains(got, "abcdef123456") {
		t.Error("the OTLP header value was not registered as a secret")
	}
}

func TestSetupOTLPConfiguration(t *testing.T) {
	tests := []struct {
		env     map[string]string
		enabled bool
		wantErr string
	}{
		{map[string]string{}, false, ""},
		{map[string]string{telemetry.EnvEndpoint: "http://127.0.0.1:1", telemetry.EnvSDKDisabled: "true"}, false, ""},
		{map[string]string{telemetry.EnvEndpoint: "127.0.0.1:4318"}, false, "must be an http:// or https:// URL"},
		{map[string]string{telemetry.EnvTracesEndpoint: "ftp://x"}, false, "must be an http:// or https:// URL"},
		{map[string]string{telemetry.EnvEndpoint: "http://127.0.0.1:1", telemetry.EnvHeaders: "novalue"}, false, "not key=value"},
		{map[string]string{telemetry.EnvTracesEndpoint: "http://127.0.0.1:1/custom"}, true, ""},
	}
	for i, tt := range tests {
		tr, err := telemetry.SetupOTLP(context.Background(), func(k string) string { return tt.env[k] }, "v")
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%d: error %v, want %q", i, err, tt.wantErr)
			}
			continue
		}
		if err != nil || (tr != nil) != tt.enabled {
			t.Errorf("%d: SetupOTLP = %v, %v; want enabled %v", i, tr, err, tt.enabled)
		}
		if tr != nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			tr.Shutdown(ctx)
			cancel()
		}
	}
	env := map[string]string{telemetry.EnvEndpoint: "http://u:pw@127.0.0.1:1", telemetry.EnvCaptureContent: "TRUE"}
	tr, err := telemetry.SetupOTLP(context.Background(), func(k string) string { return env[k] }, "v")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Shutdown(context.Background())
	if !tr.CaptureContent || strings.Contains(tr.Endpoint, "pw") || tr.Endpoint != "http://127.0.0.1:1/v1/traces" {
		t.Errorf("capture %v endpoint %q; want the opt-in and a clean URL", tr.CaptureContent, tr.Endpoint)
	}
}
