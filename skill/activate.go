package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/tool"
)

// MaxContextSectionBytes caps an active skill's context section. Past it
// activation fails: silently truncated JSON would be worse than none.
const MaxContextSectionBytes = 16 << 10

// ToolSeparator joins a skill's name and its tool's name in the exposed
// tool name. Skill names cannot hold '_', so the split is unambiguous.
const ToolSeparator = "__"

// Activation is what activating a skill adds to a run: its instructions as
// a system prompt section, its context as a context section, and the tools
// it owns under their exposed names.
type Activation struct {
	Skill *Skill
	// Prompt is the system prompt section "# Skill: <name>" followed by
	// the skill's instructions.
	Prompt string
	// Context is the section "# Skill Context: <name>" followed by the
	// skill's context JSON, or "" when the skill has none.
	Context string
	// Tools are the skill's Go tools renamed <skill>__<tool>.
	Tools []tool.Tool
}

// Activate builds the activation of s. It fails when the context section
// would pass MaxContextSectionBytes or a tool's exposed name is invalid.
func Activate(s *Skill) (*Activation, error) {
	a := &Activation{Skill: s, Prompt: promptSection(s)}
	if len(s.Context) > 0 {
		a.Context = contextSection(s.Name, s.Context)
		if len(a.Context) > MaxContextSectionBytes {
			return nil, fmt.Errorf("skill %q: the context section is %d bytes, over the %d KiB limit; shrink %s's context file (it is never truncated)",
				s.Name, len(a.Context), MaxContextSectionBytes>>10, s.Name)
		}
	}
	seen := map[string]bool{}
	for _, t := range s.Tools {
		et, err := ExposeTool(s.Name, t)
		if err != nil {
			return nil, err
		}
		name := et.Spec().Name
		if seen[name] {
			return nil, fmt.Errorf("skill %q: two tools are exposed as %q", s.Name, name)
		}
		seen[name] = true
		a.Tools = append(a.Tools, et)
	}
	return a, nil
}

// promptSection renders "# Skill: <name>" and the body, with control
// characters escaped (newlines and tabs kept).
func promptSection(s *Skill) string {
	body := strings.TrimSpace(termsafe.Text(s.Body))
	return "# Skill: " + s.Name + "\n\n" + body + "\n"
}

func contextSection(name string, ctx json.RawMessage) string {
	return "# Skill Context: " + name + "\n\n" + termsafe.Text(string(ctx)) + "\n"
}

// ExposedName returns the name a skill's tool is offered under:
// <skill>__<tool>, checked against the model APIs' tool-name rules
// (tool.ValidateName: at most tool.MaxNameLen characters).
func ExposedName(skillName, toolName string) (string, error) {
	if err := ValidateName(skillName); err != nil {
		return "", err
	}
	name := skillName + ToolSeparator + toolName
	if err := tool.ValidateName(name); err != nil {
		return "", fmt.Errorf("skill %q: tool %q cannot be exposed: %w", skillName, clipLine(toolName, 64), err)
	}
	return name, nil
}

// ExposeTool returns t under the name <skill>__<tool>; calls go to t
// unchanged. Its spec is t's with the new name, so effects and annotations
// — what the policy decides on — are kept.
func ExposeTool(skillName string, t tool.Tool) (tool.Tool, error) {
	if t == nil {
		return nil, fmt.Errorf("skill %q: a tool is nil", skillName)
	}
	spec := t.Spec()
	name, err := ExposedName(skillName, spec.Name)
	if err != nil {
		return nil, err
	}
	spec.Name = name
	return &renamed{inner: t, spec: spec}, nil
}

// renamed is a tool offered under another name.
type renamed struct {
	inner tool.Tool
	spec  tool.Spec
}

// Spec returns the renamed spec.
func (r *renamed) Spec() tool.Spec { return r.spec }

// Call calls the underlying tool.
func (r *renamed) Call(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	return r.inner.Call(ctx, args)
}

// Timeout keeps the underlying tool's own per-call timeout.
func (r *renamed) Timeout() time.Duration {
	if t, ok := r.inner.(tool.Timeouter); ok {
		return t.Timeout()
	}
	return 0
}

// claudeToolNames maps the tool names skills written for Claude Code use
// in allowed-tools to rein's, so such a skill narrows to the same tools.
var claudeToolNames = map[string][]string{
	"Read":      {"read_file"},
	"Write":     {"write_file"},
	"Edit":      {"edit_file", "apply_patch"},
	"MultiEdit": {"edit_file", "apply_patch"},
	"Bash":      {"run_command"},
	"Grep":      {"grep"},
	"Glob":      {"glob"},
	"LS":        {"list_dir"},
	"WebFetch":  {"web_fetch"},
	"Task":      {"task"},
	"Skill":     {"skill"},
}

// Narrow returns the names in toolNames that allowed permits, in
// toolNames' order, and the allowed entries that matched none of them.
//
// allowed-tools can only narrow: a name outside toolNames is never added,
// however the skill spells it, so a skill cannot reach a tool the policy
// and configuration did not already offer. An entry matches a tool by its
// exact name, by the part before "(" ("Bash(git:*)" is run_command — the
// pattern in parentheses is not a grant: every command still goes through
// the policy), or through Claude Code's tool names (Read, Bash, Edit, …).
// A nil allowed means the skill declares nothing and toolNames is returned
// whole.
func Narrow(allowed, toolNames []string) (kept, unmatched []string) {
	if allowed == nil {
		return slices.Clone(toolNames), nil
	}
	want := map[string]bool{}
	for _, entry := range allowed {
		base, _, _ := strings.Cut(entry, "(")
		base = strings.TrimSpace(base)
		matched := false
		for _, n := range append([]string{base}, claudeToolNames[base]...) {
			if slices.Contains(toolNames, n) {
				want[n], matched = true, true
			}
		}
		if !matched {
			unmatched = append(unmatched, entry)
		}
	}
	for _, n := range toolNames {
		if want[n] {
			kept = append(kept, n)
		}
	}
	return kept, unmatched
}
