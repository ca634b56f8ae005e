package fs

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/reinharness/rein/workspace"
)

// benchPatch is a 20-hunk diff of a 5000-line file, as the journal writes it.
func benchPatch() (string, string) {
	var a, b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&a, "line %d of the original file\n", i)
		if i%250 == 0 {
			fmt.Fprintf(&b, "line %d CHANGED\n", i)
		} else {
			fmt.Fprintf(&b, "line %d of the original file\n", i)
		}
	}
	return a.String(), workspace.UnifiedDiff("a/f", "b/f", []byte(a.String()), []byte(b.String()))
}

func BenchmarkParsePatch(b *testing.B) {
	_, patch := benchPatch()
	b.SetBytes(int64(len(patch)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParsePatch(patch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyHunks(b *testing.B) {
	content, patch := benchPatch()
	fps, err := ParsePatch(patch)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := applyHunks("f", content, fps[0].Hunks); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGrep(b *testing.B) {
	files := map[string]string{".gitignore": "*.tmp\n"}
	total := 0
	for i := 0; i < 400; i++ {
		var sb strings.Builder
		for j := 0; j < 200; j++ {
			fmt.Fprintf(&sb, "func f%d_%d() { return %d }\n", i, j, i*j)
		}
		files[fmt.Sprintf("pkg%d/file%d.go", i%20, i)] = sb.String()
		total += sb.Len()
	}
	ws, _ := newWSB(b, files)
	opts := Options{}.withDefaults()
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		out, err := grep(context.Background(), ws, opts, GrepArgs{Pattern: `return 7\d{3} }`})
		if err != nil || !strings.Contains(out, ":") {
			b.Fatalf("%v %q", err, out)
		}
	}
}
