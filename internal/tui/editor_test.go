package tui

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/rivo/uniseg"
)

// Clusters a rune-wise editor splits: skin tone, combining accent, flag,
// ZWJ family, tag flag.
var clusters = []string{"👍🏽", "e\u0301", "🇫🇷", "👨\u200d👩\u200d👧", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"}

func typed(s string) *editor {
	e := newEditor()
	e.InsertString(s)
	return e
}

func TestEditorMovesAndDeletesByCluster(t *testing.T) {
	for _, c := range clusters {
		e := typed("a" + c + "b")
		e.Key("left", "")
		e.Key("left", "")
		if e.pos != 1 {
			t.Errorf("%q: two lefts from the end at %d, want 1 (before the cluster)", c, e.pos)
		}
		e.Key("right", "")
		e.Key("backspace", "")
		if got := e.Value(); got != "ab" {
			t.Errorf("%q: backspace after it left %q, want ab", c, got)
		}
		e = typed(c + c)
		e.Key("home", "")
		e.Key("delete", "")
		if got := e.Value(); got != c {
			t.Errorf("%q: delete at the start left %q", c, got)
		}
		if w := e.cols(0, len(e.text)); w != uniseg.StringWidth(c) {
			t.Errorf("%q: width %d, want %d", c, w, uniseg.StringWidth(c))
		}
	}
}

func TestEditorCombiningTypedAfterBaseJoinsIt(t *testing.T) {
	e := typed("e")
	e.InsertString("\u0301")
	e.Key("left", "")
	if e.pos != 0 {
		t.Fatalf("left from after e+accent at %d, want 0", e.pos)
	}
}

func TestEditorShowsEveryLineUpToTheCap(t *testing.T) {
	e := newEditor()
	for i := range 4 {
		e.InsertString("line" + strconv.Itoa(i+1))
		e.Key("alt+enter", "")
	}
	v := stripANSI(e.View("", lipgloss.NewStyle()))
	if !strings.HasPrefix(v, "› line1\n  line2\n  line3\n  line4\n") || e.Height() != 5 {
		t.Fatalf("the first line is hidden or rows are missing:\n%s", v)
	}
	for i := range 20 {
		e.InsertString("more" + strconv.Itoa(i))
		e.Key("shift+enter", "")
	}
	v = stripANSI(e.View("", lipgloss.NewStyle()))
	if e.Height() != maxInputRows || strings.Count(v, "\n") != maxInputRows-1 || !strings.Contains(v, "more19") {
		t.Fatalf("past the cap the editor must scroll to the cursor (%d rows):\n%s", e.Height(), v)
	}
	for range 30 {
		e.Key("up", "")
	}
	if v = stripANSI(e.View("", lipgloss.NewStyle())); !strings.HasPrefix(v, "› line1") {
		t.Fatalf("moving up to the first line does not show it:\n%s", v)
	}
}

func TestEditorWrapsByWidth(t *testing.T) {
	e := newEditor()
	e.width = 11                            // 10 for text, 1 for the cursor at a row's end
	e.InsertString(strings.Repeat("👍🏽", 7)) // 14 columns
	rows := e.layout()
	if len(rows) != 2 || e.cols(rows[0].start, rows[0].end) != 10 {
		t.Fatalf("rows %+v", rows)
	}
	if !e.AtBottom() || e.AtTop() {
		t.Fatal("the cursor at the end is not on the last row")
	}
	e.Key("up", "")
	if e.pos != len("👍🏽")*2 || !e.AtTop() {
		t.Fatalf("up kept column 4: pos %d", e.pos)
	}
}

func TestEditorCollapsesLongPaste(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		b.WriteString("row " + strconv.Itoa(i) + "\n")
	}
	e := typed("see ")
	e.Paste(b.String())
	e.InsertString(" ok")
	if got := e.Display(); got != "see [pasted 200 lines] ok" {
		t.Fatalf("display %q", got)
	}
	if got := e.Value(); got != "see "+b.String()+" ok" {
		t.Fatal("the value lacks the pasted text")
	}
	if v := stripANSI(e.View("", lipgloss.NewStyle())); strings.Contains(v, "row 1") || e.Height() != 1 {
		t.Fatalf("the paste is echoed:\n%s", v)
	}
	e.Key("ctrl+w", "") // "ok"
	e.Key("backspace", "")
	e.Key("backspace", "") // the paste, as one character
	if got := e.Value(); got != "see " || len(e.pastes) != 0 {
		t.Fatalf("after deleting the paste: %q, %d pastes", got, len(e.pastes))
	}
	e.Paste(b.String())
	if !e.ExpandPastes() || e.Value() != "see "+b.String() || e.pos != len(e.text) {
		t.Fatal("Ctrl-X did not expand the paste in place")
	}
	short := typed("")
	short.Paste("a\nb\nc")
	if short.Display() != "a\nb\nc" {
		t.Fatal("a short paste is collapsed")
	}
	spoof := typed(string(pasteFirst) + "x")
	if spoof.Value() != "x" {
		t.Fatalf("a typed paste rune is kept: %q", spoof.Value())
	}
}

func TestEditorEscapesControls(t *testing.T) {
	e := typed("a\x1b[2J\u202eb")
	v := e.View("", lipgloss.NewStyle())
	if strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\u202e") {
		t.Fatalf("controls reach the terminal: %q", v)
	}
	if e.Value() != "a\x1b[2J\u202eb" {
		t.Fatal("the value lost what was typed")
	}
}

// FuzzEditor applies random keys to random text: no panic, the cursor
// always on a cluster boundary within the text, the value valid when
// the input was, and no control sequence of the text in the view.
func FuzzEditor(f *testing.F) {
	f.Add("a👍🏽e\u0301\n🇫🇷x", []byte{0, 1, 2, 3, 4, 5})
	f.Add("👨\u200d👩\u200d👧\n\n\t\x1b]0;x\x07", []byte{9, 9, 8, 7, 6, 10, 11, 12})
	keys := []string{"left", "right", "up", "down", "home", "end", "backspace", "delete",
		"ctrl+w", "alt+d", "ctrl+k", "ctrl+u", "alt+b", "alt+f", "alt+enter", "x", "\u0301", "🏽", "\u200d", "paste", "expand"}
	f.Fuzz(func(t *testing.T, text string, ops []byte) {
		e := newEditor()
		e.width = 7
		e.InsertString(text)
		for _, op := range ops {
			switch k := keys[int(op)%len(keys)]; k {
			case "paste":
				e.Paste(strings.Repeat(text+"\n", collapseLines+1))
			case "expand":
				e.ExpandPastes()
			case "x", "\u0301", "🏽", "\u200d":
				e.Key(k, k)
			default:
				e.Key(k, "")
			}
			if e.pos < 0 || e.pos > len(e.text) || e.snap(e.pos) != e.pos {
				t.Fatalf("cursor %d off a boundary in %q", e.pos, e.text)
			}
			if utf8.ValidString(text) && !utf8.ValidString(e.Value()) {
				t.Fatalf("invalid value %q", e.Value())
			}
			v := e.View("ph", lipgloss.NewStyle())
			if strings.Contains(v, "\x07") || strings.Contains(v, "\x1b]") || e.Height() > maxInputRows {
				t.Fatalf("view %q", v)
			}
		}
	})
}
