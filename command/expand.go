package command

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// MaxArgs bounds the arguments of one invocation.
const MaxArgs = 64 << 10

// ErrUnterminatedQuote reports arguments with an opening quote and no
// closing one.
var ErrUnterminatedQuote = errors.New("unterminated quote in the arguments")

// SplitArgs splits an argument string the way a shell splits words, with
// no expansion: runs of blanks separate words, '…' keeps everything
// literal, "…" keeps blanks and honours \" and \\, and a backslash outside
// quotes escapes the next character. `a "b c" 'd'` is [a, b c, d].
func SplitArgs(s string) ([]string, error) {
	if len(s) > MaxArgs {
		return nil, fmt.Errorf("the arguments are %d bytes; the limit is %d", len(s), MaxArgs)
	}
	var (
		out  []string
		cur  strings.Builder
		word bool // cur holds a word, possibly empty ("")
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if word {
				out = append(out, cur.String())
				cur.Reset()
				word = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, ErrUnterminatedQuote
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			word = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, ErrUnterminatedQuote
			}
			i = j
			word = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			word = true
		default:
			cur.WriteByte(c)
			word = true
		}
	}
	if word {
		out = append(out, cur.String())
	}
	return out, nil
}

// Shell quoting for JoinArgs: a word made only of these needs no quotes.
func plainWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r)) {
			return false
		}
	}
	return true
}

// JoinArgs is the inverse of SplitArgs: it quotes each word only as much
// as needed, so `rein run --command x "a b" c` gives $ARGUMENTS `"a b" c`
// and SplitArgs of it gives the words back.
func JoinArgs(words []string) string {
	parts := make([]string, len(words))
	for i, w := range words {
		if plainWord(w) {
			parts[i] = w
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

// placeholder matches $ARGUMENTS and $1…$9 (one digit: "$10" is $1
// followed by "0", as a shell reads it).
var placeholder = regexp.MustCompile(`\$ARGUMENTS|\$[1-9]`)

// Expansion is a command made ready to send.
type Expansion struct {
	// Prompt is the body with the arguments filled in, plus rein's notes.
	Prompt string
	// Notes are what rein did not do that Claude Code would (running
	// !`cmd` lines, inlining @files), one line each, for the user.
	Notes []string
}

// Expand fills the body with args, the arguments as the user typed them:
// $ARGUMENTS becomes args (trimmed), $1…$9 its words as SplitArgs splits
// them (a missing word is empty). A body with no placeholder gets the
// arguments appended as "ARGUMENTS: …", as Claude Code does, so they are
// never lost.
//
// Claude Code runs !`cmd` in a body before sending it and inlines @path
// files. rein does neither at expansion time: the command would run
// outside the policy, and a project's command file is untrusted input. The
// text is sent as written, with a note telling the model to use
// run_command or read_file, where the policy decides each call.
func (c *Command) Expand(args string) (Expansion, error) {
	args = strings.TrimSpace(args)
	words, err := SplitArgs(args)
	if err != nil {
		return Expansion{}, err
	}
	used := false
	prompt := placeholder.ReplaceAllStringFunc(c.Body, func(m string) string {
		used = true
		if m == "$ARGUMENTS" {
			return args
		}
		n := int(m[1] - '0')
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	if !used && args != "" {
		prompt += "\n\nARGUMENTS: " + args
	}
	var e Expansion
	var notes []string
	if shellLine.MatchString(c.Body) {
		e.Notes = append(e.Notes, "the command's !`…` shell lines were not run (rein runs commands only through run_command, under the policy)")
		notes = append(notes, "Lines written as !`command` were not run before this prompt was sent; run what you need with run_command.")
	}
	if fileRef.MatchString(c.Body) {
		e.Notes = append(e.Notes, "the command's @file references were not inlined (the model reads them with read_file)")
		notes = append(notes, "References written as @path were not inlined; read those files with read_file.")
	}
	if len(notes) > 0 {
		prompt += "\n\n[Note from rein: " + strings.Join(notes, " ") + "]"
	}
	e.Prompt = prompt
	return e, nil
}

var (
	// shellLine is Claude Code's bash execution: !`cmd`.
	shellLine = regexp.MustCompile("!`[^`\n]+`")
	// fileRef is Claude Code's file reference: @path after a blank or at
	// the start of a line (an e-mail address has no blank before the @).
	fileRef = regexp.MustCompile(`(?m)(^|[ \t(])@[A-Za-z0-9_./~-]*[A-Za-z0-9_/-]`)
)
