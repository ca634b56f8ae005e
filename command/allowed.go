package command

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/reinharness/rein/hooks"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/policy/shell"
)

// runCommand is the tool Claude Code's Bash maps to.
const runCommand = "run_command"

// claudeAliases are Claude Code tool names rein's hooks vocabulary does not
// cover, mapped to rein's tools that do the same job.
var claudeAliases = map[string]string{
	"MultiEdit": "edit_file",
	"WebFetch":  "web_fetch",
	"WebSearch": "web_search",
	"Task":      "task",
}

// Restriction is an allowed-tools list resolved against the tools a run
// has: the tools it leaves the model (for agent.RunOptions.AllowedTools)
// and, as a policy.Decider for agent.RunOptions.Narrow, the check of the
// Bash(…) patterns on run_command. It only narrows: Decide returns Allow
// for anything it does not restrict, and the agent lets the stricter of
// its decision and the policy's win.
type Restriction struct {
	// Tools are rein's names of the allowed tools, sorted, never nil.
	Tools []string
	// Label names the restriction in denial reasons ("the command's
	// allowed-tools").
	Label string
	// patterns are the Bash(…) patterns; anyCommand is set when Bash was
	// allowed without one (or as Bash(*)), so run_command is not narrowed.
	patterns   []pattern
	anyCommand bool
}

// pattern is one Bash(…) specifier: the command's words, matched exactly
// or (prefix) as the first words of the command.
type pattern struct {
	words  []string
	prefix bool
	text   string
}

// NewRestriction resolves allowed-tools entries (Claude Code's names, such
// as Read or Bash(git status:*), or rein's own, such as read_file) against
// known, the names of the run's tools. An entry naming no tool of known is
// dropped with a warning: the run is narrower, never wider. A specifier on
// a tool other than Bash (Read(src/**)) is not enforced: the tool is
// allowed whole, under the policy, and a warning says so.
//
// How Bash patterns are enforced: the command is parsed as the policy
// parses it (shell.Analyze, wrappers such as env and timeout unwrapped),
// and every simple command in it (of pipes, lists, substitutions) must
// match a pattern — "git status:*" and "git status *" by their first
// words, "npm test" exactly. A command whose name is only known at run
// time matches nothing. A match lifts nothing: the policy still decides
// the call as a whole.
func NewRestriction(entries, known []string, label string) (*Restriction, []string) {
	r := &Restriction{Tools: []string{}, Label: label}
	var warnings []string
	add := func(name string) {
		if !slices.Contains(r.Tools, name) {
			r.Tools = append(r.Tools, name)
		}
	}
	for _, e := range entries {
		name, spec, err := splitEntry(e)
		if err != nil {
			warnings = append(warnings, err.Error())
			continue
		}
		tools := resolveName(name, known)
		if len(tools) == 0 {
			warnings = append(warnings, fmt.Sprintf("allowed-tools names %q, which this run does not have; left out", name))
			continue
		}
		for _, t := range tools {
			add(t)
		}
		switch {
		case len(tools) == 1 && tools[0] == runCommand:
			if spec == "" || spec == "*" {
				r.anyCommand = true
				break
			}
			p, err := parsePattern(spec)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("allowed-tools %q: %v; left out", e, err))
				continue
			}
			r.patterns = append(r.patterns, p)
		case spec != "":
			warnings = append(warnings, fmt.Sprintf("allowed-tools %q: rein does not narrow %s by %q; the whole tool is allowed, under the policy", e, tools[0], spec))
		}
	}
	if slices.Contains(r.Tools, runCommand) && !r.anyCommand && len(r.patterns) == 0 {
		// Every Bash pattern was unusable: allow no command rather than any.
		r.Tools = slices.DeleteFunc(r.Tools, func(s string) bool { return s == runCommand })
	}
	slices.Sort(r.Tools)
	return r, warnings
}

// splitEntry splits "Bash(git status:*)" into its name and specifier.
func splitEntry(e string) (name, spec string, err error) {
	e = strings.TrimSpace(e)
	open := strings.IndexByte(e, '(')
	if open < 0 {
		if e == "" || strings.ContainsAny(e, ") \t") {
			return "", "", fmt.Errorf("allowed-tools entry %q is not a tool name", e)
		}
		return e, "", nil
	}
	if !strings.HasSuffix(e, ")") || open == 0 {
		return "", "", fmt.Errorf("allowed-tools entry %q: expected Name or Name(pattern)", e)
	}
	return e[:open], strings.TrimSpace(e[open+1 : len(e)-1]), nil
}

// resolveName maps a Claude Code or rein tool name to rein's tools of
// known: the name itself, its hooks-vocabulary counterpart (Read is
// read_file), an alias, mcp__server__tool for server__tool, and
// mcp__server (or mcp__server__*) for every tool of that server.
func resolveName(name string, known []string) []string {
	if slices.Contains(known, name) {
		return []string{name}
	}
	for _, k := range known {
		if hooks.ClaudeName(k) == name {
			return []string{k}
		}
	}
	if a, ok := claudeAliases[name]; ok && slices.Contains(known, a) {
		return []string{a}
	}
	if server, ok := strings.CutPrefix(name, "mcp__"); ok {
		server = strings.TrimSuffix(server, "__*")
		if server == "" || strings.Contains(server, "__") {
			return nil
		}
		var out []string
		for _, k := range known {
			if strings.HasPrefix(k, server+"__") {
				out = append(out, k)
			}
		}
		return out
	}
	return nil
}

// parsePattern reads a Bash specifier: "git status:*" and "git status *"
// are prefixes, anything else an exact command.
func parsePattern(spec string) (pattern, error) {
	p := pattern{text: spec}
	s := spec
	if t, ok := strings.CutSuffix(s, ":*"); ok {
		s, p.prefix = t, true
	}
	words, err := SplitArgs(s)
	if err != nil {
		return p, err
	}
	if !p.prefix && len(words) > 0 && words[len(words)-1] == "*" {
		words, p.prefix = words[:len(words)-1], true
	}
	if len(words) == 0 {
		return p, fmt.Errorf("the pattern names no command")
	}
	for _, w := range words {
		if strings.ContainsAny(w, "*?[") {
			return p, fmt.Errorf("wildcards are only understood at the end (\"git status:*\")")
		}
	}
	p.words = words
	return p, nil
}

func (p pattern) matches(argv []string) bool {
	if len(argv) < len(p.words) || (!p.prefix && len(argv) != len(p.words)) {
		return false
	}
	return slices.Equal(argv[:len(p.words)], p.words)
}

// Decide implements policy.Decider: run_command calls must match the Bash
// patterns; everything else is Allow (left to the policy).
func (r *Restriction) Decide(_ context.Context, c policy.Call) policy.Decision {
	allow := policy.Decision{Action: policy.Allow}
	if c.Spec.Name != runCommand || r.anyCommand {
		return allow
	}
	var args struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(c.Args, &args) != nil {
		return r.deny("its arguments have no command")
	}
	an := shell.Analyze(args.Command, shell.Options{})
	if len(an.Commands) == 0 {
		return r.deny("rein found no command in it")
	}
	for _, cmd := range an.Commands {
		if cmd.Dynamic {
			return r.deny(fmt.Sprintf("the name of %q is only known when it runs", clip(strings.Join(cmd.Args, " "))))
		}
		if !slices.ContainsFunc(r.patterns, func(p pattern) bool { return p.matches(cmd.Args) }) {
			return r.deny(fmt.Sprintf("%q matches none of them", clip(strings.Join(cmd.Args, " "))))
		}
	}
	return allow
}

func (r *Restriction) deny(why string) policy.Decision {
	texts := make([]string, len(r.patterns))
	for i, p := range r.patterns {
		texts[i] = "Bash(" + p.text + ")"
	}
	label := r.Label
	if label == "" {
		label = "allowed-tools"
	}
	return policy.Decision{Action: policy.Deny, Rule: "restriction:allowed-tools",
		Reason: fmt.Sprintf("%s allows run_command only for %s; %s", label, strings.Join(texts, ", "), why)}
}

// clip bounds a command line quoted in a denial.
func clip(s string) string { return textclip.Clip(s, 120) }
