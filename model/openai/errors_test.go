package openai_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/openai"
)

// TestErrorBodies checks the error formats of OpenAI-compatible servers.
func TestErrorBodies(t *testing.T) {
	tests := []struct {
		name, body string
		want       model.APIError
	}{
		{"openai", `{"error":{"message":"bad","type":"invalid_request_error","param":"x","code":"c1"}}`,
			model.APIError{Type: "invalid_request_error", Code: "c1", Message: "bad"}},
		{"llama.cpp numeric code", `{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`,
			model.APIError{Type: "exceed_context_size_error", Code: "400", Message: "the request exceeds the available context size"}},
		{"plain string error", `{"error":"model not loaded"}`, model.APIError{Message: "model not loaded"}},
		{"message only", `{"object":"error","message":"invalid model","type":"BadRequestError","code":400}`, model.APIError{Type: "BadRequestError", Code: "400", Message: "invalid model"}},
		{"fastapi detail", `{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`,
			model.APIError{Message: `[{"loc":["body","messages"],"msg":"field required"}]`}},
		{"secret echoed", `{"error":{"message":"Incorrect API key provided: sk-live-abcdef1234567890","type":"invalid_request_error"}}`,
			model.APIError{Type: "invalid_request_error", Message: "Incorrect API key provided: [REDACTED]"}},
		{"not json", `upstream connect error`, model.APIError{Message: "Bad Request: upstream connect error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Status(400, map[string]string{"Content-Type": "application/json"}, tt.body))
			p := newProvider(t, srv.URL, nil)
			_, err := model.Collect(p.Stream(t.Context(), hello()))
			var apiErr *model.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v, want *model.APIError", err)
			}
			want := tt.want
			want.Provider, want.StatusCode, want.Attempts = "openai", 400, 1
			if diff := cmp.Diff(&want, apiErr); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompletionErrors(t *testing.T) {
	tests := []struct {
		name, body string
		want       error
		contains   string
	}{
		{"error object in a 200", `{"error":{"message":"overloaded","type":"server_error"}}`, nil, "overloaded"},
		{"no choices", `{"id":"x","choices":[]}`, openai.ErrMalformedResponse, "no choices"},
		{"not json", `{"id":`, openai.ErrMalformedResponse, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.JSON(tt.body))
			p := newProvider(t, srv.URL, func(c *openai.Config) { c.NoStreaming = true })
			resp, err := model.Collect(p.Stream(t.Context(), hello()))
			if err == nil || !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("error = %v, want one mentioning %q", err, tt.contains)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			if tt.want == nil {
				var apiErr *model.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != 200 {
					t.Errorf("error = %#v, want an APIError carrying status 200", err)
				}
			}
			if resp.StopReason != "" {
				t.Errorf("failed response has stop reason %q", resp.StopReason)
			}
		})
	}
}
