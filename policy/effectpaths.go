package policy

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinharness/rein/tool"
)

// declaredPaths returns the paths a call touches according to its tool's
// Effects.Paths (nil when the tool declares none). A failing or panicking
// extractor is an error: the call's files are then unknown, and the
// caller makes it ask rather than let it pass unchecked.
func declaredPaths(spec tool.Spec, args json.RawMessage) (paths []string, err error) {
	if spec.Effects.Paths == nil {
		return nil, nil
	}
	defer func() {
		if v := recover(); v != nil {
			paths, err = nil, fmt.Errorf("the tool's path extraction failed (%v)", v)
		}
	}()
	paths, err = spec.Effects.Paths(args)
	if err != nil {
		return nil, fmt.Errorf("%s", firstLine(err.Error()))
	}
	return paths, nil
}

// GitControlPaths are the built-in path rules that make writing git's
// hooks and its config ask under every preset: both let a change run code
// later, outside any tool call the policy sees (a hook runs at the next
// commit; core.hooksPath, core.fsmonitor, core.sshCommand or an alias in
// .git/config run at the next git command). Nested repositories count too.
// Path rules combine strictest-first, so a user's allow rule does not lift
// them; a user who wants such writes approves them when asked.
func GitControlPaths() []PathRule {
	const reason = "writing git hooks or git's config lets code run later, outside the policy's view"
	return []PathRule{
		{Pattern: "**/.git/hooks", Access: "write", Action: "ask", Reason: reason},
		{Pattern: "**/.git/hooks/**", Access: "write", Action: "ask", Reason: reason},
		{Pattern: "**/.git/config", Access: "write", Action: "ask", Reason: reason},
		{Pattern: "**/.git/config.worktree", Access: "write", Action: "ask", Reason: reason},
		{Pattern: "**/.git/commondir", Access: "write", Action: "ask", Reason: reason},
	}
}

// protectedNames are the workspace entries, besides git's hooks and
// config, whose contents decide what runs later outside the sandbox or
// how rein itself behaves: rein's project configuration, the MCP servers
// and agent definitions other clients read, direnv's .envrc and the
// editor tasks of .vscode. Writes to them (or anything inside them) ask
// under every preset, whichever path leads there.
var protectedNames = []string{".rein", ".mcp.json", ".claude", ".agents", ".envrc", ".vscode"}

// ProtectedNames returns the workspace entries whose writes ask under
// every preset (see protectedNames): a copy, so no importer can rewrite
// the list the engine protects.
func ProtectedNames() []string { return slices.Clone(protectedNames) }

// ProtectedPaths are the built-in path rules for GitControlPaths and
// ProtectedNames.
func ProtectedPaths() []PathRule {
	rules := GitControlPaths()
	for _, name := range protectedNames {
		rules = append(rules, protectedRules(name, "writing "+name+" changes what rein or other tools run later")...)
	}
	return rules
}

// protectedRules are the ask-on-write rules for one workspace-relative
// path: the entry itself and everything under it.
func protectedRules(rel, reason string) []PathRule {
	rel = strings.Trim(path.Clean(filepath.ToSlash(rel)), "/")
	if rel == "" || rel == "." || strings.HasPrefix(rel, "../") || rel == ".." {
		return nil
	}
	pattern := escapeGlob(rel)
	return []PathRule{
		{Pattern: pattern, Access: "write", Action: "ask", Reason: reason},
		{Pattern: pattern + "/**", Access: "write", Action: "ask", Reason: reason},
	}
}

// escapeGlob quotes the glob metacharacters of a literal path.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
