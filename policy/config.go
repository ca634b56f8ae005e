package policy

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"

	"github.com/reinharness/rein/policy/shell"
)

// ErrInvalidConfig wraps every error about a malformed [policy] table.
var ErrInvalidConfig = errors.New("invalid policy configuration")

// Config is the [policy] table of a configuration file:
//
//	[policy]
//	preset = "editor"
//	[[policy.tools]]
//	name = "github__*"
//	action = "allow"
//	[[policy.commands]]
//	prefix = ["go", "test"]
//	action = "allow"
//	match = ["go test ./..."]
//	not_match = ["go vet ./..."]
//	[[policy.paths]]
//	pattern = "**/.env"
//	access = "any"
//	action = "deny"
//	[[policy.hard_deny]]
//	prefix = ["terraform", "destroy"]
type Config struct {
	// Preset is "read-only", "editor" or "full"; empty keeps the
	// preset of the layers below.
	Preset string `toml:"preset,omitempty"`
	// Tools are [[policy.tools]]: per-tool verdicts.
	Tools []ToolRule `toml:"tools,omitempty"`
	// Commands are [[policy.commands]]: verdicts on parsed commands.
	Commands []CommandRule `toml:"commands,omitempty"`
	// Paths are [[policy.paths]]: verdicts on path arguments.
	Paths []PathRule `toml:"paths,omitempty"`
	// HardDeny are [[policy.hard_deny]]: denials nothing lifts.
	HardDeny []HardDenyRule `toml:"hard_deny,omitempty"`
}

// ToolRule decides calls of the tools whose name matches Name: an exact
// name or a glob such as "github__*".
type ToolRule struct {
	// Name is a tool name or a glob over names.
	Name string `toml:"name"`
	// Action is "allow", "ask" or "deny".
	Action string `toml:"action"`
	// Reason is shown with the decision.
	Reason string `toml:"reason,omitempty"`
}

// CommandRule decides the simple commands whose argv (after wrappers are
// unwrapped) starts with Prefix, word by word; with Exact the argv must
// equal Prefix. Match and NotMatch are example command lines checked when
// the rule loads, so a rule that does not mean what its author thinks
// fails loudly.
type CommandRule struct {
	// Prefix are the leading argv words, compared literally.
	Prefix []string `toml:"prefix"`
	// Exact requires the whole argv to equal Prefix.
	Exact bool `toml:"exact,omitempty"`
	// Action is "allow", "ask" or "deny".
	Action string `toml:"action"`
	// Match are command lines the rule must match.
	Match []string `toml:"match,omitempty"`
	// NotMatch are command lines the rule must not match.
	NotMatch []string `toml:"not_match,omitempty"`
	// Reason is shown with the decision.
	Reason string `toml:"reason,omitempty"`
}

// PathRule decides calls whose path arguments match Pattern, a
// doublestar glob relative to the workspace ("**/.env", "secrets/**").
// Access is "read", "write" or "any" (the default).
type PathRule struct {
	// Pattern is a doublestar glob over workspace-relative paths
	// (absolute for paths outside the workspace).
	Pattern string `toml:"pattern"`
	// Access is "read", "write" or "any" (empty means any).
	Access string `toml:"access,omitempty"`
	// Action is "allow", "ask" or "deny".
	Action string `toml:"action"`
	// Reason is shown with the decision.
	Reason string `toml:"reason,omitempty"`
}

// HardDenyRule adds a hard denial: any command whose argv starts with
// Prefix is denied and nothing lifts it.
type HardDenyRule struct {
	// Prefix are the leading argv words, compared literally.
	Prefix []string `toml:"prefix"`
	// Reason is shown with the denial.
	Reason string `toml:"reason,omitempty"`
	// Match are command lines the rule must match.
	Match []string `toml:"match,omitempty"`
	// NotMatch are command lines the rule must not match.
	NotMatch []string `toml:"not_match,omitempty"`
}

// ParseConfig decodes the [policy] table of a TOML document (other
// tables are ignored) and validates it.
func ParseConfig(data []byte) (Config, error) {
	var doc struct {
		Policy toml.Primitive `toml:"policy"`
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %s; fix the TOML syntax", ErrInvalidConfig, firstLine(err.Error()))
	}
	if !md.IsDefined("policy") {
		return Config{}, nil
	}
	return DecodeConfig(doc.Policy, md)
}

// DecodeConfig decodes an already parsed [policy] table and validates it.
// Unknown keys are errors: a misspelt "acton" must not silently become a
// rule with no action.
func DecodeConfig(prim toml.Primitive, md toml.MetaData) (Config, error) {
	var c Config
	if err := md.PrimitiveDecode(prim, &c); err != nil {
		return Config{}, fmt.Errorf("%w: [policy]: %s", ErrInvalidConfig, firstLine(err.Error()))
	}
	for _, k := range md.Undecoded() {
		if len(k) > 0 && k[0] == "policy" {
			return Config{}, fmt.Errorf("%w: unknown key %q; remove it or fix its spelling", ErrInvalidConfig, k.String())
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Validate checks every rule, including the match and not_match examples
// of command rules. The error names the rule and the failing example.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	if c.Preset != "" {
		if _, err := ParsePreset(c.Preset); err != nil {
			bad("policy.preset: %v", err)
		}
	}
	for i, r := range c.Tools {
		where := fmt.Sprintf("policy.tools[%d] (%q)", i, r.Name)
		if r.Name == "" {
			bad("%s: name is empty; give a tool name or a glob like \"server__*\"", where)
		} else if !doublestar.ValidatePattern(r.Name) {
			bad("%s: name is not a valid glob", where)
		}
		if _, err := ParseAction(r.Action); err != nil {
			bad("%s: %v", where, err)
		}
	}
	for i, r := range c.Commands {
		where := fmt.Sprintf("policy.commands[%d] (%s)", i, describePrefix(r.Prefix))
		if err := checkPrefix(r.Prefix); err != nil {
			bad("%s: %v", where, err)
			continue
		}
		if _, err := ParseAction(r.Action); err != nil {
			bad("%s: %v", where, err)
		}
		if err := checkExamples(r.Prefix, r.Exact, r.Match, r.NotMatch); err != nil {
			bad("%s: %v", where, err)
		}
	}
	for i, r := range c.Paths {
		where := fmt.Sprintf("policy.paths[%d] (%q)", i, r.Pattern)
		if r.Pattern == "" || !doublestar.ValidatePattern(r.Pattern) {
			bad("%s: pattern must be a valid doublestar glob such as \"**/.env\"", where)
		}
		switch r.Access {
		case "", "any", "read", "write":
		default:
			bad("%s: access %q is not read, write or any", where, r.Access)
		}
		if _, err := ParseAction(r.Action); err != nil {
			bad("%s: %v", where, err)
		}
	}
	for i, r := range c.HardDeny {
		where := fmt.Sprintf("policy.hard_deny[%d] (%s)", i, describePrefix(r.Prefix))
		if err := checkPrefix(r.Prefix); err != nil {
			bad("%s: %v", where, err)
			continue
		}
		if err := checkExamples(r.Prefix, false, r.Match, r.NotMatch); err != nil {
			bad("%s: %v", where, err)
		}
	}
	return errors.Join(errs...)
}

func describePrefix(p []string) string {
	if len(p) == 0 {
		return "empty prefix"
	}
	return strings.Join(p, " ")
}

func checkPrefix(p []string) error {
	if len(p) == 0 {
		return errors.New(`prefix is empty; give the leading words of the command, e.g. ["go", "test"]`)
	}
	if slices.Contains(p, "") {
		return errors.New("prefix has an empty word; remove it")
	}
	return nil
}

// checkExamples verifies that every match example matches the prefix and
// no not_match example does.
func checkExamples(prefix []string, exact bool, match, notMatch []string) error {
	for _, ex := range match {
		if !exampleMatches(prefix, exact, ex) {
			return fmt.Errorf("match example %q does not match; fix the prefix or the example", ex)
		}
	}
	for _, ex := range notMatch {
		if exampleMatches(prefix, exact, ex) {
			return fmt.Errorf("not_match example %q matches; fix the prefix or the example", ex)
		}
	}
	return nil
}

func exampleMatches(prefix []string, exact bool, example string) bool {
	for _, c := range shell.Analyze(example, shell.Options{}).Commands {
		if prefixMatches(prefix, exact, c.Norm) {
			return true
		}
	}
	return false
}

// prefixMatches reports whether argv starts with prefix, word by word
// (equals it, when exact).
func prefixMatches(prefix []string, exact bool, argv []string) bool {
	if len(argv) < len(prefix) || exact && len(argv) != len(prefix) {
		return false
	}
	for i, p := range prefix {
		if argv[i] != p {
			return false
		}
	}
	return true
}

// ParseAction parses "allow", "ask" or "deny".
func ParseAction(s string) (Action, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return Deny, fmt.Errorf("action %q is not allow, ask or deny", s)
}

// firstLine is the first line of an error, for a one-line reason.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
