package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/policy/claudeperm"
	"github.com/reinharness/rein/policy/netrules"
)

// ApprovedRulesFile is the name of the approved-rules store in the state
// directory: the project rules a user approved "always for this project".
const ApprovedRulesFile = "approved-rules.json"

// PolicyLayers decodes every layer's [policy] table, lowest precedence
// first, and appends the --preset flag as the user's last word. The
// built-in layer is added by policy.NewEngine.
func PolicyLayers(cfg *config.Config, preset string) ([]policy.Layer, error) {
	var layers []policy.Layer
	for _, sec := range cfg.Sections("policy") {
		var pc policy.Config
		if err := sec.Decode(&pc); err != nil {
			return nil, err
		}
		if err := pc.Validate(); err != nil {
			return nil, sec.Errorf(nil, "%v", err)
		}
		pc.Tools = WithClaudeMCPNames(pc.Tools)
		kind := policy.LayerUser
		if sec.Source.Layer == config.LayerProject {
			kind = policy.LayerProject
		}
		layers = append(layers, policy.Layer{Kind: kind, Source: sec.Source.Name, Config: pc})
	}
	if preset != "" {
		layers = append(layers, policy.Layer{Kind: policy.LayerUser, Source: "--preset", Config: policy.Config{Preset: preset}})
	}
	return layers, nil
}

// WithClaudeMCPNames adds, for each tool rule naming an MCP tool in
// Claude Code's spelling (mcp__github__create_issue, mcp__github), the
// same rule in rein's (github__create_issue, github__*), so rules copied
// from Claude Code mean what they meant there. The rule as written stays:
// a server may be named "mcp".
func WithClaudeMCPNames(rules []policy.ToolRule) []policy.ToolRule {
	out := append([]policy.ToolRule(nil), rules...)
	for _, r := range rules {
		if name, ok := claudeperm.ReinToolName(r.Name); ok {
			r.Name = name
			out = append(out, r)
		}
	}
	return out
}

// StateDir is rein's state directory: --state-dir, else
// $XDG_STATE_HOME/rein, else ~/.local/state/rein; "" when none is known.
func StateDir(flag string, getenv func(string) string) string {
	if flag != "" {
		if abs, err := filepath.Abs(flag); err == nil {
			return abs
		}
		return flag
	}
	// The XDG spec says relative values are invalid and must be ignored.
	if dir := getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "rein")
	}
	if home := HomeDir(getenv); home != "" {
		return filepath.Join(home, ".local", "state", "rein")
	}
	return ""
}

// HomeDir is $HOME, else the account's home directory, else "".
func HomeDir(getenv func(string) string) string {
	if home := getenv("HOME"); home != "" {
		return home
	}
	home, _ := os.UserHomeDir()
	return home
}

// OpenApproved opens the approved-rules store under the state directory;
// without one, approvals last for this process only.
func OpenApproved(dir string) (policy.ApprovedStore, error) {
	if dir == "" {
		return policy.NewMemoryApprovedStore(), nil
	}
	s, err := policy.OpenApprovedStore(filepath.Join(dir, ApprovedRulesFile))
	if err != nil {
		return nil, err
	}
	return s, nil
}

// networkSection is the [network] table: host rules for the tools that
// reach the network by URL (web_fetch):
//
//	[network]
//	allow = ["docs.example.com", "*.github.com"]   # fetched without asking under the editor preset
//	deny  = ["internal.example.com", "10.0.0.0/8"] # never fetched, under every preset
//
// Deny wins over allow. An allow rule lifts the editor preset's question
// (read-only still denies the network) and lets web_fetch reach the
// loopback, private or link-local addresses it names, which are refused
// otherwise. A project layer may only add denies: its allow is ignored
// with a warning.
type networkSection struct {
	Allow []string `toml:"allow"`
	Deny  []string `toml:"deny"`
}

// LoadNetworkRules merges every layer's [network] table.
func LoadNetworkRules(cfg *config.Config) (netrules.Rules, []string, error) {
	var rules netrules.Rules
	var warnings []string
	for _, sec := range cfg.Sections("network") {
		var t networkSection
		if err := sec.Decode(&t); err != nil {
			return netrules.Rules{}, nil, err
		}
		for _, kl := range []struct {
			key  string
			list []string
		}{{"allow", t.Allow}, {"deny", t.Deny}} {
			key := kl.key
			for _, p := range kl.list {
				if err := netrules.Validate(p); err != nil {
					return netrules.Rules{}, nil, sec.Errorf([]string{key}, "network.%s: %v", key, strings.TrimPrefix(err.Error(), netrules.ErrInvalidRule.Error()+": "))
				}
			}
		}
		rules.Deny = append(rules.Deny, t.Deny...)
		if sec.Source.Layer == config.LayerProject {
			if len(t.Allow) > 0 {
				warnings = append(warnings, fmt.Sprintf("%s: [network] allow ignored: a project can only add denies", sec.Source.Name))
			}
			continue
		}
		rules.Allow = append(rules.Allow, t.Allow...)
	}
	return rules, warnings, nil
}
