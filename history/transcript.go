package history

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reinharness/rein/model"
)

// bytesPerToken is the agent estimator's rule (agent.EstimateTextTokens):
// about four bytes of text per token. Byte limits for transcripts are
// derived from token allowances with it; a test keeps the two in step.
const bytesPerToken = 4

// Per-part limits of the transcript a summary is written from. A summary
// needs what a tool did and the gist of what it returned, not every byte
// of its output; the user's and the agent's own words get the most room.
const (
	clipText   = 8 << 10
	clipArgs   = 1 << 10
	clipResult = 2 << 10
)

// renderMessage writes a plain-text rendering of m to b, each part
// clipped to at most min(its own limit, limit) bytes. Reasoning is left
// out: it is the model's scratch work, often opaque or signed, and the
// visible text and tool calls carry its conclusions.
func renderMessage(b *strings.Builder, m model.Message, limit int) {
	b.WriteString("[")
	b.WriteString(roleName(m.Role))
	b.WriteString("]\n")
	for _, p := range m.Parts {
		switch p.Kind {
		case model.PartText:
			if p.Text != "" {
				b.WriteString(clip(p.Text, min(clipText, limit)))
				b.WriteByte('\n')
			}
		case model.PartToolCall:
			if c := p.ToolCall; c != nil {
				b.WriteString("-> call ")
				b.WriteString(clip(c.Name, 128))
				b.WriteString(" (id ")
				b.WriteString(clip(c.ID, 128))
				b.WriteString("): ")
				b.WriteString(clip(string(c.Args), min(clipArgs, limit)))
				b.WriteByte('\n')
			}
		case model.PartToolResult:
			if r := p.ToolResult; r != nil {
				if r.IsError {
					b.WriteString("<- error from ")
				} else {
					b.WriteString("<- result of ")
				}
				b.WriteString(clip(r.Name, 128))
				b.WriteString(" (id ")
				b.WriteString(clip(r.CallID, 128))
				b.WriteString("): ")
				b.WriteString(clip(r.Content, min(clipResult, limit)))
				b.WriteByte('\n')
			}
		}
	}
}

// roleName returns the role as written in a transcript; an unknown role
// (a corrupt history) is shown clipped rather than trusted.
func roleName(r model.Role) string {
	switch r {
	case model.RoleUser, model.RoleAssistant, model.RoleTool, model.RoleSystem:
		return string(r)
	}
	return "role " + strconv.Quote(clip(string(r), 32))
}

// takeChunk renders msgs[i:] as one transcript of at most maxBytes,
// breaking only between messages, and returns it with the index of the
// first message left for the next chunk. It takes at least one message; a
// message too long on its own is clipped to fit. maxBytes <= 0 means no
// limit.
func takeChunk(msgs []model.Message, i, maxBytes int) (string, int) {
	var cur, one strings.Builder
	limit := clipText
	if maxBytes > 0 {
		// Leave room for the headers of a message with several parts.
		limit = max(maxBytes/2, 64)
	}
	for ; i < len(msgs); i++ {
		one.Reset()
		renderMessage(&one, msgs[i], limit)
		s := one.String()
		if maxBytes > 0 {
			s = clip(s, maxBytes)
			if cur.Len() > 0 && cur.Len()+len(s) > maxBytes {
				break
			}
		}
		cur.WriteString(s)
	}
	return cur.String(), i
}

// clip returns s cut to at most n bytes at a rune boundary, with a marker
// saying how long it was when anything was cut. The result is valid UTF-8
// whenever s is, and never longer than max(n, 0).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	suffix := "… [clipped: " + strconv.Itoa(len(s)) + " bytes in all]\n"
	keep := n - len(suffix)
	if keep < 0 {
		return cutRunes(s, n)
	}
	return cutRunes(s, keep) + suffix
}

// cutRunes returns the longest prefix of s of at most n bytes that does
// not end inside a multi-byte rune.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i > n-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// The fences of a summary call's input.
const (
	prevOpen   = "The summary so far:\n<summary>\n"
	prevClose  = "\n</summary>\n\n"
	transOpen  = "The conversation to summarize, earliest first:\n<transcript>\n"
	transClose = "\n</transcript>\n\nWrite the updated summary now."
	// summaryFrameBytes is what summaryInput adds around its inputs.
	summaryFrameBytes = len(prevOpen) + len(prevClose) + len(transOpen) + len(transClose)
)

// summaryInput is the user message of a summary call: the summary so far,
// if any, and the next part of the conversation, fenced so the model can
// tell data from its instructions.
func summaryInput(prev, transcript string) string {
	var b strings.Builder
	b.Grow(len(prev) + len(transcript) + summaryFrameBytes)
	if prev != "" {
		b.WriteString(prevOpen)
		b.WriteString(prev)
		b.WriteString(prevClose)
	}
	b.WriteString(transOpen)
	b.WriteString(transcript)
	b.WriteString(transClose)
	return b.String()
}
