package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// plainMD renders src without color and strips what styling is left.
func plainMD(src string, width int) string {
	st := newMDStyles(true)
	return ansi.Strip(renderMarkdown(src, width, &st))
}

func TestRenderMarkdownBlocks(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // lines, margins trimmed
	}{
		{"nested lists", "- a\n  - b\n  - c\n- d\n", []string{"• a", "• b", "• c", "• d"}},
		{"ordered from 3", "3. three\n4. four\n", []string{"3. three", "4. four"}},
		{"task list", "- [x] done\n- [ ] open\n", []string{"• [x] done", "• [ ] open"}},
		{"quote", "> quoted *text*\n", []string{"│ quoted text"}},
		{"link", "see [the docs](https://x.test/d) and https://auto.test\n", []string{"see the docs (https://x.test/d) and https://auto.test"}},
		{"link as its own label", "[https://x.test](https://x.test)\n", []string{"https://x.test"}},
		{"strike and code", "~~old~~ `new()`\n", []string{"old new()"}},
		{"rule", "a\n\n---\n\nb\n", []string{"a", "", strings.Repeat("─", 78), "", "b"}},
		{"image", "![logo](l.png)\n", []string{"[image: logo] (l.png)"}},
		{"html block", "<div>\nhi\n</div>\n", []string{"<div>", "hi", "</div>"}},
		{"heading levels", "# One\n## Two\n### Three\n", []string{"One", "", "Two", "", "Three"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plainMD(tt.src, 80)
			var lines []string
			for _, l := range strings.Split(got, "\n") {
				lines = append(lines, strings.TrimSpace(l))
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("rendered\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestRenderMarkdownNestedIndent: a sub-list is indented under its
// item's text, and a wrapped item's continuation lines align with it.
func TestRenderMarkdownNestedIndent(t *testing.T) {
	got := plainMD("- top\n  - inner item that is long enough to wrap at this width\n", 30)
	lines := strings.Split(got, "\n")
	if len(lines) < 3 {
		t.Fatalf("rendered %q", got)
	}
	in := strings.Index(lines[1], "•")
	if top := strings.Index(lines[0], "•"); in <= top {
		t.Errorf("inner bullet at %d, top at %d:\n%s", in, top, got)
	}
	if cont := len(lines[2]) - len(strings.TrimLeft(lines[2], " ")); cont != in+2 {
		t.Errorf("continuation indented %d, want %d:\n%s", cont, in+2, got)
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 30 {
			t.Errorf("line wider than 30 cells: %q", l)
		}
	}
}

// TestRenderMarkdownTableFits: a table wider than the screen shrinks its
// widest columns and cuts their cells with "…", keeping every row.
func TestRenderMarkdownTableFits(t *testing.T) {
	src := "| name | description |\n|---|---|\n| a | " + strings.Repeat("long ", 30) + "|\n| b | short |\n"
	got := plainMD(src, 40)
	lines := strings.Split(got, "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want header, rule and two rows:\n%s", len(lines), got)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("row is %d cells wide, want <= 40: %q", w, l)
		}
	}
	if !strings.Contains(lines[2], "…") || !strings.Contains(lines[3], "short") {
		t.Errorf("rows:\n%s", got)
	}
}

// TestRenderMarkdownColors: with color the styles are there, without
// it only decorations are.
func TestRenderMarkdownColors(t *testing.T) {
	r := newMDRenderer(80, false)
	if out := r.render("**bold** and `code`\n"); !strings.Contains(out, "\x1b[") {
		t.Errorf("no styling: %q", out)
	}
	r = newMDRenderer(80, true)
	out := r.render("# H\n\n`code` [l](http://x)\n")
	if strings.Contains(out, "38;5;") || strings.Contains(out, "\x1b[3") && strings.Contains(out, ";5;") {
		t.Errorf("NO_COLOR rendering has colors: %q", out)
	}
}

// FuzzRenderMarkdown: any (escaped) text renders without a panic, as
// valid UTF-8 when the input is, within the width for prose, and with no
// escape sequence but the renderer's own SGR styling.
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range []string{
		"# T\n\n*e* **b** `c`\n\n- a\n  - b\n\n```go\nx\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
		"> q\n>> qq\n\n1. x\n\n   para\n\n---\n", "[a](<b c>) ![i](j) <http://x> <b>h</b>", "***\n___\n* * *", "|||\n|-|-|\n",
		"\t- x\n\t\t- y", "a  \nb\\\nc", "~~~\ncode\n~~~~\n", "[x]: http://y\n[x]\n",
	} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, src string, width int) {
		width = 10 + abs(width)%200
		src = escapeForTest(src)
		st := newMDStyles(false)
		out := renderMarkdown(src, width, &st)
		if utf8.ValidString(src) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from %q", src)
		}
		plain := ansi.Strip(out)
		if strings.ContainsAny(plain, "\x1b\x07") {
			t.Fatalf("escape sequence beyond styling from %q: %q", src, out)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// escapeForTest makes fuzz input what the renderer is given: text
// escaped by termsafe (the stream escapes before rendering).
func escapeForTest(s string) string {
	s = strings.ToValidUTF8(s, "?")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return '?'
		}
		return r
	}, s)
}
