package provider_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/provider"
)

func TestTable(t *testing.T) {
	if got := provider.Names(); !slices.Equal(got, []string{"openai", "anthropic"}) {
		t.Fatalf("Names() = %v", got)
	}
	for _, p := range provider.All() {
		if p.DefaultEndpoint == "" || p.New == nil || len(p.KeyVars) == 0 || p.Description == "" {
			t.Errorf("%s: incomplete entry %+v", p.Name, p)
		}
	}
	want := []string{"REIN_API_KEY", "OPENAI_API_KEY", "LLAMA_API_KEY", "ANTHROPIC_API_KEY"}
	if got := provider.AllKeyVars(); !slices.Equal(got, want) {
		t.Errorf("AllKeyVars() = %v, want %v", got, want)
	}
}

// TestTableCannotBeChanged: what a caller gets is a copy.
func TestTableCannotBeChanged(t *testing.T) {
	p, _ := provider.Lookup(provider.OpenAI)
	p.KeyVars[0] = "HIJACKED"
	p.Aliases[0].Env = "HIJACKED"
	all := provider.All()
	all[0].DefaultEndpoint = "http://evil.example"
	again, _ := provider.Lookup(provider.OpenAI)
	if again.KeyVars[0] != "OPENAI_API_KEY" || again.Aliases[0].Env != "LLAMA_SERVER_URL" || again.DefaultEndpoint != "http://127.0.0.1:8080" {
		t.Fatalf("the table changed under a caller: %+v", again)
	}
}

func TestNew(t *testing.T) {
	if _, err := provider.New("gemini", provider.Settings{}); err == nil || !strings.Contains(err.Error(), `unknown provider "gemini"`) {
		t.Errorf("unknown provider: %v", err)
	}
	if _, err := provider.New(provider.Anthropic, provider.Settings{Endpoint: "https://api.anthropic.com", APIKey: "k"}); err == nil || !strings.Contains(err.Error(), "needs a model name") {
		t.Errorf("anthropic without a model: %v", err)
	}
	for _, name := range provider.Names() {
		p, err := provider.New(name, provider.Settings{Endpoint: "http://127.0.0.1:1", APIKey: "k", Model: "m"})
		if err != nil || p == nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
