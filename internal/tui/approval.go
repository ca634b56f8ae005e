package tui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/reinharness/rein/internal/termsafe"
)

// maxDialogDiff bounds the diff lines the dialog previews.
const maxDialogDiff = 12

// approvalState is the open approval dialog.
type approvalState struct {
	req   ApprovalRequest
	reply chan<- ApprovalReply
	// reasoning is set once n was pressed: the user types a reason.
	reasoning bool
	reason    []rune
}

func (m *Model) openApproval(msg ApprovalMsg) {
	m.endAnswer()
	if m.approval != nil {
		// One question at a time holds the terminal (the front end's
		// gate); a second one would be a bug there. Refuse it rather
		// than lose the first.
		msg.Reply <- ApprovalReply{ID: msg.Request.ID, Choice: ChoiceDeny, Reason: "another approval was open"}
		return
	}
	m.approval = &approvalState{req: msg.Request, reply: msg.Reply}
}

// approvalKey answers the dialog: y once, s session, a always, n deny
// (then a reason and Enter), Esc deny without a reason. Ctrl-C denies and
// cancels the turn.
func (m *Model) approvalKey(k tea.KeyPressMsg) tea.Cmd {
	a := m.approval
	if a.reasoning {
		switch k.String() {
		case "enter":
			m.answer(ChoiceDeny, strings.TrimSpace(string(a.reason)))
		case "esc":
			m.answer(ChoiceDeny, "")
		case "backspace":
			if len(a.reason) > 0 {
				a.reason = a.reason[:len(a.reason)-1]
			}
		case "ctrl+u":
			a.reason = nil
		case "space":
			a.reason = append(a.reason, ' ')
		default:
			if t := k.Key().Text; t != "" && len(a.reason) < 2000 {
				a.reason = append(a.reason, []rune(t)...)
			}
		}
		return nil
	}
	switch k.String() {
	case "y", "Y", "enter":
		m.answer(ChoiceOnce, "")
	case "s", "S":
		m.answer(ChoiceSession, "")
	case "a", "A":
		if a.req.CanAlways {
			m.answer(ChoiceAlways, "")
		}
	case "n", "N":
		a.reasoning = true
	case "esc":
		m.answer(ChoiceDeny, "")
	case "ctrl+c":
		m.answer(ChoiceDeny, "")
		m.cfg.Emit(Action{Kind: ActionCancel})
	}
	return nil
}

// answer replies and closes the dialog, leaving a line in the
// scrollback that says what was decided.
func (m *Model) answer(c Choice, reason string) {
	a := m.approval
	m.approval = nil
	a.reply <- ApprovalReply{ID: a.req.ID, Choice: c, Reason: reason}
	what := map[Choice]string{ChoiceOnce: "allowed once", ChoiceSession: "allowed for this session", ChoiceAlways: "allowed always for this project", ChoiceDeny: "denied"}[c]
	line := termsafe.Line(a.req.Tool) + " " + what
	if reason != "" {
		line += ": " + termsafe.Line(reason)
	}
	style := m.st.ok
	if c == ChoiceDeny {
		style = m.st.bad
	}
	m.print(style.Render("  " + line))
}

// approvalView is the dialog: what wants to run, why it asks, the keys.
func (m *Model) approvalView() string {
	a := m.approval
	r := a.req
	w := max(m.width-4, 20)
	var b strings.Builder
	b.WriteString(m.st.warn.Render("Allow "+termsafe.Line(r.Tool)+"?") + "\n")
	switch {
	case r.Command != "":
		for _, l := range strings.Split(termsafe.Escape(r.Command), "\n") {
			b.WriteString("  $ " + clipRunes(l, w-4) + "\n")
		}
	case r.Diff != "":
		lines := strings.Split(strings.TrimRight(termsafe.Escape(r.Diff), "\n"), "\n")
		shown := lines[:min(len(lines), maxDialogDiff)]
		for i, l := range shown {
			shown[i] = clipRunes(l, w)
		}
		b.WriteString(m.st.colorDiff(strings.Join(shown, "\n")) + "\n")
		if n := len(lines) - len(shown); n > 0 {
			b.WriteString(m.st.dim.Render("  … "+plural(n, "more line")) + "\n")
		}
	case r.Args != "":
		b.WriteString("  " + clipRunes(termsafe.Line(r.Args), w*3) + "\n")
	}
	if r.Why != "" {
		b.WriteString(m.st.dim.Render("  why: "+clipRunes(termsafe.Line(r.Why), w*2)) + "\n")
	}
	if a.reasoning {
		b.WriteString("Reason for the model (Enter sends, Esc skips): " + termsafe.Line(string(a.reason)) + "█")
	} else {
		keys := "[y] once  [s] session  "
		if r.CanAlways {
			keys += "[a] always for this project  "
		}
		keys += "[n] deny (with a reason)  [esc] deny"
		b.WriteString(m.st.bold.Render(keys))
	}
	return m.st.dialog.Width(max(m.width-2, 20)).Render(b.String())
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
