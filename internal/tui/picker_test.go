package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func pickKey(m *pickModel, keys ...tea.KeyPressMsg) *pickModel {
	for _, k := range keys {
		m.Update(k)
	}
	return m
}

// TestPickKeys: the arrows move (and wrap), Enter chooses the item under
// the cursor, Esc, Ctrl-C and q leave without a choice.
func TestPickKeys(t *testing.T) {
	down := tea.KeyPressMsg{Code: tea.KeyDown}
	up := tea.KeyPressMsg{Code: tea.KeyUp}
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	tests := []struct {
		name string
		keys []tea.KeyPressMsg
		want int
	}{
		{"enter takes the first", []tea.KeyPressMsg{enter}, 0},
		{"down down", []tea.KeyPressMsg{down, down, enter}, 2},
		{"up wraps to the last", []tea.KeyPressMsg{up, enter}, 2},
		{"down wraps to the first", []tea.KeyPressMsg{down, down, down, enter}, 0},
		{"esc", []tea.KeyPressMsg{down, {Code: tea.KeyEscape}}, -1},
		{"ctrl-c", []tea.KeyPressMsg{{Code: 'c', Mod: tea.ModCtrl}}, -1},
		{"q", []tea.KeyPressMsg{{Code: 'q', Text: "q"}}, -1},
	}
	for _, tt := range tests {
		m := pickKey(&pickModel{items: []string{"a", "b", "c"}, chosen: -1, st: newStyles(true)}, tt.keys...)
		if m.chosen != tt.want || !m.done {
			t.Errorf("%s: chosen %d done %v, want %d done", tt.name, m.chosen, m.done, tt.want)
		}
	}
}

// TestPickViewEscapes: items are shown on one line each with their
// control characters escaped (a session title is text a prompt chose).
func TestPickViewEscapes(t *testing.T) {
	hostile := "title\x1b]52;c;aGk=\x07\nsecond line\x1b[2J"
	v := newPickModel("pick \x1b[31mred", []string{hostile}, true).View()
	out := v.Content
	for _, raw := range []string{"\x1b]52", "\x07", "\x1b[2J", "\x1b[31m", "second line\n"} {
		if strings.Contains(out, raw) {
			t.Errorf("view holds %q raw: %q", raw, out)
		}
	}
	if !strings.Contains(out, "second line") {
		t.Errorf("the item is not shown: %q", out)
	}
	if !v.AltScreen {
		t.Error("the list is not on the alternate screen")
	}
}
