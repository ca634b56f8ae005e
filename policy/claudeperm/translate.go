package claudeperm

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/policy/netrules"
)

// Env anchors the path rules of a settings file.
type Env struct {
	// Workspace is the project directory (absolute): "./x", "x" and "/x"
	// are relative to it, as Claude Code reads them in a project.
	Workspace string
	// Home is the user's home directory: "~/x" is under it. Empty leaves
	// such rules out with a warning.
	Home string
}

// Translation is what the rules of settings files mean in rein's terms.
// Tighten holds the ask and deny rules, Allow the allow rules; the caller
// places them in a layer (a project's allow rules only once trusted).
type Translation struct {
	Tighten policy.Config
	Allow   policy.Config
	// NetAllow and NetDeny are [network] host rules, from
	// WebFetch(domain:…).
	NetAllow []string
	NetDeny  []string
	// Warnings name the file and the rule of everything not applied as
	// written.
	Warnings []string
}

// Empty reports whether the translation holds no rule.
func (t Translation) Empty() bool {
	return configEmpty(t.Tighten) && configEmpty(t.Allow) && len(t.NetAllow)+len(t.NetDeny) == 0
}

func configEmpty(c policy.Config) bool {
	return len(c.Tools)+len(c.Commands)+len(c.Paths)+len(c.HardDeny) == 0
}

// toolNames are rein's tools for each of Claude Code's tool names, as a
// rule naming the whole tool means it. Claude Code applies Edit rules to
// every tool that edits files and Read rules to every tool that reads
// them; rein does the same with its file tools.
var toolNames = map[string][]string{
	"Bash":      {"run_command"},
	"Read":      {"read_file", "list_dir", "glob", "grep"},
	"Edit":      {"edit_file", "write_file", "apply_patch"},
	"MultiEdit": {"edit_file", "write_file", "apply_patch"},
	"Write":     {"write_file", "apply_patch"},
	"Glob":      {"glob"},
	"Grep":      {"grep"},
	"LS":        {"list_dir"},
	"WebFetch":  {"web_fetch"},
	"TodoWrite": {"todo_write"},
	"Task":      {"task"},
	"Agent":     {"task"},
}

// noCounterpart are Claude Code tools rein does not have: a rule for them
// decides nothing, which the user is told.
var noCounterpart = map[string]bool{"WebSearch": true, "NotebookEdit": true, "NotebookRead": true, "KillShell": true, "BashOutput": true, "Skill": true, "SlashCommand": true, "ExitPlanMode": true}

// ruleForm is Tool or Tool(specifier); a tool name is letters, digits,
// '_', '-', '.' and '*' (MCP server and tool names, mcp__server__*).
var ruleForm = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.*-]*)(?:\((.*)\))?$`)

// Translate translates the rules of one settings file (source names it in
// warnings and in the rules' reasons).
func Translate(r Rules, source string, env Env) Translation {
	var t Translation
	for _, l := range []struct {
		action string
		list   []string
	}{{"deny", r.Deny}, {"ask", r.Ask}, {"allow", r.Allow}} {
		for _, s := range l.list {
			t.add(l.action, s, source, env)
		}
	}
	t.dropCovered()
	return t
}

// add translates one rule.
func (t *Translation) add(action, s, source string, env Env) {
	warn := func(format string, args ...any) {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s: permissions.%s rule %q: ", source, action, clip(s))+fmt.Sprintf(format, args...))
	}
	m := ruleForm.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		warn("not a rule rein knows (Tool or Tool(specifier)); ignored")
		return
	}
	name, spec, hasSpec := m[1], m[2], strings.HasSuffix(strings.TrimSpace(s), ")")
	reason := fmt.Sprintf("%s denies it (%s)", source, clip(s))
	if action != "deny" {
		reason = fmt.Sprintf("%s: %s (%s)", source, action, clip(s))
	}
	if strings.HasPrefix(name, "mcp__") {
		t.addMCP(action, name, hasSpec, reason, warn)
		return
	}
	if noCounterpart[name] {
		warn("rein has no %s tool; the rule decides nothing", name)
		return
	}
	tools, known := toolNames[name]
	if !known {
		warn("rein knows no tool %q; ignored", name)
		return
	}
	if !hasSpec || strings.TrimSpace(spec) == "*" {
		t.addTools(action, tools, reason)
		return
	}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		warn("empty specifier; ignored")
		return
	}
	switch name {
	case "Bash":
		t.addBash(action, spec, reason, warn)
	case "Read", "Edit", "MultiEdit", "Write":
		access := "write"
		if name == "Read" {
			access = "read"
		}
		t.addPath(action, access, spec, reason, env, warn)
	case "WebFetch":
		t.addFetch(action, spec, reason, warn)
	default:
		warn("rein does not read a specifier for %s; ignored", name)
	}
}

// config is the policy table a rule of this action lands in.
func (t *Translation) config(action string) *policy.Config {
	if action == "allow" {
		return &t.Allow
	}
	return &t.Tighten
}

func (t *Translation) addTools(action string, tools []string, reason string) {
	c := t.config(action)
	for _, n := range tools {
		c.Tools = append(c.Tools, policy.ToolRule{Name: n, Action: action, Reason: reason})
	}
}

// addMCP translates mcp__server__tool (one tool), mcp__server and
// mcp__server__* (every tool of the server) into rein's server__tool.
func (t *Translation) addMCP(action, name string, hasSpec bool, reason string, warn func(string, ...any)) {
	if hasSpec {
		warn("MCP tool rules take no specifier; ignored")
		return
	}
	rein, ok := ReinToolName(name)
	if !ok {
		warn("not an MCP rule rein can read (mcp__server or mcp__server__tool); ignored")
		return
	}
	t.addTools(action, []string{rein}, reason)
}

// mcpName is Claude Code's spelling of an MCP tool or server.
var mcpName = regexp.MustCompile(`^mcp__([A-Za-z0-9_-]+?)(?:__([A-Za-z0-9_.*-]+))?$`)

// ReinToolName returns rein's name (or glob) for Claude Code's spelling
// of an MCP tool: mcp__github__create_issue is github__create_issue,
// mcp__github and mcp__github__* are github__*. Names not in that form
// return false.
func ReinToolName(name string) (string, bool) {
	m := mcpName.FindStringSubmatch(name)
	if m == nil || strings.Contains(m[1], "__") {
		return "", false
	}
	if m[2] == "" {
		return m[1] + "__*", true
	}
	return m[1] + "__" + m[2], true
}

// addFetch translates WebFetch(domain:host) into a [network] host rule.
func (t *Translation) addFetch(action, spec, reason string, warn func(string, ...any)) {
	host, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		warn("rein reads only WebFetch(domain:HOST); ignored")
		return
	}
	host = strings.TrimSpace(host)
	if err := netrules.Validate(host); err != nil {
		warn("%v; ignored", strings.TrimPrefix(err.Error(), netrules.ErrInvalidRule.Error()+": "))
		return
	}
	switch action {
	case "allow":
		t.NetAllow = append(t.NetAllow, host)
	case "deny":
		t.NetDeny = append(t.NetDeny, host)
	default:
		// Host rules only allow or deny; asking about one host is asking
		// about every fetch, which is broader than the rule.
		warn("rein cannot ask about one host; applied as: web_fetch asks for every host")
		t.addTools(action, []string{"web_fetch"}, reason)
	}
}
