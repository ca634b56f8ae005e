package skill

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/tool"
)

// ToolName is the name of the tool that loads a skill.
const ToolName = "skill"

// DefaultToolOutputBytes caps the skill tool's result, below the harness's
// result cap so the tool's own notice about the rest survives.
const DefaultToolOutputBytes = 48 << 10

// ToolOptions configures the skill tool.
type ToolOptions struct {
	// OnLoad, when set, runs after the model loads a skill and before the
	// result is returned (the wiring activates the skill's tools and MCP
	// servers there). An error becomes the tool's is_error result.
	OnLoad func(ctx context.Context, s *Skill) error
	// MaxBytes caps the result (DefaultToolOutputBytes when zero).
	MaxBytes int
}

// ToolArgs are the skill tool's arguments.
type ToolArgs struct {
	Name string `json:"name" jsonschema:"the skill's name, as listed under # Skills in the system prompt"`
}

// NewTool returns the skill tool over c: given a skill's name it returns
// the skill's instructions (SKILL.md's body or the manifest's system
// prompt file) and a listing of its files with their sizes, which the
// model then reads with read_file through skill://<name>/<path> paths.
// It only reads; scripts of the skill run through run_command under the
// policy like any command.
func NewTool(c *Catalog, opts ToolOptions) tool.Tool {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultToolOutputBytes
	}
	desc := "Load a skill: returns its instructions and the list of its files. " +
		"The skills available are listed in the system prompt under \"# Skills\"; call this before a task a skill covers. " +
		"Read the skill's files with read_file, using the paths this tool gives (skill://NAME/PATH)."
	yes, no := true, false
	return tool.Func(ToolName, desc, func(ctx context.Context, a ToolArgs) (*tool.Result, error) {
		s, ok := c.Get(a.Name)
		if !ok {
			return unknownSkill(a.Name, c.Names()), nil
		}
		if opts.OnLoad != nil {
			if err := opts.OnLoad(ctx, s); err != nil {
				return tool.ErrorResult("skill %q could not be loaded: %v", s.Name, err), nil
			}
		}
		return tool.TextResult(RenderLoad(s, opts.MaxBytes)), nil
	},
		tool.WithAnnotations(tool.Annotations{Title: "Load skill", ReadOnlyHint: &yes, DestructiveHint: &no, IdempotentHint: &yes, OpenWorldHint: &no}),
		tool.WithEffects(tool.Effects{ReadsFiles: true}),
	)
}

// unknownSkill lists the available names for a name the catalog lacks.
func unknownSkill(name string, names []string) *tool.Result {
	if len(names) == 0 {
		return tool.ErrorResult("unknown skill %q: no skills are installed", clipLine(name, MaxNameLen))
	}
	r := tool.UnknownTool(name, names)
	r.Content = strings.Replace(r.Content, "unknown tool", "unknown skill", 1)
	r.Content = strings.Replace(r.Content, "available tools", "available skills", 1)
	r.Content = strings.Replace(r.Content, "no tools are available", "no skills are installed", 1)
	return r
}

// RenderLoad renders what the skill tool returns for s, within max bytes:
// a header, the instructions and the file listing. When the instructions
// do not fit, they are cut at a line and the model is told where to read
// on; the file listing is shortened before the instructions are.
func RenderLoad(s *Skill, max int) string {
	if max <= 0 {
		max = DefaultToolOutputBytes
	}
	var head strings.Builder
	fmt.Fprintf(&head, "# Skill: %s\n\n", s.Name)
	if s.Dir != "" {
		fmt.Fprintf(&head, "Source: %s layer, folder %s\n", s.Layer, termsafe.Line(s.Dir))
		fmt.Fprintf(&head, "Read its files with read_file, path %s; run its scripts with run_command from that folder.\n\n", Path(s.Name, "<file>"))
	}
	files := renderFiles(s, max/4)
	body := termsafe.Text(strings.TrimSpace(s.Body))
	room := max - head.Len() - len(files) - 2
	if len(body) > room {
		body = cutBody(s, body, room)
	}
	return head.String() + body + "\n\n" + files
}

// cutBody keeps the body's first lines within room bytes and says how to
// read the rest.
func cutBody(s *Skill, body string, room int) string {
	if s.bodyFile == "" {
		note := "\n\n[instructions cut here for length]"
		keep := max(room-len(note), 0)
		return body[:cutAt(body, keep)] + note
	}
	note := fmt.Sprintf("\n\n[instructions cut here for length; read the rest with read_file at %s, offset %%d]", Path(s.Name, s.bodyFile))
	keep := max(room-len(note)-8, 0)
	cut := cutAt(body, keep)
	line := s.bodyLine + strings.Count(body[:cut], "\n") + 1
	return body[:cut] + fmt.Sprintf(note, line)
}

// cutAt returns where to cut body to keep at most keep bytes: the last
// line end before it, or 0.
func cutAt(body string, keep int) int {
	cut := strings.LastIndexByte(body[:min(keep, len(body))], '\n')
	return max(cut, 0)
}

// renderFiles lists the skill's files, within max bytes.
func renderFiles(s *Skill, max int) string {
	if len(s.Files) == 0 {
		return "This skill has no other files.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Files (%d)\n\n", len(s.Files))
	for i, f := range s.Files {
		line := fmt.Sprintf("- %s (%d bytes)\n", termsafe.Line(f.Path), f.Size)
		if b.Len()+len(line) > max-64 {
			fmt.Fprintf(&b, "- … and %d more files\n", len(s.Files)-i)
			return b.String()
		}
		b.WriteString(line)
	}
	if s.FilesTruncated {
		b.WriteString("- … the folder holds more than is listed here\n")
	}
	return b.String()
}
