package skill

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
)

// ErrInvalidName reports a skill name the Agent Skills rules reject.
var ErrInvalidName = errors.New("invalid skill name")

// ValidateName checks name against the Agent Skills rules: 1–64
// characters, lowercase ASCII letters, digits and hyphens, no hyphen at
// either end and no two in a row. rein keeps to ASCII (the specification
// also admits other lowercase letters) because the name prefixes tool
// names (<skill>__<tool>) and model APIs accept only ASCII there.
func ValidateName(name string) error {
	if msg := nameProblem(name); msg != "" {
		return fmt.Errorf("%w: %s", ErrInvalidName, msg)
	}
	return nil
}

// nameProblem returns why name is invalid, or "".
func nameProblem(name string) string {
	switch {
	case name == "":
		return "the name is empty; use 1-64 lowercase letters, digits and hyphens"
	case len(name) > MaxNameLen:
		return fmt.Sprintf("%q is %d characters long; the limit is %d", clipLine(name, MaxNameLen), utf8.RuneCountInString(name), MaxNameLen)
	case name[0] == '-' || name[len(name)-1] == '-':
		return fmt.Sprintf("%q starts or ends with a hyphen", clipLine(name, MaxNameLen))
	case strings.Contains(name, "--"):
		return fmt.Sprintf("%q has two hyphens in a row", clipLine(name, MaxNameLen))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return fmt.Sprintf("%q has %q at byte %d; use only lowercase letters a-z, digits and hyphens", clipLine(name, MaxNameLen), name[i:i+1], i)
		}
	}
	return ""
}

// descriptionProblem returns why a description is invalid, or "".
func descriptionProblem(d string) string {
	switch n := utf8.RuneCountInString(d); {
	case strings.TrimSpace(d) == "":
		return "is empty; say what the skill does and when to use it"
	case n > MaxDescriptionLen:
		return fmt.Sprintf("is %d characters long; the limit is %d (move detail into the body)", n, MaxDescriptionLen)
	case !utf8.ValidString(d):
		return "is not valid UTF-8"
	}
	return ""
}

// clipLine makes repository-chosen text safe to quote in a one-line
// message: control characters escaped, at most n bytes of the original.
func clipLine(s string, n int) string { return termsafe.Line(textclip.Clip(s, n)) }
