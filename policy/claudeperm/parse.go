// Package claudeperm reads the "permissions" object of Claude Code's
// settings files (.claude/settings.json, .claude/settings.local.json,
// ~/.claude/settings.json) and translates its rules into rein's policy
// rules and [network] host rules.
//
// It lives beside policy, not in config or hooks: what it produces is
// policy.Config and netrules patterns, and which layer they land in (and
// whether a project's allow rules apply at all) is the caller's decision,
// made with the same trust as the project's hooks. Reading the files
// stays with the caller, which already reads them for hooks through the
// workspace's os.Root.
package claudeperm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Limits on what one settings file may hold. A repository writes these
// files; rein reads them on every start.
const (
	// MaxRules bounds the rules of one list (allow, ask or deny).
	MaxRules = 4096
	// MaxRuleLen bounds one rule, in bytes.
	MaxRuleLen = 4096
	// maxShown bounds a rule quoted in a warning.
	maxShown = 120
)

// Rules are the three lists of a settings file's "permissions", as written.
type Rules struct {
	Allow []string
	Ask   []string
	Deny  []string
}

// Empty reports whether there is no rule at all.
func (r Rules) Empty() bool { return len(r.Allow)+len(r.Ask)+len(r.Deny) == 0 }

// Parse reads the "permissions" object of a settings file's contents.
// A file that is not a JSON object is an error (the caller warns and
// goes on: the file belongs to another tool). Inside it, whatever is not
// a list of strings is left out with a warning naming source: a rule
// rein cannot read must never vanish in silence.
func Parse(data []byte, source string) (Rules, []string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Rules{}, nil, fmt.Errorf("%s: not a JSON object: %s", source, clipErr(err))
	}
	if top == nil {
		return Rules{}, nil, fmt.Errorf("%s: not a JSON object", source)
	}
	raw, ok := top["permissions"]
	if !ok || isNull(raw) {
		return Rules{}, nil, nil
	}
	var perms map[string]json.RawMessage
	if err := json.Unmarshal(raw, &perms); err != nil || perms == nil {
		return Rules{}, []string{source + `: "permissions" is not an object; ignored`}, nil
	}
	var r Rules
	var warnings []string
	for _, l := range []struct {
		key  string
		list *[]string
	}{{"allow", &r.Allow}, {"ask", &r.Ask}, {"deny", &r.Deny}} {
		v, ok := perms[l.key]
		if !ok || isNull(v) {
			continue
		}
		rules, ws := stringList(v, source, "permissions."+l.key)
		*l.list = rules
		warnings = append(warnings, ws...)
	}
	return r, warnings, nil
}

// stringList decodes a JSON array of strings, leaving out (with a
// warning) every element that is not a string or is too long, and
// everything past MaxRules.
func stringList(v json.RawMessage, source, where string) ([]string, []string) {
	var elems []json.RawMessage
	if err := json.Unmarshal(v, &elems); err != nil {
		return nil, []string{fmt.Sprintf("%s: %s is not a list of rules; ignored", source, where)}
	}
	var out, warnings []string
	if len(elems) > MaxRules {
		warnings = append(warnings, fmt.Sprintf("%s: %s has %d rules; only the first %d are read", source, where, len(elems), MaxRules))
		elems = elems[:MaxRules]
	}
	for i, e := range elems {
		var s string
		if err := json.Unmarshal(e, &s); err != nil || isNull(e) {
			warnings = append(warnings, fmt.Sprintf("%s: %s[%d] is not a string; ignored", source, where, i))
			continue
		}
		if len(s) > MaxRuleLen {
			warnings = append(warnings, fmt.Sprintf("%s: %s[%d] is %d bytes long, more than a rule may be (%d); ignored", source, where, i, len(s), MaxRuleLen))
			continue
		}
		out = append(out, s)
	}
	return out, warnings
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// clip shortens s for a message, on a rune boundary; the caller escapes
// control characters where it prints.
func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func clipErr(err error) string { return clip(err.Error()) }
