package tui

// DraftMsg puts Text back in the input for editing: a message the front
// end refused to send (an @path it cannot attach) is not lost. A draft
// the user began typing meanwhile is kept instead.
type DraftMsg struct{ Text string }

// restoreDraft handles a DraftMsg.
func (m *Model) restoreDraft(text string) {
	if m.input.Value() != "" {
		return
	}
	m.input.SetValue(text)
}
