package cli

import (
	"fmt"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/termsafe"
)

// unknownSlash reports, and says so on stderr, whether line is a slash
// command chat does not know: a lone /word, or a /word with arguments
// that is a plausible typo of a command (/mdoel qwen). Both get the
// closest command as a suggestion (/hlep: did you mean /help?). Any
// other line starting with "/" (/etc/hosts is missing, why?) is a
// message. It runs after the known commands were matched.
func (s *chatSession) unknownSlash(line string) bool {
	if !strings.HasPrefix(line, "/") {
		return false
	}
	name, args := splitSlash(line)
	if name == "" || strings.Contains(name, "/") {
		return false
	}
	best := config.Closest(strings.ToLower(name), s.slashNames())
	if args != "" && best == "" {
		return false
	}
	hint := ""
	if best != "" {
		hint = fmt.Sprintf(" (did you mean /%s?)", best)
	}
	fmt.Fprintf(s.app.Stderr, "rein: unknown command /%s; /help lists the commands%s\n", termsafe.Line(name), hint)
	return true
}

// slashNames are the names the slash commands answer to, without the
// slash: the built-in ones, the custom commands and the skills.
func (s *chatSession) slashNames() []string {
	names := []string{"quit"}
	for _, c := range builtinCommands {
		names = append(names, strings.TrimPrefix(c, "/"))
	}
	names = append(names, s.commands.Names()...)
	if s.skills != nil {
		names = append(names, s.skills.Names()...)
	}
	return names
}
