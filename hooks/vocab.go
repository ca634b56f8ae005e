package hooks

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// Hook scripts written for Claude Code look at tool_name "Bash" and
// tool_input.command, "Write" and tool_input.file_path. rein's tools do
// the same jobs under other names; this file translates a call into
// Claude Code's vocabulary for the hook and an updatedInput back into
// rein's.

// fieldKind says how an argument's value is translated.
type fieldKind int

const (
	plain   fieldKind = iota
	absPath           // workspace-relative in rein, absolute in Claude Code
	millis            // seconds in rein, milliseconds in Claude Code
)

type field struct {
	rein, claude string
	kind         fieldKind
}

// vocabulary maps one rein tool to its Claude Code counterpart.
type vocabulary struct {
	rein, claude string
	fields       []field
	// claudeOnly are Claude Code input fields rein's tool has no use
	// for; they are dropped from an updatedInput.
	claudeOnly []string
}

var vocabularies = []vocabulary{
	{rein: "run_command", claude: "Bash", fields: []field{
		{"command", "command", plain}, {"timeout_s", "timeout", millis}, {"cwd", "cwd", plain},
	}, claudeOnly: []string{"description", "run_in_background", "dangerouslyDisableSandbox"}},
	{rein: "read_file", claude: "Read", fields: []field{
		{"path", "file_path", absPath}, {"offset", "offset", plain}, {"limit", "limit", plain},
	}},
	{rein: "write_file", claude: "Write", fields: []field{
		{"path", "file_path", absPath}, {"content", "content", plain},
	}},
	{rein: "edit_file", claude: "Edit", fields: []field{
		{"path", "file_path", absPath}, {"old_string", "old_string", plain},
		{"new_string", "new_string", plain}, {"replace_all", "replace_all", plain},
	}},
	{rein: "glob", claude: "Glob", fields: []field{
		{"pattern", "pattern", plain}, {"path", "path", absPath},
	}},
	{rein: "grep", claude: "Grep", fields: []field{
		{"pattern", "pattern", plain}, {"path", "path", absPath}, {"glob", "glob", plain},
		{"ignore_case", "-i", plain}, {"context", "-C", plain},
	}, claudeOnly: []string{"output_mode", "-n", "-A", "-B", "type", "head_limit", "multiline", "offset"}},
	{rein: "list_dir", claude: "LS", fields: []field{
		{"path", "path", absPath}, {"depth", "depth", plain},
	}, claudeOnly: []string{"ignore"}},
	{rein: "todo_write", claude: "TodoWrite", fields: []field{
		{"todos", "todos", plain},
	}},
	{rein: "task", claude: "Task", fields: []field{
		{"description", "description", plain}, {"prompt", "prompt", plain},
		{"agent", "subagent_type", plain},
	}},
}

func vocabularyOf(reinName string) *vocabulary {
	for i := range vocabularies {
		if vocabularies[i].rein == reinName {
			return &vocabularies[i]
		}
	}
	return nil
}

// ClaudeName returns the name Claude Code gives the tool rein calls name:
// its counterpart (run_command is Bash), mcp__server__tool for an MCP
// tool (rein names those server__tool), else name itself.
func ClaudeName(name string) string {
	if v := vocabularyOf(name); v != nil {
		return v.claude
	}
	if strings.Contains(name, "__") && !strings.HasPrefix(name, "mcp__") {
		return "mcp__" + name
	}
	return name
}

// toClaudeInput translates rein's arguments of tool name into Claude
// Code's input. Fields without a counterpart keep their names, so
// nothing the call does is hidden from the hook. Arguments that are not
// a JSON object are passed as they are.
func toClaudeInput(name string, args json.RawMessage, workspace string) json.RawMessage {
	v := vocabularyOf(name)
	var in map[string]json.RawMessage
	if v == nil || json.Unmarshal(args, &in) != nil || in == nil {
		return validJSON(args)
	}
	out := make(map[string]json.RawMessage, len(in))
	for k, val := range in {
		f, ok := v.byRein(k)
		if !ok {
			out[k] = val
			continue
		}
		out[f.claude] = convertOut(f.kind, val, workspace)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return validJSON(args)
	}
	return data
}

// fromClaudeInput applies a hook's updatedInput to the call's arguments.
// Keys may be in Claude Code's vocabulary or rein's; each replaces the
// argument it names and the others are kept, so a hook may send the
// whole input back (as Claude Code expects) or only what it changes.
// Claude-only fields are dropped; other unknown keys are passed on for
// the tool's argument validation to judge.
func fromClaudeInput(name string, args, updated json.RawMessage, workspace string) (json.RawMessage, error) {
	var up map[string]json.RawMessage
	if err := json.Unmarshal(updated, &up); err != nil || up == nil {
		return nil, fmt.Errorf("updatedInput is not a JSON object")
	}
	merged := map[string]json.RawMessage{}
	if err := json.Unmarshal(args, &merged); err != nil || merged == nil {
		merged = map[string]json.RawMessage{}
	}
	v := vocabularyOf(name)
	for k, val := range up {
		if v == nil {
			merged[k] = val
			continue
		}
		if f, ok := v.byClaude(k); ok {
			conv, err := convertIn(f.kind, val, workspace)
			if err != nil {
				return nil, fmt.Errorf("updatedInput.%s: %v", k, err)
			}
			merged[f.rein] = conv
			continue
		}
		if _, ok := v.byRein(k); ok {
			merged[k] = val // rein's name, in rein's units
			continue
		}
		if contains(v.claudeOnly, k) {
			continue
		}
		merged[k] = val
	}
	return json.Marshal(merged)
}

func (v *vocabulary) byRein(k string) (field, bool) {
	for _, f := range v.fields {
		if f.rein == k {
			return f, true
		}
	}
	return field{}, false
}

func (v *vocabulary) byClaude(k string) (field, bool) {
	for _, f := range v.fields {
		if f.claude == k {
			return f, true
		}
	}
	return field{}, false
}

func convertOut(kind fieldKind, val json.RawMessage, workspace string) json.RawMessage {
	switch kind {
	case absPath:
		var p string
		if json.Unmarshal(val, &p) != nil || workspace == "" {
			return val
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(workspace, filepath.FromSlash(p))
		}
		data, _ := json.Marshal(p)
		return data
	case millis:
		var s float64
		if json.Unmarshal(val, &s) != nil {
			return val
		}
		data, _ := json.Marshal(s * 1000)
		return data
	}
	return val
}

func convertIn(kind fieldKind, val json.RawMessage, workspace string) (json.RawMessage, error) {
	switch kind {
	case absPath:
		var p string
		if err := json.Unmarshal(val, &p); err != nil {
			return nil, fmt.Errorf("not a string")
		}
		if workspace != "" && filepath.IsAbs(p) {
			if rel, err := filepath.Rel(workspace, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				p = filepath.ToSlash(rel)
			}
		}
		return json.Marshal(p)
	case millis:
		var ms float64
		if err := json.Unmarshal(val, &ms); err != nil {
			return nil, fmt.Errorf("not a number of milliseconds")
		}
		if ms < 0 || ms > math.MaxInt32 {
			return nil, fmt.Errorf("%v milliseconds is out of range", ms)
		}
		return json.Marshal(int(math.Ceil(ms / 1000)))
	}
	return val, nil
}

// validJSON returns data when it is valid JSON, else the data as a JSON
// string, so the input written to a hook is always well formed.
func validJSON(data json.RawMessage) json.RawMessage {
	if json.Valid(data) {
		return data
	}
	out, _ := json.Marshal(string(data))
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
