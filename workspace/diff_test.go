package workspace

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{name: "equal", a: "x\n", b: "x\n", want: ""},
		{name: "create", a: "", b: "a\nb\n", want: "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{name: "delete all", a: "a\n", b: "", want: "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n"},
		{
			name: "newline added at end",
			a:    "a\nb", b: "a\nb\n",
			want: "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			name: "insert at top keeps 3 lines of context",
			a:    "1\n2\n3\n4\n5\n", b: "0\n1\n2\n3\n4\n5\n",
			want: "--- a\n+++ b\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n",
		},
		{
			name: "two distant changes make two hunks",
			a:    "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
			b:    "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n",
			want: "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n",
		},
		{
			name: "close changes share a hunk",
			a:    "1\n2\n3\n4\n5\n6\n7\n8\n",
			b:    "one\n2\n3\n4\n5\n6\n7\neight\n",
			want: "--- a\n+++ b\n@@ -1,8 +1,8 @@\n-1\n+one\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+eight\n",
		},
	}
	for _, tt := range tests {
		got := UnifiedDiff("a", "b", []byte(tt.a), []byte(tt.b))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// applyUnified is a minimal applier for this package's own output, to
// check that every diff reproduces its target.
func applyUnified(t *testing.T, a, patch string) string {
	t.Helper()
	src := splitLines(a)
	var out []string
	pos := 0
	lines := strings.SplitAfter(patch, "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "":
		case strings.HasPrefix(l, "@@"):
			var as, al, bs, bl int
			if _, err := fmt.Sscanf(normaliseHeader(l), "@@ -%d,%d +%d,%d @@", &as, &al, &bs, &bl); err != nil {
				t.Fatalf("bad hunk header %q: %v", l, err)
			}
			start := as - 1
			if al == 0 {
				start = as
			}
			out = append(out, src[pos:start]...)
			pos = start
		case strings.HasPrefix(l, `\`):
			last := len(out) - 1
			if strings.HasPrefix(lines[i-1], "-") {
				continue
			}
			out[last] = strings.TrimSuffix(out[last], "\n")
		case l[0] == ' ':
			out = append(out, src[pos])
			pos++
		case l[0] == '-':
			pos++
		case l[0] == '+':
			out = append(out, l[1:])
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "")
}

func normaliseHeader(h string) string {
	f := strings.Fields(h)
	for i := 1; i <= 2; i++ {
		if !strings.Contains(f[i], ",") {
			f[i] += ",1"
		}
	}
	return strings.Join(f[:4], " ")
}

func TestUnifiedDiffRoundTripsRandomEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a\n", "b\n", "c\n", "d\n", "e\n", "x"}
	gen := func() string {
		var sb strings.Builder
		n := r.IntN(25)
		for i := 0; i < n; i++ {
			w := words[r.IntN(len(words)-1)]
			sb.WriteString(w)
		}
		if r.IntN(4) == 0 {
			sb.WriteString("tail-without-newline")
		}
		return sb.String()
	}
	for i := 0; i < 2000; i++ {
		a, b := gen(), gen()
		d := UnifiedDiff("a", "b", []byte(a), []byte(b))
		if a == b {
			if d != "" {
				t.Fatalf("equal inputs gave a diff:\n%s", d)
			}
			continue
		}
		if got := applyUnified(t, a, d); got != b {
			t.Fatalf("round trip %d failed:\na=%q\nb=%q\ngot=%q\ndiff:\n%s", i, a, b, got, d)
		}
	}
}

func TestDiffFallsBackBeyondEditDistanceCap(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < maxEditDistance+200; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	d := UnifiedDiff("a", "b", []byte(a.String()), []byte(b.String()))
	if got := applyUnified(t, a.String(), d); got != b.String() {
		t.Fatal("fallback diff does not reproduce the target")
	}
}

func BenchmarkUnifiedDiff(b *testing.B) {
	var x, y strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&x, "line %d\n", i)
		if i%50 == 0 {
			fmt.Fprintf(&y, "changed %d\n", i)
		} else {
			fmt.Fprintf(&y, "line %d\n", i)
		}
	}
	xa, ya := []byte(x.String()), []byte(y.String())
	b.SetBytes(int64(len(xa)))
	b.ReportAllocs()
	for b.Loop() {
		_ = UnifiedDiff("a", "b", xa, ya)
	}
}
