package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/mcp"
)

func TestParsePromptCommand(t *testing.T) {
	tests := []struct {
		in           string
		server, name string
		args         map[string]string
		wantErr      string
	}{
		{in: ""},
		{in: "everything", server: "everything"},
		{in: "everything simple-prompt", server: "everything", name: "simple-prompt"},
		{in: `everything args-prompt {"city": "Oslo", "state": "Viken"}`, server: "everything", name: "args-prompt", args: map[string]string{"city": "Oslo", "state": "Viken"}},
		{in: "everything  args-prompt\t{}", server: "everything", name: "args-prompt", args: map[string]string{}},
		{in: `everything args-prompt {"city": 5}`, wantErr: `the prompt argument "city" must be a string`},
		{in: `everything args-prompt {"city": "Oslo"`, wantErr: "must be one JSON object of strings"},
		{in: `everything args-prompt {"a":"b"} {"c":"d"}`, wantErr: "must be one JSON object of strings"},
		{in: `everything args-prompt {"a":"b"} trailing`, wantErr: "must be one JSON object of strings"},
		{in: `everything args-prompt ["Oslo"]`, wantErr: "must be one JSON object of strings"},
		{in: `everything args-prompt null`, wantErr: "must be one JSON object of strings"},
		{in: `everything {"city":"Oslo"}`, wantErr: "name the server and the prompt before its arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			server, name, args, err := parsePromptCommand(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if server != tt.server || name != tt.name {
				t.Errorf("server, name = %q, %q; want %q, %q", server, name, tt.server, tt.name)
			}
			if diff := cmp.Diff(tt.args, args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPromptMessage(t *testing.T) {
	got, err := promptMessage("srv", "p", &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Text: "  Do X.\n"}, {Role: "user", Text: "Then Y."}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[Prompt \"p\" from MCP server srv]\n\nDo X.\n\nThen Y."; got != want {
		t.Errorf("user-only prompt = %q, want %q", got, want)
	}
	got, err = promptMessage("srv", "p", &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Text: "Q"}, {Role: "assistant", Text: "A"}, {Role: "user", Text: ""}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[Prompt \"p\" from MCP server srv]\n\n[user]\nQ\n\n[assistant]\nA"; got != want {
		t.Errorf("mixed prompt = %q, want %q", got, want)
	}
	if _, err := promptMessage("srv", "p", &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Text: " \n"}}}); err == nil || !strings.Contains(err.Error(), "no text to send") {
		t.Errorf("empty prompt: %v", err)
	}
	huge := strings.Repeat("x", maxPromptText)
	if _, err := promptMessage("srv", "p", &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Text: huge}}}); err == nil || !strings.Contains(err.Error(), "a message may be at most 1024 KiB") {
		t.Errorf("huge prompt: %v", err)
	}
}

func TestStatusLine(t *testing.T) {
	tests := []struct {
		st   mcp.Status
		want string
	}{
		{mcp.Status{Name: "a", State: mcp.StateConnected, Transport: mcp.TransportStdio, Era: "2025-11-25", Tools: []string{"a__x", "a__y"}, Prompts: true, Resources: true},
			"a: connected over stdio, protocol 2025-11-25, 2 tools, prompts, resources"},
		{mcp.Status{Name: "b", State: mcp.StateFailed, Transport: mcp.TransportStdio, Required: true, Err: errors.New("exit status 1\n\x1b[31mstack")},
			`b: failed (required) — exit status 1 \x1b[31mstack`},
		{mcp.Status{Name: "c", State: mcp.StateDisabled}, "c: disabled"},
	}
	for _, tt := range tests {
		if got := statusLine(tt.st); got != tt.want {
			t.Errorf("statusLine = %q, want %q", got, tt.want)
		}
	}
}

// FuzzParsePromptCommand: whatever is typed after /prompt, parsing never
// panics, and what it accepts is a server and prompt name without spaces
// and string arguments only when JSON was given.
func FuzzParsePromptCommand(f *testing.F) {
	f.Add(`everything args-prompt {"city":"Oslo"}`)
	f.Add(`a b {"x":1}`)
	f.Add("a\tb\n{}")
	f.Add(`{"x":"y"}`)
	f.Add("a b \"\\ud800\"")
	f.Fuzz(func(t *testing.T, in string) {
		server, name, args, err := parsePromptCommand(strings.TrimSpace(in))
		if err != nil {
			return
		}
		if strings.ContainsAny(server+name, " \t\n\r") {
			t.Errorf("server %q, name %q hold spaces", server, name)
		}
		if name == "" && args != nil {
			t.Errorf("arguments %v without a prompt name", args)
		}
	})
}
