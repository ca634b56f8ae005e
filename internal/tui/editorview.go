package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/rivo/uniseg"

	"github.com/reinharness/rein/internal/termsafe"
)

// row is one screen row of the editor: text[start:end]; first is set
// when it begins a logical line (else it continues a wrapped one).
type row struct {
	start, end int
	first      bool
}

// tabWidth is the columns a tab is shown as.
const tabWidth = 4

// shown is how cluster c is drawn: a tab as spaces, a paste as its
// label, a cluster a terminal would obey or hide (a control, a bidi
// override, a lone zero-width character) escaped. A joiner or an emoji
// tag inside a cluster is its glue (👨‍👩‍👧, 🏴 flags), kept.
func (e *editor) shown(c string) string {
	if c == "\t" {
		return strings.Repeat(" ", tabWidth)
	}
	if r := []rune(c); len(r) == 1 && isPasteRune(r[0]) {
		if p, ok := e.pastes[r[0]]; ok {
			return pasteLabel(p)
		}
	}
	if termsafe.Line(c) == c {
		return c
	}
	if rs := []rune(c); len(rs) > 1 && !isGlue(rs[0]) {
		if bare := strings.Map(func(r rune) rune {
			if isGlue(r) {
				return -1
			}
			return r
		}, c); termsafe.Line(bare) == bare {
			return c
		}
	}
	return termsafe.Line(c)
}

// isGlue: the zero-width joiner and the emoji tags.
func isGlue(r rune) bool { return r == 0x200d || r >= 0xe0020 && r <= 0xe007f }

// cwidth is the display width of cluster c.
func (e *editor) cwidth(c string) int {
	s := e.shown(c)
	if s == c {
		return uniseg.StringWidth(c)
	}
	return uniseg.StringWidth(s)
}

// layout wraps the text into rows of at most width-1 columns, the last
// column kept for the cursor at a row's end (a cluster wider than a row
// gets a row of its own).
func (e *editor) layout() []row {
	var rows []row
	w := max(e.width-1, 1)
	start := 0
	for {
		end := e.lineEnd(start)
		r := row{start: start, first: true}
		x := 0
		for i := start; i < end; {
			c, _, _, _ := uniseg.StepString(e.text[i:end], -1)
			cw := e.cwidth(c)
			if x > 0 && x+cw > w {
				r.end = i
				rows = append(rows, r)
				r, x = row{start: i}, 0
			}
			x += cw
			i += len(c)
		}
		r.end = end
		rows = append(rows, r)
		if end == len(e.text) {
			return rows
		}
		start = end + 1
	}
}

// cursorRow is the row the cursor is on: at a wrap, the row after.
func (e *editor) cursorRow(rows []row) int {
	for i, r := range rows {
		if e.pos < r.start || e.pos > r.end {
			continue
		}
		if e.pos == r.end && i+1 < len(rows) && rows[i+1].start == e.pos && !rows[i+1].first {
			continue
		}
		return i
	}
	return len(rows) - 1
}

// cols is the display width of text[a:b].
func (e *editor) cols(a, b int) int {
	x := 0
	for a < b {
		c, _, _, _ := uniseg.StepString(e.text[a:b], -1)
		x += e.cwidth(c)
		a += len(c)
	}
	return x
}

// at is the boundary in row r nearest column x from the left.
func (e *editor) at(r row, x int) int {
	i, cx := r.start, 0
	for i < r.end {
		c, _, _, _ := uniseg.StepString(e.text[i:r.end], -1)
		cw := e.cwidth(c)
		if cx+cw > x {
			break
		}
		cx += cw
		i += len(c)
	}
	return i
}

// Height is the rows the editor takes on screen.
func (e *editor) Height() int { return min(len(e.layout()), maxInputRows) }

// AtTop and AtBottom tell whether the cursor is on the first or the
// last row (up and down then browse the history).
func (e *editor) AtTop() bool { return e.cursorRow(e.layout()) == 0 }

func (e *editor) AtBottom() bool {
	rows := e.layout()
	return e.cursorRow(rows) == len(rows)-1
}

// View draws the rows in view: all of them up to maxInputRows, then a
// window that follows the cursor. The cursor is a reversed cell.
func (e *editor) View(placeholder string, dim lipgloss.Style) string {
	cursor := lipgloss.NewStyle().Reverse(true)
	if e.text == "" {
		ph := []rune(placeholder)
		return "› " + cursor.Render(string(ph[:1])) + dim.Render(clipLine(string(ph[1:]), max(e.width-1, 0)))
	}
	rows := e.layout()
	cr := e.cursorRow(rows)
	h := min(len(rows), maxInputRows)
	e.off = min(max(e.off, cr-h+1), cr, len(rows)-h)
	e.off = max(e.off, 0)
	var b strings.Builder
	for i := e.off; i < e.off+h; i++ {
		if i > e.off {
			b.WriteByte('\n')
		}
		if i == 0 {
			b.WriteString("› ")
		} else {
			b.WriteString("  ")
		}
		r := rows[i]
		for j := r.start; j < r.end; {
			c, _, _, _ := uniseg.StepString(e.text[j:r.end], -1)
			s := e.shown(c)
			if isPasteRune([]rune(c)[0]) {
				s = dim.Render(s)
			}
			if i == cr && j == e.pos {
				s = cursor.Render(e.shown(c))
			}
			b.WriteString(s)
			j += len(c)
		}
		if i == cr && e.pos == r.end {
			b.WriteString(cursor.Render(" "))
		}
	}
	return b.String()
}
