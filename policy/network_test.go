package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/reinharness/rein/policy/netrules"
	"github.com/reinharness/rein/tool"
)

var specWebFetch = tool.Spec{Name: "web_fetch", Effects: tool.Effects{Network: true, URLArg: "url"}}

func fetchCall(url string) Call {
	return Call{Spec: specWebFetch, Args: mustJSON(map[string]string{"url": url})}
}

func networkEngine(t *testing.T, preset Preset, user *Config, rules netrules.Rules) *Engine {
	t.Helper()
	layers := []Layer{{Kind: LayerUser, Source: "flags", Config: Config{Preset: string(preset)}}}
	if user != nil {
		layers = append(layers, Layer{Kind: LayerUser, Source: "user config", Config: *user})
	}
	e, err := NewEngine(EngineConfig{Workspace: testWorkspace, Home: testHome, Layers: layers, Network: rules})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The presets decide a network tool as such — read-only denies, editor
// asks, full allows — and the [network] rules decide by host: deny wins
// everywhere (over allow, over the full preset, over a tool rule), allow
// lifts only the editor's question.
func TestNetworkRules(t *testing.T) {
	rules := netrules.Rules{Allow: []string{"docs.example.com", "*.github.com"}, Deny: []string{"secret.github.com"}}
	allowTool := &Config{Tools: []ToolRule{{Name: "web_fetch", Action: "allow"}}}
	for _, tc := range []struct {
		name   string
		preset Preset
		user   *Config
		rules  netrules.Rules
		url    string
		want   Action
		rule   string
	}{
		{"read-only denies", PresetReadOnly, nil, netrules.Rules{}, "https://example.com", Deny, "preset:read-only"},
		{"editor asks", PresetEditor, nil, netrules.Rules{}, "https://example.com", Ask, "preset:editor"},
		{"full allows", PresetFull, nil, netrules.Rules{}, "https://example.com", Allow, "preset:full"},
		{"allow lifts editor", PresetEditor, nil, rules, "https://docs.example.com/page", Allow, "network:allow docs.example.com"},
		{"wildcard lifts editor", PresetEditor, nil, rules, "https://api.github.com/x", Allow, "network:allow *.github.com"},
		{"apex not in wildcard", PresetEditor, nil, rules, "https://github.com/x", Ask, "preset:editor"},
		{"unnamed host asks", PresetEditor, nil, rules, "https://example.org", Ask, "preset:editor"},
		{"allow does not lift read-only", PresetReadOnly, nil, rules, "https://docs.example.com", Deny, "preset:read-only"},
		{"deny beats allow", PresetEditor, nil, rules, "https://secret.github.com", Deny, "network:deny secret.github.com"},
		{"deny beats full", PresetFull, nil, rules, "https://SECRET.github.com./", Deny, "network:deny secret.github.com"},
		{"deny beats a tool rule", PresetEditor, allowTool, rules, "https://secret.github.com", Deny, "network:deny secret.github.com"},
		{"tool rule allows other hosts", PresetEditor, allowTool, rules, "https://example.org", Allow, ""},
		{"not a URL gets no lift", PresetEditor, nil, rules, "docs.example.com", Ask, "preset:editor"},
		{"ftp gets no lift", PresetEditor, nil, rules, "ftp://docs.example.com/", Ask, "preset:editor"},
		{"userinfo trick", PresetEditor, nil, rules, "https://docs.example.com@evil.net/", Ask, "preset:editor"},
		{"IP rule", PresetEditor, nil, netrules.Rules{Allow: []string{"127.0.0.1"}}, "http://127.0.0.1:8080/", Allow, "network:allow 127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := networkEngine(t, tc.preset, tc.user, tc.rules).Decide(context.Background(), fetchCall(tc.url))
			if d.Action != tc.want || tc.rule != "" && d.Rule != tc.rule {
				t.Errorf("%s: got %v rule %q (%s), want %v rule %q", tc.url, d.Action, d.Rule, d.Reason, tc.want, tc.rule)
			}
		})
	}
}

// An invalid rule fails the engine with the rule in the message.
func TestNetworkRulesInvalid(t *testing.T) {
	_, err := NewEngine(EngineConfig{Workspace: testWorkspace, Home: testHome, Network: netrules.Rules{Allow: []string{"*"}}})
	if err == nil || !strings.Contains(err.Error(), `"*"`) {
		t.Errorf("err = %v", err)
	}
}
