package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/reinharness/rein/internal/termsafe"
)

// confirmState is the open yes-or-no dialog (ConfirmMsg). It keeps the
// approval dialog's safety rules: approvalGuard of quiet before a key
// counts, and Enter never answers.
type confirmState struct {
	req   ConfirmMsg
	quiet time.Time
	hint  string
}

// confirmArmMsg re-renders the dialog when its guard may have run out.
type confirmArmMsg struct{ id int }

func (m *Model) openConfirm(msg ConfirmMsg) tea.Cmd {
	if m.confirm != nil || m.approval != nil {
		msg.Reply <- false // one question at a time: refuse, keep the first
		return nil
	}
	m.confirm = &confirmState{req: msg, quiet: m.now()}
	return m.confirmArmLater()
}

func (m *Model) confirmArmLater() tea.Cmd {
	id := m.confirm.req.ID
	return tea.Tick(approvalGuard, func(time.Time) tea.Msg { return confirmArmMsg{id: id} })
}

func (c *confirmState) armed(now time.Time) bool { return now.Sub(c.quiet) >= approvalGuard }

// confirmKey answers the dialog: y yes; n, Esc or Ctrl-C no. Until it is
// armed every key is dropped and keeps it unarmed.
func (m *Model) confirmKey(k tea.KeyPressMsg) tea.Cmd {
	c := m.confirm
	key := k.String()
	if key == "ctrl+c" {
		m.confirmAnswer(false)
		return nil
	}
	if now := m.now(); !c.armed(now) {
		c.quiet, c.hint = now, ""
		return m.confirmArmLater()
	}
	switch key {
	case "y", "Y":
		m.confirmAnswer(true)
	case "n", "N", "esc":
		m.confirmAnswer(false)
	case "enter":
		c.hint = "Enter alone does not answer: press y or n."
	}
	return nil
}

func (m *Model) confirmAnswer(yes bool) {
	m.confirm.req.Reply <- yes
	m.confirm = nil
}

// confirmView is the dialog: the question, what yes means, the keys.
func (m *Model) confirmView() string {
	c := m.confirm
	body := m.st.warn.Render(termsafe.Line(c.req.Title)) + "\n"
	if c.req.Body != "" {
		for _, l := range wrapCells(termsafe.Line(c.req.Body), m.dialogWidth()) {
			body += l + "\n"
		}
	}
	switch {
	case !c.armed(m.now()):
		body += m.st.dim.Render("(keys typed now are ignored: pause, read, then answer)") + "\n"
	case c.hint != "":
		body += m.st.dim.Render(c.hint) + "\n"
	}
	body += m.st.bold.Render("[y] " + termsafe.Line(c.req.Yes) + "  [n] " + termsafe.Line(c.req.No))
	return m.st.dialog.Width(max(m.width-2, 20)).Render(body)
}
