package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MaxSettingsBytes bounds a settings file rein reads hooks from.
const MaxSettingsBytes = 4 << 20

// ParseSettings reads the "hooks" object of a Claude Code settings file
// (.claude/settings.json, .claude/settings.local.json):
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash",
//	    "hooks": [{"type": "command", "command": "check.sh", "timeout": 10}]}]}}
//
// Everything else in the file (permissions, env, …) is Claude Code's and
// ignored. A file that is not a JSON object is an error; inside "hooks",
// anything rein cannot run — an unknown event, a malformed group, a hook
// type other than command — is left out with a warning, so a settings
// file written for a newer Claude Code still gives the hooks rein knows.
func ParseSettings(data []byte, layer Layer, source string) (Config, []string, error) {
	if len(data) > MaxSettingsBytes {
		return Config{}, nil, fmt.Errorf("%s: %d bytes is more than a settings file may have (%d)", source, len(data), MaxSettingsBytes)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Config{}, nil, fmt.Errorf("%s: not a JSON object: %v", source, clipErr(err))
	}
	if top == nil {
		return Config{}, nil, fmt.Errorf("%s: not a JSON object", source)
	}
	raw, ok := top["hooks"]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return Config{}, nil, nil
	}
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil || events == nil {
		return Config{}, []string{source + `: "hooks" is not an object of events; ignored`}, nil
	}
	var warnings []string
	specs := map[string][]GroupSpec{}
	for name, v := range events {
		var groups []json.RawMessage
		if err := json.Unmarshal(v, &groups); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: hooks.%s is not an array of matcher groups; ignored", source, clip(name)))
			continue
		}
		for i, g := range groups {
			spec, err := decodeGroup(g)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: hooks.%s[%d]: %v; ignored", source, clip(name), i, err))
				// Keep the indexes of later groups meaningful.
				spec = GroupSpec{}
			}
			specs[name] = append(specs[name], spec)
		}
	}
	cfg, ws := Build(layer, source, specs)
	return cfg, append(warnings, ws...), nil
}

// decodeGroup decodes one matcher group. Unknown fields (Claude Code's
// "if", "async", "statusMessage", …) are ignored; wrong types are an error.
func decodeGroup(data json.RawMessage) (GroupSpec, error) {
	var g struct {
		Matcher *string           `json:"matcher"`
		Hooks   []json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return GroupSpec{}, fmt.Errorf("not a matcher group: %s", clipErr(err))
	}
	var spec GroupSpec
	if g.Matcher != nil {
		spec.Matcher = *g.Matcher
	}
	for j, h := range g.Hooks {
		var hs HookSpec
		if err := json.Unmarshal(h, &hs); err != nil {
			return GroupSpec{}, fmt.Errorf("hooks[%d] is not a hook: %s", j, clipErr(err))
		}
		if hs.Type == "" {
			// Claude Code requires the type; an untyped entry is not
			// guessed to be a command.
			hs.Type = "(none)"
		}
		spec.Hooks = append(spec.Hooks, hs)
	}
	return spec, nil
}
