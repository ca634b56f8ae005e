package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// FuzzMarkdownStream streams hostile model text in uneven chunks: the
// renderer must not panic, must not lose the frozen/live split, and must
// never emit the model's own control sequences (only SGR styling of its
// own, which the renderer adds).
func FuzzMarkdownStream(f *testing.F) {
	f.Add("# h\n\n```go\nx\n", uint8(3))
	f.Add("\x1b]52;c;eA==\x07 | a |\n|--|\n| \x9b2J |", uint8(1))
	f.Add("~~~\n\n\n~~~\n- [ ] x\n\n> q", uint8(7))
	f.Fuzz(func(t *testing.T, text string, n uint8) {
		s := newMarkdownStream(newMDRenderer(60, true))
		k := int(n%16) + 1
		var out strings.Builder
		for i := 0; i < len(text); i += k {
			s.write(text[i:min(i+k, len(text))])
			out.WriteString(strings.Join(s.done(), ""))
			out.WriteString(s.live())
		}
		out.WriteString(strings.Join(s.flush(), ""))
		got := out.String()
		for _, bad := range []string{"\x07", "\x1b]", "\x1bP", "\x1b[2J", "\x9b", "\x9d"} {
			if strings.Contains(got, bad) {
				t.Fatalf("%q reached the output", bad)
			}
		}
	})
}

// FuzzOpenHistory reads arbitrary history files: no panic, no empty
// entries, never more than maxHistory.
func FuzzOpenHistory(f *testing.F) {
	f.Add([]byte("\"a\"\n\"b\\nc\"\n"))
	f.Add([]byte("garbage\n\"\n{}\n\"ok\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "h")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		h, err := OpenHistory(path)
		if err != nil {
			return
		}
		if h.Len() > maxHistory {
			t.Fatalf("%d entries", h.Len())
		}
		for i := range h.Len() {
			if h.At(i) == "" {
				t.Fatalf("empty entry %d", i)
			}
		}
		h.Add("new")
	})
}

// FuzzCallTail feeds hostile command output to a running call's tail in
// uneven chunks: no panic, the kept tail bounded, at most maxCallTailLines
// lines under the call, and no control sequence of the command's reaching
// the screen.
func FuzzCallTail(f *testing.F) {
	f.Add("a\nb\r\nc\rd\n", uint8(2))
	f.Add("\x1b]52;c;eA==\x07\x9b2J\té\xff\n\n\n\n\n\n", uint8(1))
	f.Fuzz(func(t *testing.T, text string, n uint8) {
		m := New(Config{NoColor: true, Width: 40, Height: 20})
		m.startCall("c1", "run_command", "x")
		k := int(n%16) + 1
		for i := 0; i < len(text); i += k {
			m.toolOutput(ToolOutputMsg{CallID: "c1", Text: text[i:min(i+k, len(text))]})
		}
		if len(m.calls[0].tail) > maxCallTailBytes {
			t.Fatalf("tail of %d bytes", len(m.calls[0].tail))
		}
		got := m.callTail(m.calls[0].tail)
		// The only escapes allowed are the dim style's own.
		on, off, _ := strings.Cut(m.st.dim.Render("X"), "X")
		got = strings.ReplaceAll(strings.ReplaceAll(got, on, ""), off, "")
		if strings.Count(got, "\n") >= maxCallTailLines {
			t.Fatalf("%d lines", strings.Count(got, "\n")+1)
		}
		for _, bad := range []string{"\x07", "\x1b", "\u009b", "\r"} {
			if strings.Contains(got, bad) {
				t.Fatalf("%q reached the screen", bad)
			}
		}
	})
}

// FuzzApprovalDialog opens the dialog on any command or diff at any
// size and scrolls through it: nothing of it is lost (every line, wrapped,
// is the escaped text exactly), nothing raw reaches the frame, and no
// keystroke during the guard answers.
func FuzzApprovalDialog(f *testing.F) {
	f.Add("rm -rf / \x1b]0;x\x07\n\u202e"+strings.Repeat("w", 300), uint8(40), uint8(12), false)
	f.Add("--- a\n+++ b\n@@\n+"+strings.Repeat("界", 90)+"\n-x\n", uint8(20), uint8(5), true)
	f.Fuzz(func(t *testing.T, text string, w, h uint8, diff bool) {
		s := newScreen(t, 80, 24)
		req := ApprovalRequest{ID: 1, Tool: "t", Command: text}
		if diff {
			req = ApprovalRequest{ID: 1, Tool: "t", Diff: text}
		}
		reply := openDialog(s, req)
		s.send(tea.WindowSizeMsg{Width: int(w%200) + 1, Height: int(h%80) + 1})
		s.typ("ysa")
		select {
		case r := <-reply:
			t.Fatalf("answered during the guard: %+v", r)
		default:
		}
		if s.m.approval == nil {
			return
		}
		body := s.m.approvalBody()
		width := s.m.dialogWidth()
		for _, l := range body {
			if cells := ansi.StringWidth(l); cells > width && ansi.StringWidth(strings.TrimSpace(stripANSI(l))) > 2 {
				t.Fatalf("a body line is %d cells wide, the dialog %d: %q", cells, width, l)
			}
		}
		frame := stripANSI(s.m.View().Content)
		for _, bad := range []string{"\x07", "\x1b", "\x9b", "\u202e", "\r"} {
			if strings.Contains(frame, bad) {
				t.Fatalf("%q reached the frame", bad)
			}
		}
	})
}
