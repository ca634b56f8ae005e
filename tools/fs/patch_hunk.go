package fs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/reinharness/rein/internal/textclip"
)

// versionLine is what follows git format-patch's "-- " signature line.
var versionLine = regexp.MustCompile(`^\d+\.\d+`)

// hunk parses the hunk starting at the current "@@" line.
//
// While the header's counts say lines remain, every line is body (so a
// removed line "-- x" is not mistaken for a "--- " file header). Once the
// counts are used up, or when the header has none, further body lines are
// still taken until something that cannot be body: models often miscount,
// and silently dropping lines they meant would be worse than recounting.
func (p *patchParser) hunk() error {
	header := p.lines[p.i]
	h := Hunk{Header: header}
	oldRem, newRem := -1, -1
	if m := hunkHeader.FindStringSubmatch(header); m != nil {
		h.Positioned = true
		h.OldStart, _ = strconv.Atoi(m[1])
		h.NewStart, _ = strconv.Atoi(m[3])
		oldRem, newRem = headerCount(m[2]), headerCount(m[4])
	} else if strings.HasPrefix(header, "@@ -") {
		return fmt.Errorf("patch line %d: malformed hunk header %q (want \"@@ -start,count +start,count @@\")", p.i+1, textclip.Clip(header, 60))
	}
	p.i++
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		counted := oldRem > 0 || newRem > 0
		if strings.HasPrefix(line, `\`) {
			if n := len(h.Lines); n > 0 {
				h.Lines[n-1].NoNewline = true
			}
			p.i++
			continue
		}
		if counted {
			if strings.HasPrefix(line, "@@") || strings.HasPrefix(line, "diff --git ") ||
				(line == "" && p.i == len(p.lines)-1) {
				break // the header over-counted; the body ends here
			}
		} else if p.terminates(line) {
			break
		}
		op, text, ok := bodyLine(line)
		if !ok {
			if !counted {
				break
			}
			return fmt.Errorf("patch line %d: %q in hunk %q is not a context (' '), removed ('-') or added ('+') line",
				p.i+1, textclip.Clip(line, 60), textclip.Clip(header, 40))
		}
		if line == "" && !counted {
			// Blank lines are empty context only if more body follows;
			// otherwise they are the gap after the hunk.
			j := p.nextNonBlank()
			if !p.bodyAt(j) {
				break
			}
			for ; p.i < j; p.i++ {
				h.Lines = append(h.Lines, HunkLine{Op: ' '})
				oldRem--
				newRem--
			}
			continue
		}
		h.Lines = append(h.Lines, HunkLine{Op: op, Text: text})
		if op != '+' {
			oldRem--
		}
		if op != '-' {
			newRem--
		}
		p.i++
	}
	if len(h.Lines) == 0 {
		return fmt.Errorf("patch line %d: hunk %q has no lines", p.i, textclip.Clip(header, 40))
	}
	for _, l := range h.Lines {
		if l.Op != '+' {
			h.OldLines++
		}
		if l.Op != '-' {
			h.NewLines++
		}
	}
	p.cur.Hunks = append(p.cur.Hunks, h)
	return nil
}

func headerCount(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// bodyLine classifies a hunk body line. An empty line counts as empty
// context: editors and chat interfaces strip the lone space.
func bodyLine(line string) (byte, string, bool) {
	if line == "" {
		return ' ', "", true
	}
	switch line[0] {
	case ' ', '-', '+':
		return line[0], line[1:], true
	}
	return 0, "", false
}

// terminates reports whether line ends an uncounted hunk body: the next
// hunk or file section, or format-patch's signature.
func (p *patchParser) terminates(line string) bool {
	switch {
	case strings.HasPrefix(line, "@@"), strings.HasPrefix(line, "diff --git "):
		return true
	case strings.HasPrefix(line, "--- ") && p.i+1 < len(p.lines) && strings.HasPrefix(p.lines[p.i+1], "+++ "):
		return true
	case line == "-- ":
		next := ""
		if p.i+1 < len(p.lines) {
			next = p.lines[p.i+1]
		}
		return next == "" || versionLine.MatchString(next)
	}
	return false
}

// nextNonBlank returns the index of the first non-empty line after the
// current one (len(lines) if none).
func (p *patchParser) nextNonBlank() int {
	j := p.i + 1
	for j < len(p.lines) && p.lines[j] == "" {
		j++
	}
	return j
}

// bodyAt reports whether line j continues a hunk body.
func (p *patchParser) bodyAt(j int) bool {
	if j >= len(p.lines) {
		return false
	}
	saved := p.i
	p.i = j
	end := p.terminates(p.lines[j])
	p.i = saved
	if end {
		return false
	}
	_, _, ok := bodyLine(p.lines[j])
	return ok || strings.HasPrefix(p.lines[j], `\`)
}
