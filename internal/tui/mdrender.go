package tui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// mdStyles are the looks of rendered markdown. Built once per renderer;
// with noColor they keep their decorations (bold, italic, underline).
type mdStyles struct {
	h1, h2, h3, strong, em, strike, code, codeBlock, link, quote, rule, tableHead lipgloss.Style
}

func newMDStyles(noColor bool) mdStyles {
	s := mdStyles{
		h1:        lipgloss.NewStyle().Bold(true).Underline(true),
		h2:        lipgloss.NewStyle().Bold(true),
		h3:        lipgloss.NewStyle().Bold(true),
		strong:    lipgloss.NewStyle().Bold(true),
		em:        lipgloss.NewStyle().Italic(true),
		strike:    lipgloss.NewStyle().Strikethrough(true),
		code:      lipgloss.NewStyle(),
		codeBlock: lipgloss.NewStyle(),
		link:      lipgloss.NewStyle().Underline(true),
		quote:     lipgloss.NewStyle().Italic(true).Faint(true),
		rule:      lipgloss.NewStyle().Faint(true),
		tableHead: lipgloss.NewStyle().Bold(true),
	}
	if noColor {
		return s
	}
	s.h1 = s.h1.Foreground(lipgloss.Color("12"))
	s.h2 = s.h2.Foreground(lipgloss.Color("12"))
	s.h3 = s.h3.Foreground(lipgloss.Color("6"))
	s.code = s.code.Foreground(lipgloss.Color("203"))
	s.codeBlock = s.codeBlock.Foreground(lipgloss.Color("250"))
	s.link = s.link.Foreground(lipgloss.Color("6"))
	return s
}

// md parses CommonMark with GitHub's tables, strikethrough, autolinks and
// task lists: the markdown models write. goldmark is safe on any input
// (no panics on garbage, linear time), and rein renders its tree itself
// rather than through glamour, whose syntax-highlighting and sanitizing
// dependencies cost every rein start ~30 ms of package initialisation.
var md = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify, extension.TaskList))

// mdWriter renders one markdown document to styled text at a width.
type mdWriter struct {
	src   []byte
	st    *mdStyles
	width int
	out   strings.Builder
}

// renderMarkdown renders src (already escaped: no control characters)
// as styled terminal text wrapped at width cells.
func renderMarkdown(src string, width int, st *mdStyles) string {
	b := []byte(src)
	doc := md.Parser().Parse(text.NewReader(b))
	w := &mdWriter{src: b, st: st, width: max(width, minWrap)}
	// A two-cell margin sets the answer off from the tool lines around it.
	w.blocks(doc, "  ", "  ")
	return strings.TrimRight(w.out.String(), "\n")
}

// blocks renders the block children of n, each line prefixed (first is
// the prefix of the very first line, for list markers), separated by
// blank lines as markdown separates them.
func (w *mdWriter) blocks(n gast.Node, first, rest string) {
	i := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		p := rest
		if i == 0 {
			p = first
		}
		if i > 0 && !(tight(n) && isInline(c)) {
			w.line(rest, "")
		}
		w.block(c, p, rest)
		i++
	}
}

// tight reports whether n is an item of a tight list (no blank lines
// between its paragraphs and sub-lists).
func tight(n gast.Node) bool {
	if li, ok := n.(*gast.ListItem); ok {
		if l, ok := li.Parent().(*gast.List); ok {
			return l.IsTight
		}
	}
	return false
}

func isInline(n gast.Node) bool {
	switch n.(type) {
	case *gast.List, *gast.TextBlock:
		return true
	}
	return false
}

// line writes one output line: prefix then s.
func (w *mdWriter) line(prefix, s string) {
	w.out.WriteString(strings.TrimRight(prefix+s, " "))
	w.out.WriteByte('\n')
}

// para writes inline text wrapped to the width left after the prefixes.
func (w *mdWriter) para(s, first, rest string) {
	avail := max(w.width-ansi.StringWidth(rest), minWrap/2)
	for i, l := range strings.Split(ansi.Wrap(s, avail, ""), "\n") {
		if i == 0 {
			w.line(first, l)
		} else {
			w.line(rest, l)
		}
	}
}

func (w *mdWriter) block(n gast.Node, first, rest string) {
	switch n := n.(type) {
	case *gast.Heading:
		st := w.st.h3
		switch n.Level {
		case 1:
			st = w.st.h1
		case 2:
			st = w.st.h2
		}
		w.para(st.Render(w.inlines(n)), first, rest)
	case *gast.Paragraph, *gast.TextBlock:
		w.para(w.inlines(n), first, rest)
	case *gast.FencedCodeBlock, *gast.CodeBlock:
		w.code(n, first, rest)
	case *gast.Blockquote:
		bar := w.st.quote.Render("│") + " "
		w.quoted(n, first+bar, rest+bar)
	case *gast.List:
		w.list(n, first, rest)
	case *gast.ThematicBreak:
		w.line(first, w.st.rule.Render(strings.Repeat("─", max(w.width-ansi.StringWidth(rest), 3))))
	case *east.Table:
		w.table(n, first, rest)
	case *gast.HTMLBlock:
		w.raw(n, first, rest)
	default:
		if n.Type() == gast.TypeBlock && n.HasChildren() {
			w.blocks(n, first, rest)
		} else {
			w.raw(n, first, rest)
		}
	}
}

// quoted renders a blockquote's children with the bar prefix, italic
// and faint (applied per line, so the wrapping stays right).
func (w *mdWriter) quoted(n gast.Node, first, rest string) {
	inner := &mdWriter{src: w.src, st: w.st, width: w.width}
	inner.blocks(n, "", "")
	lines := strings.Split(strings.TrimRight(inner.out.String(), "\n"), "\n")
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		w.line(p, w.st.quote.Render(l))
	}
}

func (w *mdWriter) list(l *gast.List, first, rest string) {
	num := l.Start
	i := 0
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if l.IsOrdered() {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		p := rest
		if i == 0 {
			p = first
		}
		if i > 0 && !l.IsTight {
			w.line(rest, "")
		}
		w.blocks(item, p+marker, rest+strings.Repeat(" ", ansi.StringWidth(marker)))
		i++
	}
}

// code writes a code block's lines as they are (no wrapping: code is
// read by column), indented two cells.
func (w *mdWriter) code(n gast.Node, first, rest string) {
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		l := strings.TrimRight(string(seg.Value(w.src)), "\n")
		l = strings.ReplaceAll(l, "\t", "    ")
		p := rest
		if i == 0 {
			p = first
		}
		w.line(p+"  ", w.st.codeBlock.Render(l))
	}
}

// raw writes a node's source lines unrendered (HTML blocks: the text is
// escaped already, and a terminal shows tags as text).
func (w *mdWriter) raw(n gast.Node, first, rest string) {
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		p := rest
		if i == 0 {
			p = first
		}
		w.line(p, strings.TrimRight(string(seg.Value(w.src)), "\n"))
	}
}

// table lays a GFM table out in columns as wide as their widest cell,
// shrunk evenly when the whole is wider than the screen.
func (w *mdWriter) table(t *east.Table, first, rest string) {
	var rows [][]string
	head := -1
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		if _, ok := r.(*east.TableHeader); ok {
			head = len(rows)
		}
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.ReplaceAll(w.inlines(c), "\n", " "))
		}
		rows = append(rows, cells)
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return
	}
	widths := make([]int, cols)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	avail := w.width - ansi.StringWidth(rest) - 3*(cols-1)
	for total := sum(widths); total > avail && total > cols; total = sum(widths) {
		widest := 0
		for i := range widths {
			if widths[i] > widths[widest] {
				widest = i
			}
		}
		widths[widest]--
	}
	sep := w.st.rule.Render(" │ ")
	for ri, r := range rows {
		var b strings.Builder
		for i := range cols {
			c := ""
			if i < len(r) {
				c = ansi.Truncate(r[i], widths[i], "…")
			}
			if ri == head {
				c = w.st.tableHead.Render(c)
			}
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(c + strings.Repeat(" ", max(widths[i]-ansi.StringWidth(c), 0)))
		}
		p := rest
		if ri == 0 {
			p = first
		}
		w.line(p, b.String())
		if ri == head {
			var u []string
			for _, wd := range widths {
				u = append(u, strings.Repeat("─", wd))
			}
			w.line(rest, w.st.rule.Render(strings.Join(u, "─┼─")))
		}
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// inlines renders n's inline children to one styled string; line breaks
// inside a paragraph are kept (a model means them: a poem, an address).
func (w *mdWriter) inlines(n gast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.inline(&b, c)
	}
	return b.String()
}

func (w *mdWriter) inline(b *strings.Builder, n gast.Node) {
	switch n := n.(type) {
	case *gast.Text:
		b.Write(n.Segment.Value(w.src))
		if n.SoftLineBreak() || n.HardLineBreak() {
			b.WriteByte('\n')
		}
	case *gast.String:
		b.Write(n.Value)
	case *gast.CodeSpan:
		var s strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*gast.Text); ok {
				s.Write(t.Segment.Value(w.src))
			}
		}
		b.WriteString(w.st.code.Render(s.String()))
	case *gast.Emphasis:
		st := w.st.em
		if n.Level >= 2 {
			st = w.st.strong
		}
		b.WriteString(styleLines(st, w.inlines(n)))
	case *east.Strikethrough:
		b.WriteString(styleLines(w.st.strike, w.inlines(n)))
	case *gast.Link:
		label := w.inlines(n)
		b.WriteString(styleLines(w.st.link, label))
		if dest := string(n.Destination); dest != "" && dest != ansi.Strip(label) {
			b.WriteString(" (" + dest + ")")
		}
	case *gast.AutoLink:
		b.WriteString(w.st.link.Render(string(n.URL(w.src))))
	case *gast.Image:
		b.WriteString("[image: " + w.inlines(n) + "]")
		if dest := string(n.Destination); dest != "" {
			b.WriteString(" (" + dest + ")")
		}
	case *east.TaskCheckBox:
		if n.IsChecked {
			b.WriteString("[x] ")
		} else {
			b.WriteString("[ ] ")
		}
	case *gast.RawHTML:
		segs := n.Segments
		for i := 0; i < segs.Len(); i++ {
			seg := segs.At(i)
			b.Write(seg.Value(w.src))
		}
	default:
		if n.HasChildren() {
			b.WriteString(w.inlines(n))
		}
	}
}

// styleLines styles each line of s apart, so a style never spans a line
// break (the wrapper and the terminal's scrollback see whole sequences).
func styleLines(st lipgloss.Style, s string) string {
	if !strings.Contains(s, "\n") {
		return st.Render(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return strings.Join(lines, "\n")
}
