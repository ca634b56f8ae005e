package skill

import (
	"fmt"
	"strings"

	"github.com/reinharness/rein/internal/termsafe"
)

// DefaultDisclosureBytes caps the skills section when the context window
// is unknown.
const DefaultDisclosureBytes = 8 << 10

// DisclosureBudget returns the byte cap of the skills section for a
// context window of contextTokens tokens: 2 % of the window at about four
// bytes per token, or DefaultDisclosureBytes when the window is unknown
// (contextTokens <= 0).
func DisclosureBudget(contextTokens int) int {
	if contextTokens <= 0 {
		return DefaultDisclosureBytes
	}
	return contextTokens * 4 * 2 / 100
}

const disclosureHeader = "# Skills\n\n" +
	"Skills are folders of instructions and files for particular tasks. " +
	"When a task matches a skill's description, call the `skill` tool with its name before you start, " +
	"then follow the instructions it returns.\n\n"

// PromptSection renders the system prompt section that discloses skills:
// each skill's name and description, one line each, in the order given —
// never a body, which the skill tool returns on demand. The section,
// header included, stays within DisclosureBudget(contextTokens) bytes;
// skills that do not fit are left out, and a closing note says how many.
// Descriptions are repository text: whitespace runs become one space and
// control characters are escaped, so one skill cannot forge another line
// or section. It returns "" for no skills.
func PromptSection(skills []*Skill, contextTokens int) string {
	if len(skills) == 0 {
		return ""
	}
	budget := DisclosureBudget(contextTokens)
	var b strings.Builder
	b.WriteString(disclosureHeader)
	listed := 0
	for i, s := range skills {
		line := disclosureLine(s)
		// Reserve room for the note in case later skills are left out.
		reserve := 0
		if i < len(skills)-1 {
			reserve = len(omittedNote(len(skills) - i))
		}
		if b.Len()+len(line)+reserve > budget {
			break
		}
		b.WriteString(line)
		listed++
	}
	if omitted := len(skills) - listed; omitted > 0 {
		b.WriteString(omittedNote(omitted))
	}
	return b.String()
}

func disclosureLine(s *Skill) string {
	desc := strings.Join(strings.Fields(s.Description), " ")
	if desc == "" {
		desc = "(no description)"
	}
	return "- " + s.Name + ": " + termsafe.Line(desc) + "\n"
}

func omittedNote(n int) string {
	word := "skills are"
	if n == 1 {
		word = "skill is"
	}
	return fmt.Sprintf("\n(%d more %s installed but not listed here, for space; calling the skill tool with a name it does not know lists every name.)\n", n, word)
}
