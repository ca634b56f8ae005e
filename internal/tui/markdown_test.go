package tui

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// streamAll feeds text to a stream in chunks of n bytes and returns the
// frozen blocks and the final live area.
func streamAll(s *markdownStream, text string, n int) []string {
	var blocks []string
	for len(text) > 0 {
		k := min(n, len(text))
		s.write(text[:k])
		text = text[k:]
		blocks = append(blocks, s.done()...)
		s.live()
	}
	return append(blocks, s.flush()...)
}

func TestMarkdownStreamBlocks(t *testing.T) {
	src := "# Title\n\nSome *emphasis* and **bold**.\n\n- one\n- two\n\n```go\nfunc main() {}\n\nx := 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
	for _, n := range []int{1, 3, 7, 1000} {
		s := newMarkdownStream(newMDRenderer(80, true))
		blocks := streamAll(s, src, n)
		got := stripANSI(strings.Join(blocks, "\n\n"))
		for _, want := range []string{"Title", "emphasis", "• one", "func main() {}", "x := 1", "a", "1"} {
			if !strings.Contains(got, want) {
				t.Errorf("chunk %d: rendering lacks %q:\n%s", n, want, got)
			}
		}
		if strings.Contains(got, "```") || strings.Contains(got, "**bold**") {
			t.Errorf("chunk %d: markdown source leaked:\n%s", n, got)
		}
		// The blank line inside the fence must not split the code block.
		if len(blocks) != 5 {
			t.Errorf("chunk %d: %d blocks, want 5 (heading, paragraph, list, code, table)", n, len(blocks))
		}
	}
}

func TestMarkdownStreamEscapesControls(t *testing.T) {
	s := newMarkdownStream(newMDRenderer(80, true))
	blocks := streamAll(s, "evil \x1b]52;c;aGk=\x07 and \x1b[2J clear\n", 4)
	got := strings.Join(blocks, "")
	if strings.ContainsAny(got, "\x07") || strings.Contains(got, "\x1b]52") || strings.Contains(got, "\x1b[2J") {
		t.Fatalf("control sequence passed through: %q", got)
	}
}

func TestMarkdownStreamCutsLongFence(t *testing.T) {
	var b strings.Builder
	b.WriteString("```python\n")
	for i := range 200 {
		fmt.Fprintf(&b, "print(%d)\n", i)
	}
	b.WriteString("```\n")
	s := newMarkdownStream(newMDRenderer(80, true))
	blocks := streamAll(s, b.String(), 13)
	if len(blocks) < 5 {
		t.Fatalf("a 200-line fence made %d blocks; want it cut", len(blocks))
	}
	all := stripANSI(strings.Join(blocks, "\n"))
	for _, want := range []string{"print(0)", "print(199)"} {
		if !strings.Contains(all, want) {
			t.Errorf("lost %q", want)
		}
	}
	if strings.Contains(all, "```") {
		t.Errorf("fence markers leaked into the rendering")
	}
}

// longAnswer is a 2,000-line markdown answer of mixed blocks.
func longAnswer() string {
	var b strings.Builder
	for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < 2000; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nA paragraph with *emphasis*, `code` and a [link](http://x/%d).\n\n- item one\n- item two\n\n```go\nfunc f%d() int {\n\treturn %d\n}\n```\n\n| k | v |\n|---|---|\n| %d | x |\n\n", i, i, i, i, i)
	}
	return b.String()
}

// BenchmarkMarkdownStreamChunk measures one incoming chunk (40 bytes)
// at the end of a 2,000-line streamed answer: appending it and
// re-rendering the live block, what the UI does per chunk. It reports
// the process CPU time per chunk (cpu-ms/chunk), which must stay flat as
// the answer grows, not grow with it.
func BenchmarkMarkdownStreamChunk(b *testing.B) {
	text := longAnswer()
	s := newMarkdownStream(newMDRenderer(100, false))
	streamAll(s, text, 40)
	const chunk = 40
	pos := 0
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		if pos+chunk > len(text) {
			pos = 0
		}
		s.write(text[pos : pos+chunk])
		pos += chunk
		s.done()
		s.live()
	}
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/chunk")
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestMarkdownKeepsLineBreaks: a line break inside a paragraph is kept
// (a haiku stays three lines), while long lines still wrap at the width
// and markup inside the lines is still rendered.
func TestMarkdownKeepsLineBreaks(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"haiku", "An old silent pond\nA frog jumps into the pond\nSplash! Silence again.\n",
			[]string{"An old silent pond", "A frog jumps into the pond", "Splash! Silence again."}},
		{"markup inside lines", "Name: **rein**\nRole: *harness*\n",
			[]string{"Name: rein", "Role: harness"}},
		{"hard break", "first line  \nsecond line\n", []string{"first line", "second line"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stripANSI(strings.Join(streamAll(newMarkdownStream(newMDRenderer(80, true)), tt.src, 5), "\n"))
			var lines []string
			for _, l := range strings.Split(got, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					lines = append(lines, l)
				}
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("rendered lines %q, want %q", lines, tt.want)
			}
		})
	}
	long := strings.Repeat("word ", 40) + "\nnext"
	got := stripANSI(strings.Join(streamAll(newMarkdownStream(newMDRenderer(40, true)), long, 7), "\n"))
	for i, l := range strings.Split(got, "\n") {
		if w := len([]rune(l)); w > 40 {
			t.Errorf("line %d is %d wide at width 40: %q", i, w, l)
		}
	}
	if !strings.Contains(got, "\n  next") && !strings.Contains(got, "\nnext") {
		t.Errorf("the line after a wrapped one does not start a line:\n%s", got)
	}
}
