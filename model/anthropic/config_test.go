package anthropic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/anthropic"
	"github.com/reinharness/rein/model/modeltest"
)

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name string
		cfg  anthropic.Config
		msg  string
	}{
		{"not a URL", anthropic.Config{BaseURL: "::nope", APIKey: "k"}, "not an http(s) base URL"},
		{"wrong scheme", anthropic.Config{BaseURL: "ftp://example.com", APIKey: "k"}, "not an http(s) base URL"},
		{"no host", anthropic.Config{BaseURL: "http://", APIKey: "k"}, "not an http(s) base URL"},
		{"query", anthropic.Config{BaseURL: "http://127.0.0.1:1/?x=1", APIKey: "k"}, "not an http(s) base URL"},
		{"credentials not echoed", anthropic.Config{BaseURL: "ftp://user:hunter2@example.com", APIKey: "k"}, "ftp://example.com"},
		{"negative max tokens", anthropic.Config{BaseURL: "http://127.0.0.1:1", MaxTokens: -1}, "must not be negative"},
		{"negative context window", anthropic.Config{BaseURL: "http://127.0.0.1:1", ContextWindow: -1}, "must not be negative"},
		{"public API without a key", anthropic.Config{}, "set Config.APIKey"},
		{"key in Headers", anthropic.Config{BaseURL: "http://127.0.0.1:1", Headers: map[string]string{"x-api-key": "k"}}, "may not set X-Api-Key; use Config.APIKey"},
		{"authorization in Headers", anthropic.Config{BaseURL: "http://127.0.0.1:1", Headers: map[string]string{"Authorization": "Bearer k"}}, "use Config.AuthToken"},
		{"version in Headers", anthropic.Config{BaseURL: "http://127.0.0.1:1", Headers: map[string]string{"anthropic-version": "x"}}, "use Config.Version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := anthropic.New(tt.cfg)
			if err == nil {
				t.Fatal("New accepted the config")
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q echoes a password", err)
			}
		})
	}
}

// TestRequestLine checks where requests go and what they carry for the
// different ways of configuring the endpoint and credentials.
func TestRequestLine(t *testing.T) {
	tests := []struct {
		name    string
		suffix  string // appended to the server URL as BaseURL
		cfg     anthropic.Config
		path    string
		headers map[string]string
	}{
		{
			name: "root", suffix: "", cfg: anthropic.Config{APIKey: "k1"}, path: "/v1/messages",
			headers: map[string]string{"X-Api-Key": "k1", "Authorization": "", "Anthropic-Version": "2023-06-01", "Accept": "text/event-stream"},
		},
		{
			name: "base already ends in /v1", suffix: "/v1/", cfg: anthropic.Config{APIKey: "k1"}, path: "/v1/messages",
			headers: map[string]string{"X-Api-Key": "k1"},
		},
		{
			name: "gateway prefix", suffix: "/gateway/anthropic", cfg: anthropic.Config{AuthToken: "tok", Version: "2099-01-01", Headers: map[string]string{"anthropic-beta": "context-1m-2025-08-07"}},
			path:    "/gateway/anthropic/v1/messages",
			headers: map[string]string{"X-Api-Key": "", "Authorization": "Bearer tok", "Anthropic-Version": "2099-01-01", "Anthropic-Beta": "context-1m-2025-08-07"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := sse(evStart, evEndTurn, evMsgStop)
			srv := modeltest.NewServer(t, streamStep(body))
			cfg := tt.cfg
			cfg.BaseURL = srv.URL + tt.suffix
			cfg.Model = sonnet
			p, err := anthropic.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := collect(t, p, hello); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			if r.Path != tt.path {
				t.Errorf("path %s, want %s", r.Path, tt.path)
			}
			for k, want := range tt.headers {
				if got := r.Header.Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestContextWindow(t *testing.T) {
	tests := []struct {
		cfg  anthropic.Config
		want int
	}{
		{anthropic.Config{Model: "claude-sonnet-4-20250514"}, 200_000},
		{anthropic.Config{Model: "Claude-Opus-4-1"}, 200_000},
		{anthropic.Config{Model: "claude-sonnet-4-5", Headers: map[string]string{"Anthropic-Beta": "foo,context-1m-2025-08-07"}}, 1_000_000},
		{anthropic.Config{Model: "claude-sonnet-4", ContextWindow: 50_000}, 50_000},
		{anthropic.Config{Model: "my-finetune", ContextWindow: 8192}, 8192},
		{anthropic.Config{Model: "my-finetune"}, 0},
		{anthropic.Config{}, 0},
	}
	for _, tt := range tests {
		tt.cfg.BaseURL = "http://127.0.0.1:1"
		p, err := anthropic.New(tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.ContextWindow(context.Background())
		if err != nil || got != tt.want {
			t.Errorf("ContextWindow(%+v) = %d, %v; want %d", tt.cfg, got, err, tt.want)
		}
	}
}
