package skill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// manifest is rein's skill.json:
//
//	{"name": "…", "description": "…", "system_prompt_file": "prompt.md",
//	 "context_file": "context.json", "allowed_tools": ["read_file"],
//	 "mcp_servers": {"NAME": {"command": "…", "args": […]}}}
//
// name and system_prompt_file are required; description is required too,
// since it is all the model sees of the skill before loading it. Paths are
// relative to the skill folder and may not leave it. mcp_servers entries
// take the .mcp.json shape (command/args/env/cwd or type/url/headers);
// they are checked here only for shape, and fully by mcp.ParseMCPJSON when
// the wiring starts them. Unknown keys are errors: the format is rein's
// own, and a misspelt key silently ignored is a bug nobody sees.
type manifest struct {
	Name             string                     `json:"name"`
	Description      string                     `json:"description"`
	SystemPromptFile string                     `json:"system_prompt_file"`
	ContextFile      string                     `json:"context_file"`
	AllowedTools     []string                   `json:"allowed_tools"`
	MCPServers       map[string]json.RawMessage `json:"mcp_servers"`
	License          string                     `json:"license"`
	Metadata         map[string]string          `json:"metadata"`
}

// parseManifest decodes and checks skill.json.
func parseManifest(data []byte) (manifest, *fieldProblem) {
	var m manifest
	if !utf8.Valid(data) {
		return m, &fieldProblem{"", "is not UTF-8 text"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, manifestDecodeProblem(data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return m, &fieldProblem{"", "has text after the JSON object; a skill.json holds one object"}
	}
	if p := checkCommon(m.Name, m.Description); p != nil {
		return m, p
	}
	if m.SystemPromptFile == "" {
		return m, &fieldProblem{"system_prompt_file", "is missing; name the Markdown file holding the skill's instructions"}
	}
	for _, f := range [][2]string{{"system_prompt_file", m.SystemPromptFile}, {"context_file", m.ContextFile}} {
		if f[1] != "" && !localPath(f[1]) {
			return m, &fieldProblem{f[0], fmt.Sprintf("%q must be a path inside the skill folder (relative, no \"..\")", clipLine(f[1], 120))}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.MCPServers)) {
		raw := m.MCPServers[name]
		if msg := serverNameProblem(name); msg != "" {
			return m, &fieldProblem{"mcp_servers." + clipLine(name, 40), msg}
		}
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
			return m, &fieldProblem{"mcp_servers." + name, "must be an object in the .mcp.json shape ({\"command\": …} or {\"url\": …})"}
		}
	}
	for _, t := range m.AllowedTools {
		if strings.TrimSpace(t) == "" {
			return m, &fieldProblem{"allowed_tools", "has an empty entry"}
		}
	}
	return m, nil
}

// serverNameProblem applies the mcp package's server-name rule (letters,
// digits, '-' and single '_', at most 32 characters), restated here so
// that this package need not import mcp.
func serverNameProblem(name string) string {
	if name == "" || len(name) > 32 || strings.Contains(name, "__") || name[0] == '_' || name[len(name)-1] == '_' {
		return "a server name is 1-32 letters, digits, '-' and single '_' (not \"__\", not at either end)"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return "a server name is 1-32 letters, digits, '-' and single '_' (not \"__\", not at either end)"
		}
	}
	return ""
}

// localPath reports whether p is a relative path that stays inside the
// folder it is relative to, in slash or OS spelling.
func localPath(p string) bool {
	return !strings.ContainsRune(p, 0) && filepath.IsLocal(filepath.FromSlash(p)) && !strings.HasPrefix(p, "/")
}

// manifestDecodeProblem words a JSON decoding error, naming the field
// when the decoder knows it.
func manifestDecodeProblem(data []byte, err error) *fieldProblem {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &fieldProblem{clipLine(te.Field, 80), fmt.Sprintf("has a JSON %s where %s was expected", te.Value, jsonKind(te.Field))}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return &fieldProblem{"", fmt.Sprintf("is not valid JSON (line %d: %v)", line, se)}
	}
	if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &fieldProblem{clipLine(strings.Trim(msg, `"`), 80), "is not a skill.json field (fields: name, description, system_prompt_file, context_file, allowed_tools, mcp_servers, license, metadata)"}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &fieldProblem{"", "is empty or ends early; it must hold one JSON object"}
	}
	return &fieldProblem{"", "is not a valid skill.json: " + clipLine(err.Error(), 200)}
}

// jsonKind names the JSON type a manifest field wants.
func jsonKind(field string) string {
	switch {
	case field == "allowed_tools":
		return "an array of strings"
	case field == "mcp_servers", strings.HasPrefix(field, "mcp_servers."):
		return "an object of server objects"
	case field == "metadata":
		return "an object of strings"
	}
	return "a string"
}
