package history

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/reinharness/rein/internal/frontmatter"
)

// The files other coding agents' users keep for the whole project, read
// at the workspace root when InstructionSources.Others is set: Gemini
// CLI's GEMINI.md, GitHub Copilot's .github/copilot-instructions.md,
// Cursor's legacy .cursorrules and the .cursor/rules/*.mdc rules that
// apply to every file (see mdcApplies).
const (
	GeminiInstructionsFile  = "GEMINI.md"
	CopilotInstructionsFile = ".github/copilot-instructions.md"
	CursorRulesFile         = ".cursorrules"
	CursorRulesDir          = ".cursor/rules"
)

// MaxCursorRules bounds the .mdc files looked at in .cursor/rules, so a
// repository cannot make a load stat thousands of files.
const MaxCursorRules = 32

// otherFiles returns the other agents' files at the workspace root, in
// the order they are read: GEMINI.md, Copilot's, .cursorrules, then the
// .mdc rules by name. Only GEMINI.md's @path imports are followed (Gemini
// CLI has them; the others have no such syntax, and a stray "@x" in a
// Cursor rule must not pull a file in).
func (l *loader) otherFiles() []source {
	var out []source
	for _, name := range []string{GeminiInstructionsFile, CopilotInstructionsFile, CursorRulesFile} {
		if s, ok := l.workspaceFile(name); ok {
			s.noImports = name != GeminiInstructionsFile
			out = append(out, s)
		}
	}
	for _, name := range l.cursorRules() {
		if s, ok := l.workspaceFile(name); ok {
			s.noImports, s.mdc = true, true
			out = append(out, s)
		}
	}
	return out
}

// cursorRules lists .cursor/rules/*.mdc, sorted, at most MaxCursorRules
// (more are reported). Subdirectories are not searched: Cursor scopes
// those to their own folder.
func (l *loader) cursorRules() []string {
	d, err := l.ws.Open(CursorRulesDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		if l.wsEscape == nil || !errors.Is(err, l.wsEscape) {
			l.errs = append(l.errs, fmt.Errorf("instructions: cannot read %s in the workspace: %w", CursorRulesDir, err))
		} else {
			l.errs = append(l.errs, fmt.Errorf("instructions: refused %s: %w (a symlink points out of %s)", CursorRulesDir, ErrOutsideWorkspace, quoteIfOdd(l.wsPath)))
		}
		return nil
	}
	defer d.Close()
	// A bounded read: a directory of a million entries costs no more.
	entries, _ := d.ReadDir(4 * MaxCursorRules)
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".mdc") && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	if len(names) > MaxCursorRules {
		l.errs = append(l.errs, fmt.Errorf("instructions: only the first %d of the %d rules in %s were considered", MaxCursorRules, len(names), CursorRulesDir))
		names = names[:MaxCursorRules]
	}
	for i, n := range names {
		names[i] = path.Join(CursorRulesDir, n)
	}
	return names
}

// mdcApplies parses a Cursor rule and returns its body when it applies
// to the whole project: alwaysApply: true, or no globs (a rule scoped to
// some files is Cursor's to attach when those are open; rein has no such
// moment). A rule without front matter applies. The front matter is
// scanned line by line, not as YAML: Cursor writes globs unquoted
// (globs: *.ts), which YAML reads as an alias and refuses. A front
// matter that is never closed is an error: the user should learn why
// their rule was left out.
func mdcApplies(doc string) (body string, applies bool, err error) {
	front, b, err := frontmatter.Split([]byte(doc))
	switch {
	case errors.Is(err, frontmatter.ErrNoFrontMatter):
		return string(b), true, nil
	case err != nil:
		return "", false, err
	}
	always, globs := false, false
	inGlobs := false
	for _, line := range strings.Split(string(front), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if inGlobs && strings.HasPrefix(strings.TrimSpace(line), "-") && (line[0] == ' ' || line[0] == '\t' || line[0] == '-') {
			globs = globs || strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "-")) != ""
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		inGlobs = false
		if !ok || key != strings.TrimSpace(key) {
			continue // a continuation or a nested key: not one of ours
		}
		value = strings.Trim(strings.TrimSpace(value), `"'`)
		switch key {
		case "alwaysApply":
			always = strings.EqualFold(value, "true")
		case "globs":
			inGlobs = value == ""
			globs = value != "" && value != "[]" && value != "null" && value != "~"
		}
	}
	if always || !globs {
		return string(b), true, nil
	}
	return "", false, nil
}

// mdcFrontRoom is what a Cursor rule may add to the read beyond the room
// its body has: its front matter, which does not count toward the cap.
const mdcFrontRoom = 4 << 10

// readText reads s for a room of room bytes (one more, to see a cut):
// a Cursor rule is read with room for its front matter and replaced by
// its body, or by "" when it does not apply to the whole project.
func (l *loader) readText(s source, room int) (string, error) {
	if !s.mdc {
		return l.read(s, max(room, 0)+1)
	}
	doc, err := l.read(s, max(room, 0)+1+mdcFrontRoom)
	if err != nil {
		return "", err
	}
	body, applies, err := mdcApplies(doc)
	if err != nil {
		return "", fmt.Errorf("instructions: %s not loaded: %v", s.display, err)
	}
	if !applies {
		return "", nil
	}
	return body, nil
}
