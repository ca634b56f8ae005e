package history

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxImportDepth is how many hops of @path imports are followed from a
// file found by its name, as Claude Code does (a file it imports is one
// hop, a file that one imports two, …).
const MaxImportDepth = 5

// maxImportPath bounds one import's path; longer tokens are prose.
const maxImportPath = 1024

// scanImports returns the @path imports of a Markdown text, in order and
// as written (with `\ ` unescaped to a space), following Claude Code's
// rules: an import is an @ at the start of a line or after white space,
// followed by a path up to the next unescaped white space; trailing
// sentence punctuation is not part of it; nothing inside a code span,
// a fenced code block or an indented code block is an import. Text that
// merely looks like a mention (@alice) is returned too: the loader skips
// imports whose file does not exist, as Claude Code does.
func scanImports(text string) []string {
	var out []string
	for _, para := range proseParagraphs(text) {
		out = append(out, paragraphImports(para)...)
	}
	return out
}

// proseParagraphs splits text into paragraphs of lines outside code
// blocks. A code span may run over the lines of one paragraph but not
// past a blank line, as in CommonMark, so spans are looked for within
// a paragraph.
func proseParagraphs(text string) []string {
	var (
		paras []string
		cur   []string
		fence string // the opening fence while inside a fenced block
	)
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		blank := strings.TrimSpace(line) == ""
		switch {
		case fence != "":
			if closesFence(line, fence) {
				fence = ""
			}
		case openingFence(line) != "":
			flush()
			fence = openingFence(line)
		case !blank && isIndentedCode(line) && len(cur) == 0:
			// An indented line that does not continue a paragraph is
			// indented code, and so are the ones after it, blank lines
			// between them included.
		case blank:
			flush()
		default:
			cur = append(cur, line)
		}
	}
	flush()
	return paras
}

// openingFence returns the fence (``` or ~~~, three or more) a line opens
// a fenced code block with, or "". Up to three spaces may indent it, and
// a backtick fence's info string may not contain a backtick.
func openingFence(line string) string {
	s, ok := trimFenceIndent(line)
	if !ok || len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || (s[0] == '`' && strings.Contains(s[n:], "`")) {
		return ""
	}
	return s[:n]
}

// closesFence reports whether line closes a block opened with fence: the
// same character, at least as many, nothing else but white space.
func closesFence(line, fence string) bool {
	s, ok := trimFenceIndent(line)
	if !ok {
		return false
	}
	n := 0
	for n < len(s) && s[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(s[n:]) == ""
}

// trimFenceIndent removes up to three leading spaces; four or more (or a
// tab) make the line indented code, which cannot be a fence.
func trimFenceIndent(line string) (string, bool) {
	i := 0
	for i < len(line) && i < 4 && line[i] == ' ' {
		i++
	}
	if i == 4 || (i < len(line) && line[i] == '\t') {
		return "", false
	}
	return line[i:], true
}

func isIndentedCode(line string) bool {
	return strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") ||
		strings.HasPrefix(line, " \t") || strings.HasPrefix(line, "  \t") || strings.HasPrefix(line, "   \t")
}

// paragraphImports finds the imports of one paragraph, skipping code
// spans: a run of n backticks up to the next run of exactly n. A run
// that is never closed is literal text.
func paragraphImports(p string) []string {
	var out []string
	for i := 0; i < len(p); {
		switch c := p[i]; {
		case c == '`':
			n := runLen(p, i, '`')
			if end := closingRun(p, i+n, n); end >= 0 {
				i = end + n
			} else {
				i += n
			}
		case c == '@' && (i == 0 || isSpaceByte(p[i-1])):
			path, next := importToken(p, i+1)
			if path != "" {
				out = append(out, path)
			}
			i = next
		default:
			i++
		}
	}
	return out
}

func runLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// closingRun returns where the next run of exactly n backticks at or
// after i starts, or -1.
func closingRun(s string, i, n int) int {
	for i < len(s) {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		i += j
		m := runLen(s, i, '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// importToken reads the path after an @ at i: up to white space not
// escaped by a backslash. It returns the path ("" when the token is not
// one) and where scanning goes on.
func importToken(p string, i int) (string, int) {
	var b strings.Builder
	j := i
	for j < len(p) && !isSpaceByte(p[j]) {
		if p[j] == '\\' && j+1 < len(p) && p[j+1] == ' ' {
			b.WriteByte(' ')
			j += 2
			continue
		}
		b.WriteByte(p[j])
		j++
	}
	path := strings.TrimRight(b.String(), ".,;:!?)]}>\"'")
	if !validImportPath(path) {
		return "", j
	}
	return path, j
}

// validImportPath keeps tokens that can be paths: they start like one
// (a letter, digit, ., _, -, / or ~/), hold no control characters and
// are valid UTF-8 of bounded length. ~user is not supported.
func validImportPath(p string) bool {
	if p == "" || len(p) > maxImportPath || !utf8.ValidString(p) {
		return false
	}
	if p[0] == '~' && p != "~" && !strings.HasPrefix(p, "~/") {
		return false
	}
	if p == "~" {
		return false // the home directory itself is not a file
	}
	r, _ := utf8.DecodeRuneInString(p)
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("._-/~", r) {
		return false
	}
	for _, r := range p {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return false
		}
	}
	return true
}
