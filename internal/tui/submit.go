package tui

// SubmitMsg sends Text as if the user had typed it and pressed Enter: it
// is shown as the user's message, kept in the history and emitted as an
// ActionSend (rein "PROMPT" sends its first message this way).
type SubmitMsg struct{ Text string }

// submit handles a SubmitMsg; a draft being typed is kept.
func (m *Model) submit(text string) {
	draft := m.input
	m.input = newEditor()
	m.input.width = draft.width
	m.input.SetValue(text)
	m.send()
	if draft.text != "" {
		m.input = draft // with its collapsed pastes
	}
}
