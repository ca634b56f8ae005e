package tui

import (
	"strings"

	"github.com/rivo/uniseg"
)

// editor is the message editor's text and cursor. The cursor is a byte
// offset that always sits on a grapheme-cluster boundary (UAX #29, by
// uniseg), so moving and deleting take a whole 👍🏽, an e with its
// combining accent, a flag or a ZWJ family at once, and columns are the
// clusters' display widths. The textarea of bubbles moves by rune, which
// splits those clusters, and its viewport kept a stale offset when it
// grew (the first line of a multi-line message was hidden).
//
// A long paste is kept as one rune of the Supplementary Private Use
// Area-A that stands for its text: it is shown as "[pasted N lines]",
// moved over and deleted as one character, and Value expands it.
type editor struct {
	text string
	pos  int
	// width is the columns for text (the prompt excluded); off the first
	// row shown; goal the column up and down keep (-1: the cursor's).
	width, off, goal int
	pastes           map[rune]string
	next             rune
}

// The runes that stand for collapsed pastes.
const (
	pasteFirst rune = 0xF0000
	pasteLast  rune = 0xFFFFD
)

func isPasteRune(r rune) bool { return r >= pasteFirst && r <= pasteLast }

// collapseLines: a paste of more lines than this is collapsed.
const collapseLines = maxInputRows

// collapseBytes: a paste longer than this is collapsed, lines or not.
const collapseBytes = 4000

func newEditor() *editor { return &editor{width: 78, goal: -1} }

// Value is the text with pastes expanded: what is sent.
func (e *editor) Value() string { return e.expand(e.text, func(s string) string { return s }) }

// Display is the text with pastes as their labels: what is echoed.
func (e *editor) Display() string { return e.expand(e.text, pasteLabel) }

// Pastes are the collapsed pastes' texts, in order of appearance.
func (e *editor) Pastes() []string {
	var out []string
	for _, r := range e.text {
		if p, ok := e.pastes[r]; ok {
			out = append(out, p)
		}
	}
	return out
}

func (e *editor) expand(s string, f func(string) string) string {
	if len(e.pastes) == 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if p, ok := e.pastes[r]; ok {
			b.WriteString(f(p))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pasteLabel is how a collapsed paste is shown.
func pasteLabel(p string) string {
	if n := strings.Count(strings.TrimSuffix(p, "\n"), "\n") + 1; n > 1 {
		return "[pasted " + plural(n, "line") + "]"
	}
	return "[pasted " + plural(len([]rune(p)), "character") + "]"
}

// clean normalizes line ends and drops runes that would pose as pastes.
func clean(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return strings.Map(func(r rune) rune {
		if isPasteRune(r) {
			return -1
		}
		return r
	}, s)
}

// SetValue replaces the text; the cursor goes to its end.
func (e *editor) SetValue(s string) {
	e.text, e.pastes, e.off, e.goal = clean(s), nil, 0, -1
	e.pos = len(e.text)
}

// Reset empties the editor.
func (e *editor) Reset() { e.SetValue("") }

// InsertString inserts s at the cursor.
func (e *editor) InsertString(s string) { e.insert(clean(s)) }

func (e *editor) insert(s string) {
	e.text = e.text[:e.pos] + s + e.text[e.pos:]
	e.pos = e.snap(e.pos + len(s))
	e.goal = -1
}

// Paste inserts pasted text, collapsed when it is long.
func (e *editor) Paste(s string) {
	s = clean(s)
	if strings.Count(s, "\n") < collapseLines && len(s) <= collapseBytes || e.next > pasteLast-pasteFirst {
		e.insert(s)
		return
	}
	if e.pastes == nil {
		e.pastes = map[rune]string{}
	}
	r := pasteFirst + e.next
	e.next++
	e.pastes[r] = s
	e.insert(string(r))
}

// ExpandPastes replaces the collapsed pastes by their text, to edit it.
func (e *editor) ExpandPastes() bool {
	if len(e.pastes) == 0 {
		return false
	}
	before := e.Value()
	e.pos = len(e.expand(e.text[:e.pos], func(s string) string { return s }))
	e.text, e.pastes = before, nil
	return true
}

// lineStart and lineEnd bound the logical line holding offset i.
func (e *editor) lineStart(i int) int { return strings.LastIndexByte(e.text[:i], '\n') + 1 }

func (e *editor) lineEnd(i int) int {
	if j := strings.IndexByte(e.text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(e.text)
}

// snap moves i to the first cluster boundary at or after it.
func (e *editor) snap(i int) int {
	b := e.lineStart(i)
	for b < i {
		c, _, _, _ := uniseg.StepString(e.text[b:], -1)
		b += len(c)
	}
	return b
}

// prev is the cluster boundary before i (0 at the start).
func (e *editor) prev(i int) int {
	if i == 0 {
		return 0
	}
	ls := e.lineStart(i)
	if ls == i {
		return i - 1 // the newline
	}
	b := ls
	for {
		c, _, _, _ := uniseg.StepString(e.text[b:], -1)
		if b+len(c) >= i {
			return b
		}
		b += len(c)
	}
}

// next is the cluster boundary after i.
func (e *editor) nextB(i int) int {
	if i >= len(e.text) {
		return len(e.text)
	}
	c, _, _, _ := uniseg.StepString(e.text[i:], -1)
	return i + len(c)
}

func isSpace(c string) bool { return c == " " || c == "\t" || c == "\n" }

// wordLeft is the start of the word before i; wordRight the end of the
// word after it.
func (e *editor) wordLeft(i int) int {
	for i > 0 && isSpace(e.text[e.prev(i):i]) {
		i = e.prev(i)
	}
	for i > 0 && !isSpace(e.text[e.prev(i):i]) {
		i = e.prev(i)
	}
	return i
}

func (e *editor) wordRight(i int) int {
	for i < len(e.text) && isSpace(e.text[i:e.nextB(i)]) {
		i = e.nextB(i)
	}
	for i < len(e.text) && !isSpace(e.text[i:e.nextB(i)]) {
		i = e.nextB(i)
	}
	return i
}

// cut deletes text[a:b] and leaves the cursor at a.
func (e *editor) cut(a, b int) {
	if a > b {
		a, b = b, a
	}
	for _, r := range e.text[a:b] {
		delete(e.pastes, r)
	}
	e.text = e.text[:a] + e.text[b:]
	e.pos = e.snap(a)
	e.goal = -1
}

// Key applies an editing key; false when it is not one.
func (e *editor) Key(k string, text string) bool {
	keep := e.goal
	switch k {
	case "left", "ctrl+b":
		e.pos = e.prev(e.pos)
	case "right", "ctrl+f":
		e.pos = e.nextB(e.pos)
	case "alt+left", "ctrl+left", "alt+b":
		e.pos = e.wordLeft(e.pos)
	case "alt+right", "ctrl+right", "alt+f":
		e.pos = e.wordRight(e.pos)
	case "home", "ctrl+a":
		e.pos = e.lineStart(e.pos)
	case "end", "ctrl+e":
		e.pos = e.lineEnd(e.pos)
	case "backspace", "ctrl+h":
		e.cut(e.prev(e.pos), e.pos)
	case "delete", "ctrl+d":
		e.cut(e.pos, e.nextB(e.pos))
	case "ctrl+w", "alt+backspace":
		e.cut(e.wordLeft(e.pos), e.pos)
	case "alt+d", "alt+delete":
		e.cut(e.pos, e.wordRight(e.pos))
	case "ctrl+k":
		if end := e.lineEnd(e.pos); end > e.pos {
			e.cut(e.pos, end)
		} else {
			e.cut(e.pos, e.nextB(e.pos))
		}
	case "ctrl+u":
		e.cut(e.lineStart(e.pos), e.pos)
	case "alt+enter", "shift+enter", "ctrl+j":
		e.insert("\n")
	case "up":
		return e.vertical(-1, keep)
	case "down":
		return e.vertical(1, keep)
	default:
		if text == "" || strings.HasPrefix(k, "ctrl+") || strings.HasPrefix(k, "alt+") {
			return false
		}
		e.InsertString(text)
		return true
	}
	e.goal = -1
	return true
}

// vertical moves the cursor a row up or down, keeping its column.
func (e *editor) vertical(d, goal int) bool {
	rows := e.layout()
	r := e.cursorRow(rows)
	if r+d < 0 || r+d >= len(rows) {
		return false
	}
	if goal < 0 {
		goal = e.cols(rows[r].start, e.pos)
	}
	e.pos = e.at(rows[r+d], goal)
	e.goal = goal
	return true
}
