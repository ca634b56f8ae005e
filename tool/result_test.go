package tool

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int
		want    string
		wantCut bool
	}{
		{"short", "hello", 10, "hello", false},
		{"exact", "hello", 5, "hello", false},
		{"empty", "", 0, "", false},
		{"head and tail", "0123456789abcdefghij", 16,
			"0123456789abcd\n… [truncated: 20 bytes total, showing first 14 and last 2] …\nij", true},
		{"zero max keeps only the marker", "abc", 0, "\n… [truncated: 3 bytes total, showing first 0 and last 0] …\n", true},
		{"negative max", "abc", -5, "\n… [truncated: 3 bytes total, showing first 0 and last 0] …\n", true},
		// "é" is 2 bytes: a cut inside it moves back to its start (head)
		// or forward past it (tail).
		{"utf8 head boundary", "ééééé", 8, "ééé\n… [truncated: 10 bytes total, showing first 6 and last 0] …\n", true},
		{"utf8 tail boundary", strings.Repeat("a", 20) + "éé", 17,
			strings.Repeat("a", 15) + "\n… [truncated: 24 bytes total, showing first 15 and last 2] …\né", true},
		{"4-byte runes", "😀😀😀😀", 9, "😀😀\n… [truncated: 16 bytes total, showing first 8 and last 0] …\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Truncate(tt.in, tt.max)
			if diff := cmp.Diff(tt.want, got); diff != "" || cut != tt.wantCut {
				t.Errorf("Truncate(%q, %d) cut=%v (-want +got):\n%s", tt.in, tt.max, cut, diff)
			}
		})
	}
}

func TestTruncateLargeKeepsHeadAndTail(t *testing.T) {
	s := "HEAD" + strings.Repeat("·", 100000) + "TAIL"
	got, cut := Truncate(s, DefaultMaxResultBytes)
	if !cut || !strings.HasPrefix(got, "HEAD") || !strings.HasSuffix(got, "TAIL") || !utf8.ValidString(got) {
		t.Fatalf("cut=%v, head %q, tail %q, valid %v", cut, got[:8], got[len(got)-8:], utf8.ValidString(got))
	}
	marker := fmt.Sprintf("[truncated: %d bytes total, showing first", len(s))
	if !strings.Contains(got, marker) {
		t.Errorf("marker %q missing", marker)
	}
	if len(got) > DefaultMaxResultBytes+100 {
		t.Errorf("len = %d; want about %d", len(got), DefaultMaxResultBytes)
	}
}

// FuzzTruncate checks that output is valid UTF-8 whenever the input is, that
// the kept text never exceeds max, and that the marker reports the sizes.
func FuzzTruncate(f *testing.F) {
	f.Add("hello world", 5)
	f.Add("ééééé", 3)
	f.Add("😀a😀b😀", 7)
	f.Add("\xff\xfe\xfd abc", 2)
	f.Add(strings.Repeat("x", 1000), 100)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 1 << 16
		got, cut := Truncate(s, max)
		if !cut {
			if got != s || len(s) > max {
				t.Fatalf("uncut output %q differs or input (%d) exceeds max %d", got, len(s), max)
			}
			return
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("valid input gave invalid output %q", got)
		}
		i := strings.Index(got, "\n… [truncated: ")
		j := strings.LastIndex(got, "] …\n")
		if i < 0 || j < i {
			t.Fatalf("no marker in %q", got)
		}
		var total, head, tail int
		if _, err := fmt.Sscanf(got[i:j+1], "\n… [truncated: %d bytes total, showing first %d and last %d]", &total, &head, &tail); err != nil {
			t.Fatalf("marker %q: %v", got[i:j+1], err)
		}
		kept := i + len(got) - (j + len("] …\n"))
		if total != len(s) || head != i || head+tail != kept || kept > maxInt(max, 0) {
			t.Fatalf("total %d head %d tail %d kept %d max %d len(s) %d", total, head, tail, kept, max, len(s))
		}
		if got[:i] != s[:head] || got[len(got)-tail:] != s[len(s)-tail:] {
			t.Fatal("kept text is not the input's head and tail")
		}
	})
}

func TestUnknownTool(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf("tool_%02d", i)
	}
	tests := []struct {
		name      string
		call      string
		available []string
		want      string
	}{
		{"suggests", "read_fiel", []string{"read_file", "write_file", "grep"},
			`unknown tool "read_fiel"; did you mean "read_file"?; available tools: read_file, write_file, grep`},
		{"case", "GREP", []string{"read_file", "grep"},
			`unknown tool "GREP"; did you mean "grep"?; available tools: read_file, grep`},
		{"no suggestion", "launch_rockets", []string{"read_file", "grep"},
			`unknown tool "launch_rockets"; available tools: read_file, grep`},
		{"none available", "x", nil, `unknown tool "x"; no tools are available`},
		{"capped", "zzz", many, `unknown tool "zzz"; available tools: ` + strings.Join(many[:32], ", ") + " and 8 more"},
		{"hostile name", strings.Repeat("é", 100), []string{"a"},
			`unknown tool "` + strings.Repeat("é", 32) + `…"; available tools: a`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := UnknownTool(tt.call, tt.available)
			if !got.IsError {
				t.Error("not an error result")
			}
			if diff := cmp.Diff(tt.want, got.Content); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorAndTextResult(t *testing.T) {
	if diff := cmp.Diff(&Result{Content: "bad path \"x\": 3", IsError: true}, ErrorResult("bad path %q: %d", "x", 3)); diff != "" {
		t.Errorf("ErrorResult (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Result{Content: "ok"}, TextResult("ok")); diff != "" {
		t.Errorf("TextResult (-want +got):\n%s", diff)
	}
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"a", "read_file", "mcp__server-tool", strings.Repeat("Z9", 32)} {
		if err := ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a b", "a.b", "é", strings.Repeat("a", 65), "tab\t", "slash/"} {
		if err := ValidateName(bad); err == nil {
			t.Errorf("ValidateName(%q) = nil", bad)
		}
	}
}
