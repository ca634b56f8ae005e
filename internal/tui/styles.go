package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// styles are the UI's looks. With NO_COLOR every style keeps its
// emphasis (bold, faint) but drops color.
type styles struct {
	dim, bold, accent, ok, bad, warn lipgloss.Style
	add, del, hunk, meta             lipgloss.Style
	status, dialog                   lipgloss.Style
}

func newStyles(noColor bool) styles {
	s := styles{
		dim:    lipgloss.NewStyle().Faint(true),
		bold:   lipgloss.NewStyle().Bold(true),
		accent: lipgloss.NewStyle().Bold(true),
		ok:     lipgloss.NewStyle(),
		bad:    lipgloss.NewStyle().Bold(true),
		warn:   lipgloss.NewStyle().Bold(true),
		add:    lipgloss.NewStyle(),
		del:    lipgloss.NewStyle(),
		hunk:   lipgloss.NewStyle().Faint(true),
		meta:   lipgloss.NewStyle().Bold(true),
		status: lipgloss.NewStyle().Faint(true),
		dialog: lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1),
	}
	if noColor {
		return s
	}
	s.accent = s.accent.Foreground(lipgloss.Color("12"))
	s.ok = s.ok.Foreground(lipgloss.Color("10"))
	s.bad = s.bad.Foreground(lipgloss.Color("9"))
	s.warn = s.warn.Foreground(lipgloss.Color("11"))
	s.add = s.add.Foreground(lipgloss.Color("2"))
	s.del = s.del.Foreground(lipgloss.Color("1"))
	s.hunk = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	s.dialog = s.dialog.BorderForeground(lipgloss.Color("11"))
	return s
}

// colorDiff colors a unified diff line by line. The text must be escaped
// already (termsafe): only the styling added here is raw.
func (s styles) colorDiff(diff string) string {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
			lines[i] = s.meta.Render(l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = s.hunk.Render(l)
		case strings.HasPrefix(l, "+"):
			lines[i] = s.add.Render(l)
		case strings.HasPrefix(l, "-"):
			lines[i] = s.del.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}

// looksLikeDiff reports whether text is a unified diff (for output the
// chat prints, such as /diff).
func looksLikeDiff(text string) bool {
	return strings.HasPrefix(text, "diff --git ") || (strings.HasPrefix(text, "--- ") && strings.Contains(text, "\n+++ "))
}

// stripANSI removes escape sequences (for measuring and for golden
// frames).
func stripANSI(s string) string { return ansi.Strip(s) }

// truncateANSI cuts styled text to width cells.
func truncateANSI(s string, width int) string { return ansi.Truncate(s, width, "…") }

// runeCells is how many terminal cells r takes.
func runeCells(r rune) int { return ansi.StringWidth(string(r)) }
