package tui

import (
	"context"
	"errors"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/reinharness/rein/internal/termsafe"
)

// ErrNotPicked is Pick's error when the user left the list without a
// choice (Esc, Ctrl-C, q).
var ErrNotPicked = errors.New("nothing was picked")

// Pick shows title and items as a list on the terminal (in, out) and
// returns the index of the item the user chooses with the arrows and
// Enter, or ErrNotPicked after Esc, Ctrl-C or q. It runs its own small
// program inline, before or after (never during) a chat's UI, and
// restores the terminal before it returns. Items may hold text others
// chose (session titles): each is shown escaped on one line. env is the
// environment the color profile is detected from.
func Pick(ctx context.Context, in io.Reader, out io.Writer, env []string, title string, items []string) (int, error) {
	if len(items) == 0 {
		return -1, ErrNotPicked
	}
	pm := newPickModel(title, items, noColorEnv(env))
	p := tea.NewProgram(pm, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out),
		tea.WithEnvironment(env), tea.WithoutSignalHandler())
	if _, err := p.Run(); err != nil {
		if ctx.Err() != nil {
			return -1, ctx.Err()
		}
		return -1, err
	}
	if pm.chosen < 0 {
		return -1, ErrNotPicked
	}
	return pm.chosen, nil
}

// pickModel is Pick's state; its methods run on the program's goroutine.
type pickModel struct {
	title  string
	items  []string
	cursor int
	chosen int
	done   bool
	st     styles
}

// newPickModel escapes title and items to one line each.
func newPickModel(title string, items []string, noColor bool) *pickModel {
	pm := &pickModel{title: termsafe.Line(title), items: make([]string, len(items)), chosen: -1, st: newStyles(noColor)}
	for i, it := range items {
		pm.items[i] = termsafe.Line(it)
	}
	return pm
}

func (m *pickModel) Init() tea.Cmd { return nil }

func (m *pickModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	key, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	switch key.String() {
	case "up", "k", "ctrl+p":
		m.cursor = (m.cursor + len(m.items) - 1) % len(m.items)
	case "down", "j", "ctrl+n", "tab":
		m.cursor = (m.cursor + 1) % len(m.items)
	case "home":
		m.cursor = 0
	case "end":
		m.cursor = len(m.items) - 1
	case "enter":
		m.chosen, m.done = m.cursor, true
		return m, tea.Quit
	case "esc", "ctrl+c", "ctrl+d", "q":
		m.done = true
		return m, tea.Quit
	}
	return m, nil
}

// View draws the list on the alternate screen: once the user chose, the
// terminal is back as it was, with nothing of the list left above what
// follows.
func (m *pickModel) View() tea.View {
	if m.done {
		return tea.NewView("")
	}
	var b strings.Builder
	b.WriteString(m.st.accent.Render(m.title) + "\n")
	for i, it := range m.items {
		if i == m.cursor {
			b.WriteString(m.st.accent.Render("› "+it) + "\n")
		} else {
			b.WriteString("  " + it + "\n")
		}
	}
	b.WriteString(m.st.dim.Render("↑/↓ move · Enter resumes · Esc cancels"))
	v := tea.NewView(b.String())
	v.AltScreen = true
	return v
}

// noColorEnv reports whether env sets NO_COLOR.
func noColorEnv(env []string) bool {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "NO_COLOR="); ok && v != "" {
			return true
		}
	}
	return false
}
