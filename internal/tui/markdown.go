package tui

import (
	"strings"

	"github.com/charmbracelet/colorprofile"

	"github.com/reinharness/rein/internal/termsafe"
)

// Limits on the unfinished block of a streaming answer. A block is cut
// into frozen pieces once it grows past them, so a single long code
// fence or paragraph never makes each new chunk re-render everything
// before it.
const (
	maxTailLines = 40
	minWrap      = 20
)

// markdownStream renders an answer that arrives in chunks. The text is
// split into blocks at blank lines outside code fences; a block is
// rendered once when the next one starts and then frozen (done returns
// it for the scrollback), so each chunk costs one render of the last,
// bounded block: the cost per chunk does not grow with the answer.
//
// It is used from one goroutine (the UI's update loop).
type markdownStream struct {
	r     *mdRenderer
	tail  strings.Builder // the unfinished block's source
	lines int             // complete lines in tail
	// partial is the source after the last newline (not yet a line).
	partial string
	// fence is the opening fence of the code block tail is in ("" when
	// outside one), reopened when a long block is cut.
	fence string
	// frozen are rendered blocks not yet taken by done.
	frozen []string
	// cache is the tail's rendering, valid while !dirty.
	cache string
	dirty bool
}

func newMarkdownStream(r *mdRenderer) *markdownStream { return &markdownStream{r: r} }

// write adds a chunk of model text. The text is escaped (termsafe) before
// it reaches the markdown renderer, so no control character of the
// model's survives into the output.
func (s *markdownStream) write(chunk string) {
	if chunk == "" {
		return
	}
	chunk = termsafe.Text(strings.ReplaceAll(chunk, "\r\n", "\n"))
	s.dirty = true
	for {
		i := strings.IndexByte(chunk, '\n')
		if i < 0 {
			s.partial += chunk
			return
		}
		s.line(s.partial + chunk[:i])
		s.partial, chunk = "", chunk[i+1:]
	}
}

// line takes one complete source line.
func (s *markdownStream) line(l string) {
	trimmed := strings.TrimSpace(l)
	if s.fence == "" && trimmed == "" {
		s.freeze("")
		return
	}
	if f := fenceOf(trimmed); f != "" {
		switch {
		case s.fence == "":
			s.fence = trimmed
		case strings.HasPrefix(trimmed, s.fence[:3]) && strings.Trim(trimmed, s.fence[:1]) == "":
			s.tail.WriteString(l + "\n")
			s.fence = ""
			s.freeze("")
			return
		}
	}
	s.tail.WriteString(l + "\n")
	s.lines++
	if s.lines >= maxTailLines {
		s.cut()
	}
}

// cut freezes a block that grew too long: a code fence is closed here
// and reopened in the next block with the same info string; other text
// is cut at the line.
func (s *markdownStream) cut() {
	if s.fence == "" {
		s.freeze("")
		return
	}
	open := s.fence
	s.tail.WriteString(open[:3] + "\n")
	s.freeze(open + "\n")
	s.fence = open
}

// freeze renders the tail as a finished block and starts the next block
// with next.
func (s *markdownStream) freeze(next string) {
	if strings.TrimSpace(s.tail.String()) != "" {
		s.frozen = append(s.frozen, s.r.render(s.tail.String()))
	}
	s.tail.Reset()
	s.tail.WriteString(next)
	s.lines = 0
	s.cache, s.dirty = "", true
}

// done returns the blocks finished since the last call, rendered.
func (s *markdownStream) done() []string {
	out := s.frozen
	s.frozen = nil
	return out
}

// live renders the unfinished block, with the partial line, for the
// live area under the scrollback.
func (s *markdownStream) live() string {
	if !s.dirty {
		return s.cache
	}
	src := s.tail.String() + s.partial
	if s.fence != "" && strings.TrimSpace(src) != "" {
		src += "\n" + s.fence[:3] + "\n" // close it so it renders as code
	}
	s.cache, s.dirty = "", false
	if strings.TrimSpace(src) != "" {
		s.cache = s.r.render(src)
	}
	return s.cache
}

// flush ends the answer: the rest is frozen and returned with the other
// finished blocks.
func (s *markdownStream) flush() []string {
	if s.partial != "" {
		s.line(s.partial)
		s.partial = ""
	}
	if s.fence != "" {
		s.tail.WriteString(s.fence[:3] + "\n")
		s.fence = ""
	}
	s.freeze("")
	return s.done()
}

// resize re-renders the unfinished block at the new width; frozen blocks
// are in the scrollback already and stay as they were printed.
func (s *markdownStream) resize(r *mdRenderer) {
	s.r, s.dirty = r, true
}

// fenceOf returns the fence marker a line opens or closes with ("```" or
// "~~~"), or "".
func fenceOf(trimmed string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			return f
		}
	}
	return ""
}

// mdRenderer renders markdown at one width (renderMarkdown), falling
// back to the plain source should rendering ever panic: an answer must
// never be lost to a renderer defect.
type mdRenderer struct {
	st    *mdStyles
	width int
	// noColor keeps the rendering's emphasis and drops its colors.
	noColor bool
}

func newMDRenderer(width int, noColor bool) *mdRenderer {
	st := newMDStyles(noColor)
	return &mdRenderer{st: &st, width: width, noColor: noColor}
}

// render renders one block, without surrounding blank lines. A line
// break inside a paragraph is kept, as a model means it (a poem, an
// address, a list written without markers); long lines still wrap.
func (r *mdRenderer) render(src string) (out string) {
	defer func() {
		if recover() != nil {
			out = strings.TrimRight(src, "\n")
		}
	}()
	out = renderMarkdown(src, max(r.width-4, minWrap), r.st)
	if r.noColor {
		out = withoutColor(out)
	}
	return trimBlankLines(out)
}

// trimBlankLines drops leading and trailing lines that hold only spaces
// (and the styling around them).
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	blank := func(l string) bool { return strings.TrimSpace(stripANSI(l)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// withoutColor keeps the text decorations of styled text and drops its
// colors (NO_COLOR).
func withoutColor(s string) string {
	var b strings.Builder
	w := &colorprofile.Writer{Forward: &b, Profile: colorprofile.Ascii}
	w.WriteString(s)
	return b.String()
}
