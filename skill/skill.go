package skill

import (
	"encoding/json"
	"fmt"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/tool"
)

// Limits on what a skill folder may hold. They bound the work discovery
// does on a folder a cloned repository controls: a hostile one can make
// rein read at most a few hundred KiB per skill and walk a bounded tree.
const (
	// MaxSkillFileBytes bounds SKILL.md, skill.json's system prompt file
	// and any file read whole through ReadFile.
	MaxSkillFileBytes = 256 << 10
	// MaxFrontMatterBytes bounds the YAML front matter of SKILL.md.
	MaxFrontMatterBytes = 16 << 10
	// MaxManifestBytes bounds skill.json.
	MaxManifestBytes = 64 << 10
	// MaxContextFileBytes bounds what is read of a manifest's context
	// file; activation has its own, smaller cap (MaxContextSectionBytes).
	MaxContextFileBytes = 256 << 10
	// MaxFiles bounds the listing of a skill's files.
	MaxFiles = 1000
	// MaxDepth bounds how deep the listing descends below the skill
	// folder (a file at depth 1 is directly inside it).
	MaxDepth = 8
	// MaxSkillsPerSource bounds how many entries of one skills directory
	// discovery looks at.
	MaxSkillsPerSource = 1000
	// MaxNameLen and MaxDescriptionLen are the Agent Skills limits.
	MaxNameLen        = 64
	MaxDescriptionLen = 1024
	// MaxCompatibilityLen is the Agent Skills limit on "compatibility".
	MaxCompatibilityLen = 500
)

// File names that make a folder a skill.
const (
	SkillFile    = "SKILL.md"
	ManifestFile = "skill.json"
)

// Format says how a skill is defined.
type Format int

// Formats.
const (
	// FormatAgentSkill is a folder with SKILL.md (the Agent Skills
	// standard, https://agentskills.io/specification).
	FormatAgentSkill Format = iota
	// FormatManifest is a folder with rein's skill.json.
	FormatManifest
)

// String names the format as rein skills list shows it.
func (f Format) String() string {
	if f == FormatManifest {
		return ManifestFile
	}
	return SkillFile
}

// Layer says who controls a skill's folder. Project skills come from the
// workspace — a cloned repository chose them — so they are untrusted input:
// the wiring may show them, but must not let them widen tools or policy.
type Layer int

// Layers, in shadowing order.
const (
	LayerUser Layer = iota
	LayerProject
)

// String returns "user" or "project".
func (l Layer) String() string {
	if l == LayerProject {
		return "project"
	}
	return "user"
}

// Skill is one loaded skill. Discovery fills every field but Tools; a
// program embedding rein may build a Skill itself (with New) and attach Go
// tools it owns.
//
// A Skill is not modified after loading and is safe to share between
// goroutines.
type Skill struct {
	Name        string
	Description string
	// License, Compatibility and Metadata are the optional Agent Skills
	// fields, kept for listing.
	License       string
	Compatibility string
	Metadata      map[string]string
	// AllowedTools is the skill's allowed-tools list; nil when the skill
	// declares none. In rein it can only narrow the tool set (see Narrow).
	AllowedTools []string

	Format Format
	Layer  Layer
	// Dir is the skill's folder; File the SKILL.md or skill.json in it.
	Dir  string
	File string
	// Body is SKILL.md's Markdown after the front matter, or the text of
	// the manifest's system prompt file.
	Body string
	// Context is the manifest's context file (JSON, compacted); nil when
	// there is none.
	Context json.RawMessage
	// MCPServers holds the manifest's "mcp_servers" object: server name to
	// its configuration in the .mcp.json shape, unparsed (see MCPJSON).
	MCPServers map[string]json.RawMessage
	// Files lists the skill folder's files (SKILL.md and skill.json too),
	// sorted; FilesTruncated says MaxFiles or MaxDepth cut the listing.
	Files          []File
	FilesTruncated bool

	// Tools are Go tools the skill owns, exposed as <skill>__<tool> while
	// it is active. Discovery never sets them (a folder cannot hold Go
	// code); an embedding program does.
	Tools []tool.Tool

	// confine, when set, is the directory every open of the skill's files
	// must stay inside (the workspace, for project skills); dirInConfine
	// is Dir relative to it.
	confine      string
	dirInConfine string
	// bodyFile is the file holding Body, relative to Dir, and bodyLine
	// the line of that file where Body starts, so a cut body can say
	// where to read on.
	bodyFile string
	bodyLine int
}

// File is one file of a skill: its slash-separated path relative to the
// skill folder and its size in bytes.
type File struct {
	Path string
	Size int64
}

// MCPJSON returns the skill's MCP servers as a .mcp.json document
// ({"mcpServers": {…}}), ready for mcp.ParseMCPJSON, or nil when the skill
// binds none. The skill package does not parse server configurations
// itself so that it does not depend on the mcp package (which imports the
// agent in its tests).
func (s *Skill) MCPJSON() []byte {
	if len(s.MCPServers) == 0 {
		return nil
	}
	b, err := json.Marshal(map[string]any{"mcpServers": s.MCPServers})
	if err != nil {
		return nil // unreachable: the values were valid JSON when loaded
	}
	return b
}

// Problem is something wrong with a skill folder. Discovery never stops at
// one: a malformed skill is skipped with exactly one Problem (Skipped set),
// and a skill that loads with a flaw (a file left out of its listing, a
// shadowed name) gets a warning.
type Problem struct {
	// Path is the file at fault (or the folder, when no file is).
	Path string
	// Field is the front-matter key or manifest field at fault; "" for
	// the file as a whole.
	Field string
	// Message says what is wrong and how to fix it.
	Message string
	// Skipped says the skill was not loaded.
	Skipped bool
}

// String renders the problem on one line, with control characters
// escaped: the path and message carry text a repository chose.
func (p Problem) String() string {
	s := p.Path
	if p.Field != "" {
		s += ": " + p.Field
	}
	s += ": " + p.Message
	if p.Skipped {
		s += " (skill skipped)"
	}
	return termsafe.Line(s)
}

// New returns a skill defined by a program rather than a folder: a name
// and description checked like a SKILL.md's, a body (its instructions) and
// Go tools it owns. Such a skill has no files and no Dir.
func New(name, description, body string, tools ...tool.Tool) (*Skill, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if msg := descriptionProblem(description); msg != "" {
		return nil, fmt.Errorf("skill %q: description %s", name, msg)
	}
	return &Skill{Name: name, Description: description, Body: body, Tools: tools, Layer: LayerUser}, nil
}
