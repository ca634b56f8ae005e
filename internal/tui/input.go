package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/reinharness/rein/internal/termsafe"
)

// maxInputRows is the editor's height at most; longer input scrolls.
const maxInputRows = 8

// placeholder is shown in the empty editor.
const placeholder = "Ask anything · /help for commands · @file attaches · !cmd runs"

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if m.approval != nil {
		return m.approvalKey(k)
	}
	if m.confirm != nil {
		return m.confirmKey(k)
	}
	switch k.String() {
	case "shift+tab":
		m.cfg.Emit(Action{Kind: ActionMode})
		return nil
	case "ctrl+c":
		return m.interrupt()
	case "esc":
		if m.busy {
			m.cfg.Emit(Action{Kind: ActionCancel})
		}
		return nil
	case "ctrl+d":
		if m.input.Value() == "" {
			m.cfg.Emit(Action{Kind: ActionQuit})
			return nil
		}
	case "enter":
		m.send()
		return nil
	case "tab":
		return m.complete()
	case "ctrl+t":
		m.show(m.lastReasoning+m.reasoning.String(), "(no reasoning in this session yet)")
		return nil
	case "ctrl+o":
		m.show(m.lastResult, "(no tool result yet)")
		return nil
	case "up":
		if m.input.AtTop() && m.browse(-1) {
			return nil
		}
	case "down":
		if m.input.AtBottom() && m.browse(1) {
			return nil
		}
	case "ctrl+x":
		m.input.ExpandPastes()
		return nil
	}
	m.input.Key(k.String(), k.Text)
	return nil
}

// interrupt is Ctrl-C: it cancels a running turn, else clears the input,
// else quits when pressed twice.
func (m *Model) interrupt() tea.Cmd {
	switch {
	case m.busy:
		m.cfg.Emit(Action{Kind: ActionCancel})
	case m.input.Value() != "":
		m.input.Reset()
	case !m.ctrlC.IsZero() && m.now().Sub(m.ctrlC) < doubleCtrlC:
		m.cfg.Emit(Action{Kind: ActionQuit})
	default:
		m.ctrlC = m.now()
		m.print(m.st.dim.Render("(press Ctrl-C again or Ctrl-D to quit)"))
	}
	return nil
}

// send emits the input as a message or as the answer to the open
// question, and records it in the history.
func (m *Model) send() {
	text := strings.TrimRight(m.input.Value(), " \n")
	if strings.TrimSpace(text) == "" {
		return
	}
	shown := strings.TrimRight(m.input.Display(), " \n")
	pastes := m.input.Pastes()
	m.input.Reset()
	m.draft = ""
	if m.asking {
		m.asking = false
		m.print(m.st.dim.Render("  ↳ " + termsafe.Line(text)))
		m.cfg.Emit(Action{Kind: ActionAnswer, Text: text})
		return
	}
	m.hist.Add(text)
	m.histPos = m.hist.Len()
	m.endAnswer()
	if text == "/expand" {
		m.show(strings.Join(m.lastPastes, "\n"), "(no collapsed paste in the last message)")
		return
	}
	if len(pastes) > 0 {
		m.lastPastes = pastes
	}
	m.print(m.st.accent.Render("› ") + strings.ReplaceAll(termsafe.Escape(shown), "\n", "\n  "))
	m.cfg.Emit(Action{Kind: ActionSend, Text: text})
}

// paste inserts bracketed-paste text: its newlines stay in the message,
// which Enter then sends whole; a long one is collapsed to
// "[pasted N lines]" (Ctrl-X expands it in the input, /expand shows the
// last message's pastes; the model gets the full text).
func (m *Model) paste(text string) tea.Cmd {
	if m.approval != nil {
		return nil
	}
	m.input.Paste(text)
	return nil
}

// show prints a longer text on request (Ctrl-T, Ctrl-O).
func (m *Model) show(text, none string) {
	if strings.TrimSpace(text) == "" {
		m.print(m.st.dim.Render(none))
		return
	}
	m.print(m.st.dim.Render(termsafe.Escape(strings.TrimRight(text, "\n"))))
}

// browse moves through the history; false when there is nowhere to go.
func (m *Model) browse(delta int) bool {
	n := m.hist.Len()
	pos := m.histPos + delta
	if n == 0 || pos < 0 || pos > n {
		return false
	}
	if m.histPos == n {
		m.draft = m.input.Value()
	}
	m.histPos = pos
	if pos == n {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.hist.At(pos))
	}
	return true
}

// complete is Tab: a slash command at the start, an @path anywhere,
// else whatever Config.Complete completes (asked off the UI's goroutine:
// the Cmd returned).
func (m *Model) complete() tea.Cmd {
	val := m.input.Value()
	start := strings.LastIndexAny(val, " \t\n") + 1
	word := val[start:]
	var cands []string
	switch {
	case start == 0 && strings.HasPrefix(word, "/"):
		for _, c := range m.cfg.Commands {
			if strings.HasPrefix(c, word) {
				cands = append(cands, c)
			}
		}
	case strings.HasPrefix(word, "@") && m.cfg.Paths != nil:
		for _, p := range m.cfg.Paths(word[1:]) {
			cands = append(cands, "@"+p)
		}
	case m.cfg.Complete != nil:
		return m.completeAsync(val)
	default:
		return nil
	}
	m.offer(val, start, cands, " ")
	return nil
}

// offer completes val's word from start with cands: the one candidate
// (followed by end, unless it is a directory), else their longer common
// prefix, else a line listing them.
func (m *Model) offer(val string, start int, cands []string, end string) {
	switch len(cands) {
	case 0:
		return
	case 1:
		done := cands[0]
		if !strings.HasSuffix(done, "/") {
			done += end
		}
		m.input.SetValue(val[:start] + done)
	default:
		common := commonPrefix(cands)
		if len(common) > len(val)-start {
			m.input.SetValue(val[:start] + common)
			return
		}
		shown := cands
		if len(shown) > 20 {
			shown = append(shown[:20:20], "…")
		}
		m.print(m.st.dim.Render(termsafe.Line(strings.Join(shown, "  "))))
	}
}

func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// inputView is the editor, or a hint while a question waits.
func (m *Model) inputView() string {
	top := m.st.dim.Render(strings.Repeat("─", max(m.width, 1)))
	if m.asking {
		top = m.st.warn.Render("answer the question above (Enter sends)")
	}
	if len(m.input.Pastes()) > 0 && !m.asking {
		hint := "Ctrl-X expands the paste "
		top = m.st.dim.Render(hint + strings.Repeat("─", max(m.width-len(hint), 1)))
	}
	return top + "\n" + m.input.View(placeholder, m.st.dim)
}
