package memory

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteJSONLines writes entries one JSON object per line.
func WriteJSONLines(w io.Writer, es []Entry) error {
	enc := json.NewEncoder(w)
	for _, e := range es {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

// maxImportLine caps one imported line (an entry is capped far below).
const maxImportLine = 1 << 20

// ReadJSONLines parses entries written by WriteJSONLines. Blank lines are
// skipped; a line that is not an entry object is an error naming its
// line. IDs and times are not trusted: the caller stores fresh entries.
func ReadJSONLines(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxImportLine)
	var out []Entry
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var e Entry
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("line %d: not a memory entry (%v); expected what `rein memory export` writes", n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading: %w (lines are limited to %d bytes)", err, maxImportLine)
	}
	return out, nil
}

// MarkdownHeading starts an exported Markdown file.
const MarkdownHeading = "# Project memory"

// WriteMarkdown writes entries as a Markdown list a team can commit
// (.rein/memory.md): one "- " bullet per entry, on one line, tags in a
// trailing "[tags: a, b]".
func WriteMarkdown(w io.Writer, es []Entry) error {
	if _, err := fmt.Fprintf(w, "%s\n\nNotes kept by rein's memory (`rein memory export --markdown`). One bullet per note.\n\n", MarkdownHeading); err != nil {
		return err
	}
	for _, e := range es {
		line := strings.Join(strings.Fields(e.Text), " ")
		if len(e.Tags) > 0 {
			line += " [tags: " + strings.Join(e.Tags, ", ") + "]"
		}
		if _, err := fmt.Fprintf(w, "- %s\n", line); err != nil {
			return err
		}
	}
	return nil
}

// ReadMarkdown parses notes from Markdown: every top-level bullet ("- "
// or "* ") is a note, indented lines after it continue it, a trailing
// "[tags: a, b]" sets its tags; everything else (headings, prose) is
// ignored. Scope and source are the caller's to set.
func ReadMarkdown(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxImportLine)
	var out []Entry
	var cur *strings.Builder
	flush := func() {
		if cur == nil {
			return
		}
		text, tags := splitTagSuffix(strings.TrimSpace(cur.String()))
		if text != "" {
			out = append(out, Entry{Text: text, Tags: tags})
		}
		cur = nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* "):
			flush()
			cur = &strings.Builder{}
			cur.WriteString(line[2:])
		case cur != nil && strings.TrimSpace(line) != "" && (line[0] == ' ' || line[0] == '\t'):
			cur.WriteString(" " + strings.TrimSpace(line))
		default:
			flush()
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading: %w (lines are limited to %d bytes)", err, maxImportLine)
	}
	return out, nil
}

func splitTagSuffix(s string) (string, []string) {
	i := strings.LastIndex(s, "[tags:")
	if i < 0 || !strings.HasSuffix(s, "]") {
		return s, nil
	}
	var tags []string
	for _, t := range strings.Split(s[i+len("[tags:"):len(s)-1], ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return strings.TrimSpace(s[:i]), tags
}
