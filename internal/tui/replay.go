package tui

import (
	"strings"

	"github.com/reinharness/rein/internal/termsafe"
)

// replay prints a resumed session's last exchanges. The answers are
// rendered by a markdown stream of their own, so a turn streaming (there
// is none when the user resumes, but a notice may race) is not mixed in.
func (m *Model) replay(msg ReplayMsg) {
	m.endAnswer()
	if msg.Header != "" {
		m.print(m.st.dim.Render(termsafe.Escape(strings.TrimRight(msg.Header, "\n"))))
	}
	for _, ex := range msg.Exchanges {
		if ex.User != "" {
			m.print(m.st.accent.Render("› ") + strings.ReplaceAll(termsafe.Escape(strings.TrimRight(ex.User, "\n")), "\n", "\n  "))
		}
		for _, t := range ex.Tools {
			m.print(m.st.dim.Render("  → " + clipLine(termsafe.Line(t), max(m.width-4, 10))))
		}
		if strings.TrimSpace(ex.Answer) != "" {
			md := newMarkdownStream(m.mdr)
			md.write(ex.Answer)
			m.printBlocks(md.flush())
		}
	}
}
