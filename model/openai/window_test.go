package openai_test

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/openai"
)

func TestContextWindow(t *testing.T) {
	notFound := modeltest.Status(404, nil, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`)
	tests := []struct {
		name      string
		baseSufx  string
		model     string
		steps     []modeltest.Step
		want      int
		wantPaths []string
	}{
		{"llama.cpp props", "", "",
			[]modeltest.Step{modeltest.JSON(`{"default_generation_settings":{"n_ctx":8192,"params":{}},"total_slots":4,"model_path":"m.gguf"}`)},
			8192, []string{"/props"}},
		{"props with top-level n_ctx", "/v1", "",
			[]modeltest.Step{modeltest.JSON(`{"n_ctx":32768}`)},
			32768, []string{"/props"}},
		{"models meta n_ctx_train", "", "",
			[]modeltest.Step{notFound, modeltest.JSON(`{"object":"list","data":[{"id":"m","object":"model","meta":{"n_ctx_train":131072,"n_params":20}}]}`)},
			131072, []string{"/props", "/v1/models"}},
		{"vLLM max_model_len picks the configured model", "/v1", "b",
			[]modeltest.Step{notFound, modeltest.JSON(`{"data":[{"id":"a","max_model_len":4096},{"id":"b","max_model_len":16384}]}`)},
			16384, []string{"/props", "/v1/models"}},
		{"props without a size falls through", "", "",
			[]modeltest.Step{modeltest.JSON(`{"build_info":"b7010"}`), modeltest.JSON(`{"data":[{"id":"m","meta":{"n_ctx":2048,"n_ctx_train":131072}}]}`)},
			2048, []string{"/props", "/v1/models"}},
		{"unknown", "", "",
			[]modeltest.Step{notFound, modeltest.JSON(`{"data":[{"id":"gpt-4o","object":"model"}]}`)},
			0, []string{"/props", "/v1/models"}},
		{"garbage answers mean unknown", "", "",
			[]modeltest.Step{modeltest.Status(200, map[string]string{"Content-Type": "text/html"}, "<html>"), notFound},
			0, []string{"/props", "/v1/models"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, tt.steps...)
			p := newProvider(t, srv.URL+tt.baseSufx, func(c *openai.Config) { c.Model = tt.model; c.APIKey = "sk-test-window" })
			for i := range 2 { // the second call is answered from the cache
				got, err := p.ContextWindow(t.Context())
				if err != nil || got != tt.want {
					t.Fatalf("call %d: ContextWindow = %d, %v; want %d", i, got, err, tt.want)
				}
			}
			var paths []string
			for _, r := range srv.Requests() {
				if r.Method != "GET" || r.Header.Get("Authorization") != "Bearer sk-test-window" {
					t.Errorf("discovery request %s %s with Authorization %q", r.Method, r.Path, r.Header.Get("Authorization"))
				}
				paths = append(paths, r.Path)
			}
			if diff := cmp.Diff(tt.wantPaths, paths); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestContextWindowConfigured(t *testing.T) {
	srv := modeltest.NewServer(t)
	p := newProvider(t, srv.URL, func(c *openai.Config) { c.ContextWindow = 4096 })
	if got, err := p.ContextWindow(t.Context()); got != 4096 || err != nil {
		t.Fatalf("ContextWindow = %d, %v; want the configured 4096", got, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("a configured window made %d requests", n)
	}
}

// TestContextWindowUnreachable checks that a server that cannot be reached
// is an error, and that the failure is not cached.
func TestContextWindowUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := newProvider(t, "http://"+addr, func(c *openai.Config) { c.HTTP.MaxRetries = -1 })
	for range 2 {
		_, err := p.ContextWindow(t.Context())
		var ce *model.ConnectError
		if !errors.As(err, &ce) {
			t.Fatalf("error = %v, want a ConnectError", err)
		}
	}
}

// TestContextWindowDiscoveryIsBounded: a server that holds /props open is
// given the discovery bound, not a model call's ten-minute header wait.
func TestContextWindowDiscoveryIsBounded(t *testing.T) {
	openai.SetDiscoveryTimeout(t, 200*time.Millisecond)
	hold := modeltest.Handler("hold /props", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	srv := modeltest.NewServer(t, hold)
	p := newProvider(t, srv.URL, nil)
	start := time.Now()
	n, err := p.ContextWindow(t.Context())
	took := time.Since(start)
	if n != 0 || err == nil || !strings.Contains(err.Error(), "did not report its context window within 200ms; set [model] context_window") {
		t.Fatalf("ContextWindow = %d, %v; want the discovery timeout", n, err)
	}
	if took < 150*time.Millisecond || took > 3*time.Second {
		t.Errorf("took %s, want about 200ms", took)
	}
}
