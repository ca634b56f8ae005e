package tui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/reinharness/rein/internal/termsafe"
)

// approvalGuard is how long the dialog ignores keys after it opened, and
// after each key it ignored: keys typed for the message being written
// while the model streamed ("as you said before" holds an s) must not
// answer a question the user has not seen. Typing on keeps the dialog
// deaf; a pause of approvalGuard arms it.
const approvalGuard = 500 * time.Millisecond

// approvalState is the open approval dialog.
type approvalState struct {
	req   ApprovalRequest
	reply chan<- ApprovalReply
	// quiet is when the dialog opened or last ignored a key: keys count
	// only approvalGuard after it. ignored counts the keys dropped.
	quiet   time.Time
	ignored int
	// hint explains the last key that did not answer (Enter).
	hint string
	// top is the first body line shown when the body is taller than the
	// dialog's room (scrolled with ↑/↓, PgUp/PgDn, Home/End).
	top int
	// reasoning is set once n was pressed: the user types a reason.
	reasoning bool
	reason    []rune
	// body is the wrapped body for bodyWidth (wrapping a long diff on
	// every frame would cost more than drawing it).
	body      []string
	bodyWidth int
}

// armMsg re-renders the dialog when its guard may have run out.
type armMsg struct{ id int }

func (m *Model) openApproval(msg ApprovalMsg) tea.Cmd {
	m.endAnswer()
	if m.approval != nil {
		// One question at a time holds the terminal (the front end's
		// gate); a second one would be a bug there. Refuse it rather
		// than lose the first.
		msg.Reply <- ApprovalReply{ID: msg.Request.ID, Choice: ChoiceDeny, Reason: "another approval was open"}
		return nil
	}
	m.approval = &approvalState{req: msg.Request, reply: msg.Reply, quiet: m.now()}
	return m.armLater()
}

func (m *Model) armLater() tea.Cmd {
	id := m.approval.req.ID
	return tea.Tick(approvalGuard, func(time.Time) tea.Msg { return armMsg{id: id} })
}

// armed reports whether the dialog takes answers: approvalGuard has
// passed since it opened and since the last key it ignored.
func (a *approvalState) armed(now time.Time) bool { return now.Sub(a.quiet) >= approvalGuard }

// approvalKey answers the dialog: y once, s session, a always, n deny
// (then a reason and Enter), Esc deny without a reason. Ctrl-C denies and
// cancels the turn. Enter alone answers nothing, and until the dialog is
// armed every key but Ctrl-C and the scroll keys is dropped (and keeps
// it unarmed).
func (m *Model) approvalKey(k tea.KeyPressMsg) tea.Cmd {
	a := m.approval
	if a.reasoning {
		m.reasonKey(k)
		return nil
	}
	key := k.String()
	if key == "ctrl+c" {
		m.answer(ChoiceDeny, "")
		m.cfg.Emit(Action{Kind: ActionCancel})
		return nil
	}
	if now := m.now(); !a.armed(now) {
		a.quiet, a.hint = now, ""
		a.ignored++
		return m.armLater()
	}
	if m.scrollKey(key) {
		return nil
	}
	a.hint = ""
	switch key {
	case "y", "Y":
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
	case "enter":
		a.hint = "Enter alone does not answer: press a letter."
	}
	return nil
}

// reasonKey edits the reason for a denial.
func (m *Model) reasonKey(k tea.KeyPressMsg) {
	a := m.approval
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
}

// scrollKey moves the dialog's body; it reports whether key was one.
func (m *Model) scrollKey(key string) bool {
	a := m.approval
	page := m.bodyRoom()
	switch key {
	case "up", "k":
		a.top--
	case "down", "j":
		a.top++
	case "pgup", "b":
		a.top -= page
	case "pgdown", "f", "space":
		a.top += page
	case "home", "g":
		a.top = 0
	case "end", "G":
		a.top = len(m.approvalBody())
	default:
		return false
	}
	m.clampTop()
	return true
}

// clampTop keeps the scroll position inside the body (after a scroll
// or a resize).
func (m *Model) clampTop() {
	a := m.approval
	a.top = max(min(a.top, len(m.approvalBody())-m.bodyRoom()), 0)
}

// answer replies and closes the dialog, leaving a line in the
// scrollback that says what was allowed; a denial's line is the
// decision's (Model.decision), which carries the reason as recorded.
func (m *Model) answer(c Choice, reason string) {
	a := m.approval
	m.approval = nil
	a.reply <- ApprovalReply{ID: a.req.ID, Choice: c, Reason: reason}
	if c == ChoiceDeny {
		return // the denial's line follows, with the reason
	}
	what := map[Choice]string{ChoiceOnce: "allowed once", ChoiceSession: "allowed for this session", ChoiceAlways: "allowed always for this project"}[c]
	m.print(m.st.ok.Render("  " + termsafe.Line(a.req.Tool) + " " + what))
}

// dialogWidth is the width of the dialog's text: the window less the
// border and padding.
func (m *Model) dialogWidth() int { return max(m.width-6, 14) }

// bodyRoom is how many body lines the dialog shows at once: the window
// less the dialog's frame, the input and the status line.
func (m *Model) bodyRoom() int { return max(m.height-14, 4) }

// approvalBody is what the call would do, escaped and wrapped to the
// dialog's width, every line of it: the command, the diff or the
// arguments. Nothing is clipped; what does not fit is scrolled.
func (m *Model) approvalBody() []string {
	a := m.approval
	if w := m.dialogWidth(); a.body == nil || a.bodyWidth != w {
		a.body, a.bodyWidth = m.wrapBody(w), w
	}
	return a.body
}

// wrapBody wraps the request's command, diff or arguments to w cells.
func (m *Model) wrapBody(w int) []string {
	r := m.approval.req
	out := []string{}
	switch {
	case r.Command != "":
		for _, l := range strings.Split(termsafe.Escape(r.Command), "\n") {
			for i, part := range wrapCells(l, w-4) {
				lead := "    "
				if i == 0 {
					lead = "  $ "
				}
				out = append(out, lead+part)
			}
		}
	case r.Diff != "":
		for _, l := range strings.Split(strings.TrimRight(termsafe.Escape(r.Diff), "\n"), "\n") {
			// Every part of a wrapped line keeps its +, - or space, so it
			// is colored and read as the same kind of line.
			mark := diffMark(l)
			for _, part := range wrapCells(l[len(mark):], w-len(mark)) {
				out = append(out, m.st.colorDiff(mark+part))
			}
		}
	case r.Args != "":
		out = wrapCells(termsafe.Line(r.Args), w)
	}
	return out
}

// diffMark is the marker of a diff line that is kept on its wrapped
// parts: +, - or space (not the +++ and --- of the file names).
func diffMark(l string) string {
	if l != "" && strings.ContainsRune("+- ", rune(l[0])) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
		return l[:1]
	}
	return ""
}

// approvalView is the dialog: what wants to run (all of it, scrolled
// when it is taller than the room, saying what is out of view), why it
// asks, the keys.
func (m *Model) approvalView() string {
	a := m.approval
	r := a.req
	w := m.dialogWidth()
	var b strings.Builder
	b.WriteString(m.st.warn.Render("Allow "+termsafe.Line(r.Tool)+"?") + "\n")
	body := m.approvalBody()
	m.clampTop()
	room := m.bodyRoom()
	end := min(a.top+room, len(body))
	if a.top > 0 {
		b.WriteString(m.st.dim.Render("  ▲ "+plural(a.top, "line")+" above") + "\n")
	}
	for _, l := range body[a.top:end] {
		b.WriteString(l + "\n")
	}
	if len(body) > room {
		b.WriteString(m.st.warn.Render(hiddenNote(a.top, len(body)-end, len(body))) + "\n")
	}
	if r.Why != "" {
		b.WriteString(m.st.dim.Render("  why: "+clipRunes(termsafe.Line(r.Why), w*2)) + "\n")
	}
	switch {
	case a.reasoning:
		b.WriteString("Reason for the model (Enter sends, Esc skips): " + termsafe.Line(string(a.reason)) + "█")
		return m.st.dialog.Width(max(m.width-2, 20)).Render(b.String())
	case !a.armed(m.now()):
		b.WriteString(m.st.dim.Render("(keys typed now are ignored: pause, read, then answer)") + "\n")
	case a.hint != "":
		b.WriteString(m.st.dim.Render(a.hint) + "\n")
	}
	keys := "[y] once  [s] session  "
	if r.CanAlways {
		keys += "[a] always for this project  "
	}
	keys += "[n] deny (with a reason)  [esc] deny"
	b.WriteString(m.st.bold.Render(keys))
	return m.st.dialog.Width(max(m.width-2, 20)).Render(b.String())
}

// hiddenNote says how much of the body is out of view and how to see it.
func hiddenNote(above, below, total int) string {
	var parts []string
	if above > 0 {
		parts = append(parts, plural(above, "line")+" above")
	}
	if below > 0 {
		parts = append(parts, plural(below, "line")+" below")
	}
	return "  ▼ " + strings.Join(parts, ", ") + " hidden, of " + strconv.Itoa(total) + " (↑/↓ PgUp/PgDn Home/End scroll)"
}

// wrapCells cuts escaped text into lines of at most width cells, never
// dropping a character (spaces included: what is approved is exactly
// what is shown).
func wrapCells(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	var out []string
	var cur strings.Builder
	n := 0
	for _, r := range s {
		cw := runeCells(r)
		if n+cw > width && n > 0 {
			out = append(out, cur.String())
			cur.Reset()
			n = 0
		}
		cur.WriteRune(r)
		n += cw
	}
	return append(out, cur.String())
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
