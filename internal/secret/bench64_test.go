package secret

import (
	"fmt"
	"strings"
	"testing"
)

// toolOutput64K is a 64 KiB tool result of the usual kind: source lines,
// test output and paths, with no secret in it.
func toolOutput64K() string {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "internal/pkg/file%d.go:%d:\tfunc handle%d(ctx context.Context, req *Request) error {\n", i, i*7, i)
		case 1:
			fmt.Fprintf(&b, "--- PASS: TestCase%d (0.%02ds)\n", i, i%100)
		case 2:
			fmt.Fprintf(&b, "    %x  %s\n", i*2654435761, strings.Repeat("ab", i%13))
		default:
			b.WriteString("ok  \tgithub.com/example/project/pkg\t0.123s\tcoverage: 81.2% of statements\n")
		}
	}
	return b.String()[:64<<10]
}

// BenchmarkRedact64K measures Redact and RedactKnown on a 64 KiB tool
// output with a handful of registered secrets (run it alone: the
// registrations are global).
func BenchmarkRedact64K(b *testing.B) {
	Register("sk-bench-0123456789abcdefghij", "ghp_benchBENCHbench0123456789abcdef", "envsecret-42-xyzzy-plugh",
		"hunter2/hunter2+hunter2", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	in := toolOutput64K()
	b.Run("Redact", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			Redact(in)
		}
	})
	b.Run("RedactKnown", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			RedactKnown(in)
		}
	})
}
