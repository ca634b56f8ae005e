package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

type ruleKind int

const (
	toolRule ruleKind = iota
	commandRule
	pathRule
)

// rule is a compiled rule of one layer.
type rule struct {
	kind   ruleKind
	layer  LayerKind
	source string
	index  int
	action Action
	reason string

	name    string   // tool rules
	prefix  []string // command rules
	exact   bool
	pattern string // path rules
	access  string
}

func compileTool(r ToolRule) *rule {
	a, _ := ParseAction(r.Action)
	return &rule{kind: toolRule, action: a, reason: r.Reason, name: r.Name}
}

func compileCommand(r CommandRule) *rule {
	a, _ := ParseAction(r.Action)
	return &rule{kind: commandRule, action: a, reason: r.Reason, prefix: r.Prefix, exact: r.Exact}
}

func compilePath(r PathRule) *rule {
	a, _ := ParseAction(r.Action)
	access := r.Access
	if access == "" {
		access = "any"
	}
	return &rule{kind: pathRule, action: a, reason: r.Reason, pattern: r.Pattern, access: access}
}

// target describes what the rule matches.
func (r *rule) target() string {
	switch r.kind {
	case toolRule:
		return "tool " + r.name
	case commandRule:
		s := strings.Join(r.prefix, " ")
		if r.exact {
			s += " (exactly)"
		}
		return s
	default:
		return "path " + r.pattern + " (" + r.access + ")"
	}
}

// id is the Decision.Rule of a decision this rule made.
func (r *rule) id() string {
	return "rule:" + r.layer.String() + ":" + r.action.String() + " " + r.target()
}

// where names the rule in its configuration, for warnings.
func (r *rule) where() string {
	table := [...]string{"tools", "commands", "paths"}[r.kind]
	return r.source + ": policy." + table + "[" + strconv.Itoa(r.index) + "] (" + r.action.String() + " " + r.target() + ")"
}

func (r *rule) verdict(fallback string) verdict {
	reason := r.reason
	if reason == "" {
		reason = fallback
	}
	return verdict{action: r.action, rule: r.id(), reason: reason, explicit: true}
}

func (r *rule) matchesTool(name string) bool {
	ok, err := doublestar.Match(r.name, name)
	return err == nil && ok
}

// toolSpecificity ranks tool rules: an exact name beats any glob, a glob
// with more literal characters beats one with fewer.
func (r *rule) toolSpecificity() int {
	if !hasGlob(r.name) {
		return 1 << 20
	}
	return len(r.name) - strings.Count(r.name, "*") - strings.Count(r.name, "?")
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[{\\") }

// commandSpecificity ranks command rules: a longer prefix beats a
// shorter one; an exact rule beats a prefix rule of the same length.
func (r *rule) commandSpecificity() int {
	n := 2 * len(r.prefix)
	if r.exact {
		n++
	}
	return n
}

// matchesPath reports whether a workspace-relative path matches, for a
// call that reads and/or writes it.
func (r *rule) matchesPath(rel string, read, write bool) bool {
	switch r.access {
	case "read":
		if !read {
			return false
		}
	case "write":
		if !write {
			return false
		}
	}
	ok, err := doublestar.Match(r.pattern, rel)
	return err == nil && ok
}

// fingerprint identifies a rule approved for one workspace (a canonical
// path): the same rule text in another checkout does not carry the
// approval.
func (r *rule) fingerprint(workspace string) string {
	var b strings.Builder
	b.WriteString(workspace)
	b.WriteByte(0)
	switch r.kind {
	case toolRule:
		b.WriteString("tools\x00" + r.name)
	case commandRule:
		b.WriteString("commands\x00" + strconv.Quote(strings.Join(r.prefix, "\x00")) + "\x00" + strconv.FormatBool(r.exact))
	default:
		b.WriteString("paths\x00" + r.pattern + "\x00" + r.access)
	}
	b.WriteString("\x00" + r.action.String())
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Fingerprint identifies this rule approved for a workspace. Match
// examples and reasons are not part of it: they do not change what the
// rule allows.
func (r ToolRule) Fingerprint(workspace string) string {
	return compileTool(r).fingerprint(CanonicalWorkspace(workspace))
}

// Fingerprint identifies this rule approved for a workspace.
func (r CommandRule) Fingerprint(workspace string) string {
	return compileCommand(r).fingerprint(CanonicalWorkspace(workspace))
}

// Fingerprint identifies this rule approved for a workspace.
func (r PathRule) Fingerprint(workspace string) string {
	return compilePath(r).fingerprint(CanonicalWorkspace(workspace))
}

// CanonicalWorkspace makes one workspace give one key however it is
// spelt: absolute, cleaned, symlinks resolved where possible.
func CanonicalWorkspace(ws string) string {
	if ws == "" {
		return ""
	}
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	return filepath.Clean(ws)
}

// bestTool returns the most specific tool rule matching name; on a tie
// the strictest wins.
func bestTool(rules []*rule, name string) *rule {
	var best *rule
	for _, r := range rules {
		if r.kind != toolRule || !r.matchesTool(name) {
			continue
		}
		if best == nil || r.toolSpecificity() > best.toolSpecificity() ||
			r.toolSpecificity() == best.toolSpecificity() && r.action > best.action {
			best = r
		}
	}
	return best
}

// bestCommand returns the most specific command rule matching argv; on a
// tie the strictest wins.
func bestCommand(rules []*rule, argv []string) *rule {
	var best *rule
	for _, r := range rules {
		if r.kind != commandRule || !prefixMatches(r.prefix, r.exact, argv) {
			continue
		}
		if best == nil || r.commandSpecificity() > best.commandSpecificity() ||
			r.commandSpecificity() == best.commandSpecificity() && r.action > best.action {
			best = r
		}
	}
	return best
}

// strictest returns the strictest rule of a kind accepted by match.
func strictest(rules []*rule, kind ruleKind, match func(*rule) bool) *rule {
	var best *rule
	for _, r := range rules {
		if r.kind == kind && match(r) && (best == nil || r.action > best.action) {
			best = r
		}
	}
	return best
}
