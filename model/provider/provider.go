// Package provider is the table of the model providers rein speaks to:
// the name a configuration selects, the default endpoint, the variables
// that hold an API key or name a model or server, and the constructor.
// The configuration, the command line's setup, secret redaction and the
// error explainer all read this one table, so a provider is added in one
// place.
//
// The table is fixed at build time and read through functions that
// return copies: no importer can change what another sees.
package provider

import (
	"fmt"
	"slices"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
	"github.com/reinharness/rein/model/openai"
	"github.com/reinharness/rein/model/transport"
)

// Names of the providers.
const (
	OpenAI    = "openai"    // any OpenAI-compatible Chat Completions server
	Anthropic = "anthropic" // the Anthropic Messages API
)

// KeyVar is rein's own API-key variable, read before any provider's.
const KeyVar = "REIN_API_KEY"

// Settings are what a constructor needs, whatever the provider.
type Settings struct {
	Endpoint         string
	APIKey           string
	Model            string
	MaxTokens        int // output tokens per call; 0 = the provider's default
	ContextWindow    int // tokens; 0 = ask the server where it can say
	MaxResponseBytes int // 0 = model.DefaultMaxResponseBytes
	HTTP             transport.Config
}

// Alias is a variable of another tool that rein honours for a setting
// when the provider is in force and rein's own variable is not set.
type Alias struct {
	Key string // configuration key, e.g. "model.endpoint"
	Env string // the variable, e.g. "LLAMA_SERVER_URL"
}

// Info describes one provider.
type Info struct {
	Name            string
	Description     string
	DefaultEndpoint string
	// KeyVars are the conventional API-key variables, in the order they
	// are read (after --api-key, KeyVar and model.api_key_env).
	KeyVars []string
	// Aliases are the other tools' variables honoured for this provider.
	Aliases []Alias
	// ModelExample, when set, means every request needs a model name; it
	// is the example an error gives.
	ModelExample string
	// LocalServer names the program that serves the default endpoint on
	// this machine ("llama-server"), for the hint when it cannot be
	// reached; "" for a remote API.
	LocalServer string
	// New builds the provider.
	New func(Settings) (model.Provider, error)
}

var table = []Info{
	{
		Name:            OpenAI,
		Description:     "any OpenAI-compatible Chat Completions server (llama.cpp's llama-server, vLLM, OpenAI)",
		DefaultEndpoint: "http://127.0.0.1:8080",
		KeyVars:         []string{"OPENAI_API_KEY", "LLAMA_API_KEY"},
		Aliases:         []Alias{{Key: "model.endpoint", Env: "LLAMA_SERVER_URL"}},
		LocalServer:     "llama-server",
		New: func(s Settings) (model.Provider, error) {
			return openai.New(openai.Config{
				BaseURL: s.Endpoint, APIKey: s.APIKey, Model: s.Model,
				ContextWindow: s.ContextWindow, MaxResponseBytes: s.MaxResponseBytes, HTTP: s.HTTP,
			})
		},
	},
	{
		Name:            Anthropic,
		Description:     "the Anthropic Messages API",
		DefaultEndpoint: "https://api.anthropic.com",
		KeyVars:         []string{"ANTHROPIC_API_KEY"},
		Aliases:         []Alias{{Key: "model.model", Env: "ANTHROPIC_MODEL"}},
		ModelExample:    "claude-sonnet-4-5",
		New: func(s Settings) (model.Provider, error) {
			return anthropic.New(anthropic.Config{
				BaseURL: s.Endpoint, APIKey: s.APIKey, Model: s.Model, MaxTokens: s.MaxTokens,
				ContextWindow: s.ContextWindow, MaxResponseBytes: s.MaxResponseBytes, HTTP: s.HTTP,
			})
		},
	},
}

// Lookup returns the provider called name.
func Lookup(name string) (Info, bool) {
	i := slices.IndexFunc(table, func(p Info) bool { return p.Name == name })
	if i < 0 {
		return Info{}, false
	}
	return clone(table[i]), true
}

// All returns every provider, in the table's order.
func All() []Info {
	out := make([]Info, len(table))
	for i, p := range table {
		out[i] = clone(p)
	}
	return out
}

// Names returns the providers' names, in the table's order.
func Names() []string {
	out := make([]string, len(table))
	for i, p := range table {
		out[i] = p.Name
	}
	return out
}

// AllKeyVars returns KeyVar and every provider's key variables: the
// values to keep out of logs whichever provider is in force.
func AllKeyVars() []string {
	out := []string{KeyVar}
	for _, p := range table {
		out = append(out, p.KeyVars...)
	}
	return out
}

// New builds the provider s is for; an unknown name or a missing model
// name the provider needs is an error saying what to set.
func New(name string, s Settings) (model.Provider, error) {
	p, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown provider %q: use one of %v", name, Names())
	}
	if p.ModelExample != "" && s.Model == "" {
		return nil, fmt.Errorf("the %s provider needs a model name: pass --model (for example %s) or set model.model in the config", p.Name, p.ModelExample)
	}
	return p.New(s)
}

func clone(p Info) Info {
	p.KeyVars = slices.Clone(p.KeyVars)
	p.Aliases = slices.Clone(p.Aliases)
	return p
}
